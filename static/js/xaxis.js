// One x axis for all of a job page's charts. Each chart's layout.meta.x says what its data are on:
// "step" or "time" (UTC text). The reader picks step, time since the run's start, or wall time
// (#x-mode); a series on the other axis is mapped through the job's clock ([[step, UNIX seconds],
// ...], app/series/clock.py, fetched from data-clock-src; `ready` resolves once it is here) by
// linear interpolation. Zooming one chart sets the others' x range, a double-click resets them
// all, hovering one shows the same x on the others, and every hover names the step and its local
// wall time. static/js/charts.js calls prepare() before drawing and update() after new data.
(function () {
  "use strict";
  var box = document.getElementById("x-mode");
  var S = [], T = [], mapping = false, mode = "step", T0 = 0, unit = 1, unitName = "s";
  var MODES = ["step", "relative", "time"];

  function setClock(clock) {
    S = clock.map(function (p) { return p[0]; });
    T = clock.map(function (p) { return p[1]; });
    mapping = clock.length > 1;
    T0 = T.length ? T[0] : 0;
    var span = T.length ? T[T.length - 1] - T0 : 0; // seconds, minutes or hours since the start
    if (span > 3 * 3600) { unit = 3600; unitName = "h"; } else if (span > 180) { unit = 60; unitName = "min"; }
    try { mode = window.localStorage.getItem("tpuwatch.xmode") || "step"; } catch (e) { /* storage off */ }
    if (!mapping || MODES.indexOf(mode) < 0) { mode = "step"; }
  }

  function interp(xs, ys, v, below) {
    var n = xs.length;
    if (v === null || v === undefined || !isFinite(v) || n < 2) { return null; }
    if (v < xs[0]) { return below; }
    var i = n - 2;
    if (v <= xs[n - 1]) {
      var lo = 0, hi = n - 1;
      while (hi - lo > 1) { var mid = (lo + hi) >> 1; if (xs[mid] <= v) { lo = mid; } else { hi = mid; } }
      i = lo;
    } // past the end (a live job ahead of its clock): the last segment's rate goes on
    return ys[i] + (v - xs[i]) * (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]);
  }
  function stepToTime(s) { return interp(S, T, s, null); }
  function timeToStep(t) { return interp(T, S, t, null); }

  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function offset(d) {
    var m = -d.getTimezoneOffset(), sign = m >= 0 ? "+" : "-";
    m = Math.abs(m);
    return sign + pad(Math.floor(m / 60)) + ":" + pad(m % 60);
  }
  function local(t) { // UNIX seconds -> "YYYY-MM-DD HH:MM:SS.mmm" in the reader's zone (Plotly's date text)
    var d = new Date(t * 1000), ms = String(d.getMilliseconds() + 1000).slice(1);
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
      pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + ms;
  }
  function fromUtc(text) { return text ? Date.parse(String(text).replace(" ", "T") + "Z") / 1000 : null; }
  function fromLocal(text) { return Date.parse(String(text).replace(" ", "T")) / 1000; }

  function usable(tw) { return tw.kind === mode || mapping; }
  function axisLayout(tw) {
    var m = usable(tw) ? mode : tw.kind;
    var zone = offset(new Date());
    if (m === "relative") { return { type: "linear", title: "time since start (" + unitName + ")" }; }
    return { type: m === "step" ? "linear" : "date", title: m === "step" ? "step" : "time (local, UTC" + zone + ")" };
  }
  function toAxis(on, s, t) { // a point's x on the axis shown
    if (on === "step") { return s; }
    if (t === null) { return null; }
    return on === "relative" ? (t - T0) / unit : local(t);
  }

  // x, hover text and template of one trace on the current axis, from its native x.
  function mapped(tw, native, template, name) {
    var on = usable(tw) ? mode : tw.kind, x = [], cd = [];
    for (var i = 0; i < native.length; i++) {
      var v = native[i], s, t;
      if (tw.kind === "step") { s = v; t = stepToTime(v); } else { t = fromUtc(v); s = timeToStep(t); }
      x.push(toAxis(on, s, t));
      var when = t === null ? "" : local(t).slice(0, 19) + " " + offset(new Date(t * 1000));
      var step = s === null ? "" : (tw.kind === "step" ? String(s) : "≈" + Math.round(s));
      cd.push([step, when]);
    }
    var rest = (template || "").replace(/^(step %\{customdata\[0\]\}<br>%\{customdata\[1\]\}|step %\{x\}|%\{x\})/, "");
    if (!template) { rest = "<br>%{y:.4g}<extra>" + name + "</extra>"; }
    return { x: x, customdata: cd, hovertemplate: "step %{customdata[0]}<br>%{customdata[1]}" + rest };
  }

  function prepare(el, fig) {
    var meta = (fig.layout && fig.layout.meta) || {};
    if (meta.x !== "step" && meta.x !== "time") { return; }
    var tw = { kind: meta.x, native: fig.data.map(function (t) { return (t.x || []).slice(); }) };
    el._tw = tw;
    fig.data.forEach(function (t, i) { Object.assign(t, mapped(tw, tw.native[i], t.hovertemplate, t.name)); });
    var ax = axisLayout(tw), xa = fig.layout.xaxis = fig.layout.xaxis || {};
    xa.type = ax.type;
    xa.title = Object.assign({}, xa.title, { text: ax.title });
    Object.assign(xa, { showspikes: true, spikemode: "across", spikethickness: 1, spikedash: "dot" });
    fig.layout.hovermode = "x";
  }

  function charts() {
    return Array.prototype.filter.call(document.querySelectorAll(".chart"), function (gd) {
      return gd._tw && gd.data && usable(gd._tw);
    });
  }

  function restyle(gd) {
    var tw = gd._tw, upd = { x: [], customdata: [], hovertemplate: [] };
    gd.data.forEach(function (t, i) {
      var m = mapped(tw, tw.native[i] || [], t.hovertemplate, t.name);
      upd.x.push(m.x); upd.customdata.push(m.customdata); upd.hovertemplate.push(m.hovertemplate);
    });
    return Plotly.restyle(gd, upd);
  }

  // New native data on traces `idx` (all when left out): map them onto the current axis.
  function update(gd, idx) {
    var tw = gd._tw;
    if (!tw) { return; }
    gd.data.forEach(function (t, i) {
      if (!idx || idx.indexOf(i) >= 0) { tw.native[i] = (t.x || []).slice(); }
    });
    tw.native.length = gd.data.length;
    restyle(gd);
  }

  function sameRange(gd, upd) {
    var xa = gd.layout.xaxis || {};
    if (upd["xaxis.autorange"]) { return xa.autorange === true; }
    return xa.autorange === false && String(xa.range) === String(upd["xaxis.range"]);
  }

  var hovering = false;
  function attach(gd) {
    if (!gd._tw) { return; }
    gd.on("plotly_relayout", function (ev) {
      var upd = null;
      if (ev["xaxis.range[0]"] !== undefined) { upd = { "xaxis.range": [ev["xaxis.range[0]"], ev["xaxis.range[1]"]] }; }
      else if (ev["xaxis.range"]) { upd = { "xaxis.range": ev["xaxis.range"].slice() }; }
      else if (ev["xaxis.autorange"]) { upd = { "xaxis.autorange": true, "yaxis.autorange": true }; }
      if (!upd || !usable(gd._tw)) { return; }
      charts().forEach(function (other) {
        if (other !== gd && !sameRange(other, upd)) { Plotly.relayout(other, upd); }
      });
    });
    gd.on("plotly_hover", function (ev) {
      if (hovering || !ev.xvals || !usable(gd._tw)) { return; }
      hovering = true;
      try {
        charts().forEach(function (other) {
          if (other !== gd) { Plotly.Fx.hover(other, { xval: ev.xvals[0] }, "xy", true); }
        });
      } finally { hovering = false; }
    });
    gd.on("plotly_unhover", function () {
      charts().forEach(function (other) { if (other !== gd) { Plotly.Fx.unhover(other); } });
    });
  }

  // A zoomed window in steps, whatever the axis shows: what a step chart re-fetches.
  function fromAxis(v) { return mode === "relative" ? v * unit + T0 : fromLocal(v); }
  function stepRange(gd, range) {
    if (!range || !gd._tw || !usable(gd._tw) || mode === "step") { return range; }
    var a = timeToStep(fromAxis(range[0])), b = timeToStep(fromAxis(range[1]));
    return a === null && b === null ? null : [a === null ? 0 : a, b === null ? S[S.length - 1] : b];
  }

  function convertRange(range, to) {
    var steps = mode === "step" ? range : [timeToStep(fromAxis(range[0])), timeToStep(fromAxis(range[1]))];
    if (to === "step") { return steps; }
    return steps.map(function (s) { return s === null ? null : toAxis(to, s, stepToTime(s)); });
  }

  function setMode(m) {
    if (m === mode || !mapping) { return; }
    var zoomed = charts().find(function (gd) { return gd.layout.xaxis && gd.layout.xaxis.autorange === false; });
    var range = zoomed ? convertRange(zoomed.layout.xaxis.range, m) : null;
    if (range && (range[0] === null || range[1] === null)) { range = null; }
    mode = m;
    try { window.localStorage.setItem("tpuwatch.xmode", m); } catch (e) { /* storage off */ }
    if (box) { box.dataset.mode = m; }
    Array.prototype.forEach.call(document.querySelectorAll(".chart"), function (gd) {
      if (!gd._tw || !gd.data) { return; }
      var ax = axisLayout(gd._tw);
      restyle(gd).then(function () {
        var upd = { "xaxis.type": ax.type, "xaxis.title.text": ax.title };
        if (range) { upd["xaxis.range"] = range; } else { upd["xaxis.autorange"] = true; }
        return Plotly.relayout(gd, upd);
      }).then(function () { gd.dataset.xmode = m; });
    });
  }

  var ready = Promise.resolve();
  if (box && box.dataset.clockSrc) {
    ready = fetch(box.dataset.clockSrc, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : { clock: [] }; })
      .catch(function () { return { clock: [] }; })
      .then(function (data) { setClock(data.clock || []); });
  }
  ready.then(function () {
    if (!box) { return; }
    box.dataset.mode = mode;
    box.querySelectorAll("input[name=x-mode]").forEach(function (input) {
      input.checked = input.value === mode;
      input.disabled = !mapping;
    });
    box.addEventListener("change", function (ev) { if (ev.target.name === "x-mode") { setMode(ev.target.value); } });
  });
  // A live job's newest step (from the live fragment) extends the clock, so the charts it redraws
  // map its new samples by its own pace, not by extrapolation.
  function extend(step, ts) {
    if (!isFinite(step) || !isFinite(ts) || !S.length || step <= S[S.length - 1] || ts <= T[T.length - 1]) { return; }
    S.push(step); T.push(ts);
    mapping = S.length > 1;
  }
  window.tpuwatchAxis = { prepare: prepare, attach: attach, update: update, stepRange: stepRange, extend: extend,
    mode: function () { return mode; }, ready: ready };
})();

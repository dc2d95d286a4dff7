// Draws every chart of a page. A chart names its figure either inline (data-figure: Plotly JSON,
// the exported post-mortem) or by URL (data-src and data-key: /api/v1/jobs/{id}/charts?group=...,
// fetched once per group), so a page's HTML does not grow with its run. Step charts re-fetch their
// visible window on zoom. Every chart: no cloud "Share" button nor Plotly logo, its toolbar out of
// the tab order, a label for screen readers. window.tpuwatchCharts.draw(el, fig) draws one more.
(function () {
  "use strict";
  var offline = !!document.querySelector("[data-offline='1']");
  var axis = window.tpuwatchAxis; // static/js/xaxis.js on the job page: one linked x axis
  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var CONFIG = { responsive: true, displaylogo: false, showSendToCloud: false, showEditInChartStudio: false,
    showLink: false, modeBarButtonsToRemove: ["sendDataToCloud", "editInChartStudio"] };

  // Text and grid in the page's own colours (light or dark); the backgrounds are transparent.
  function theme() {
    var css = getComputedStyle(document.body);
    var line = css.getPropertyValue("--line").trim() || "#dde1e4";
    return { "font.color": css.color, "xaxis.gridcolor": line, "yaxis.gridcolor": line,
      "xaxis.zerolinecolor": line, "yaxis.zerolinecolor": line };
  }
  function themed(layout) {
    var t = theme();
    layout.font = Object.assign({}, layout.font, { color: t["font.color"] });
    ["xaxis", "yaxis"].forEach(function (a) {
      if (layout[a]) { layout[a].gridcolor = t[a + ".gridcolor"]; layout[a].zerolinecolor = t[a + ".zerolinecolor"]; }
    });
    return layout;
  }

  // A chart is one stop for the keyboard at most: its toolbar's links leave the tab order.
  function quiet(gd) {
    gd.querySelectorAll("a, button, input, [tabindex]").forEach(function (el) { el.setAttribute("tabindex", "-1"); });
  }
  function label(gd, fig) {
    if (gd.getAttribute("aria-label")) { return; }
    var t = fig.layout && fig.layout.title;
    gd.setAttribute("role", "img");
    gd.setAttribute("aria-label", (t && (t.text || t)) || "chart");
  }

  function pending(gd) { gd.dataset.loading = String(Number(gd.dataset.loading || 0) + 1); }
  function done(gd) { gd.dataset.loading = String(Math.max(0, Number(gd.dataset.loading || 0) - 1)); }

  function refetch(gd, meta, range) {
    var params = new URLSearchParams({ points: "2000" });
    if (range) {
      params.set("start", String(Math.floor(range[0])));
      params.set("end", String(Math.ceil(range[1])));
    }
    pending(gd);
    fetch("/api/v1/jobs/" + meta.job_id + "/steps?" + params, { credentials: "same-origin" })
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
      .then(function (data) {
        var series = data.series.filter(function (s) { return s.metric === meta.metric; });
        var update = { x: [], y: [] };
        var idx = [];
        series.forEach(function (s) {
          var i = gd.data.findIndex(function (t) { return t.name === "host " + s.host; });
          if (i >= 0) { update.x.push(s.x); update.y.push(s.y); idx.push(i); }
        });
        if (idx.length) {
          Plotly.restyle(gd, update, idx);
          if (axis) { axis.update(gd, idx); }
        }
        gd.dataset.source = data.source + ":" + data.bucket_steps;
      })
      .catch(function (err) { gd.dataset.error = String(err); })
      .then(function () { done(gd); });
  }

  function draw(el, fig) {
    if (axis && !offline) { axis.prepare(el, fig); }
    themed(fig.layout);
    label(el, fig);
    return Plotly.newPlot(el, fig.data, fig.layout, CONFIG).then(function (gd) {
      var meta = (fig.layout && fig.layout.meta) || {};
      if (axis && !offline) { axis.attach(gd); }
      quiet(gd);
      gd.on("plotly_afterplot", function () { quiet(gd); });
      gd.dataset.drawn = "1";
      if (offline || !meta.zoom) { return gd; }
      var timer = null;
      gd.on("plotly_relayout", function (ev) {
        var range = null;
        if (ev["xaxis.range[0]"] !== undefined) {
          range = [ev["xaxis.range[0]"], ev["xaxis.range[1]"]];
        } else if (ev["xaxis.range"]) {
          range = ev["xaxis.range"];
        } else if (!ev["xaxis.autorange"]) {
          return; // not a change of the step window (legend, y-axis only, resize)
        }
        if (axis) { range = axis.stepRange(gd, range); }
        clearTimeout(timer);
        timer = setTimeout(function () { refetch(gd, meta, range); }, 150);
      });
      return gd;
    });
  }

  var groups = {};
  function group(src) {
    if (!groups[src]) {
      groups[src] = fetch(src, { credentials: "same-origin" }).then(function (r) {
        if (!r.ok) { throw new Error("HTTP " + r.status); }
        return r.json();
      });
    }
    return groups[src];
  }

  function fetched(el) {
    pending(el);
    return group(el.dataset.src).then(function (figs) {
      var fig = figs[el.dataset.key];
      if (!fig) { // nothing to draw (no HBM samples, no MFU): the chart's place goes
        el.hidden = true;
        el.dataset.empty = "1";
        document.dispatchEvent(new CustomEvent("tpuwatch:empty-chart", { detail: el }));
        return null;
      }
      return draw(el, fig);
    }).catch(function (err) { el.dataset.error = String(err); })
      .then(function () { done(el); });
  }

  var ready = axis && axis.ready ? axis.ready : Promise.resolve();
  ready.then(function () {
    document.querySelectorAll("[data-figure]").forEach(function (el) { draw(el, JSON.parse(el.dataset.figure)); });
    document.querySelectorAll(".chart[data-src]").forEach(fetched);
  });
  document.addEventListener("tpuwatch:empty-chart", function () {
    var note = document.getElementById("no-device");
    var left = document.querySelectorAll("#step-charts .chart[data-optional]:not([hidden])").length;
    if (note && !left) { note.hidden = false; }
  });
  if (dark && dark.addEventListener) {
    dark.addEventListener("change", function () {
      document.querySelectorAll("[data-drawn='1']").forEach(function (gd) { Plotly.relayout(gd, theme()); });
    });
  }
  window.tpuwatchCharts = { draw: draw, ready: ready };
})();

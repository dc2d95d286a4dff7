// Draws every element with a data-figure attribute (Plotly figure JSON from app/jobs/charts.py).
// Step charts re-fetch their visible window on zoom, so a million-step run shows raw steps when
// zoomed in far enough; the exported post-mortem (data-offline="1") has no server to ask.
(function () {
  "use strict";
  var offline = !!document.querySelector("[data-offline='1']");
  var axis = window.tpuwatchAxis; // static/js/xaxis.js on the job page: one linked x axis
  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

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

  function pending(gd) {
    gd.dataset.loading = String(Number(gd.dataset.loading || 0) + 1);
  }
  function done(gd) {
    gd.dataset.loading = String(Math.max(0, Number(gd.dataset.loading || 0) - 1));
  }

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

  function draw(el) {
    var fig = JSON.parse(el.dataset.figure);
    if (axis && !offline) { axis.prepare(el, fig); }
    themed(fig.layout);
    Plotly.newPlot(el, fig.data, fig.layout, { responsive: true, displaylogo: false }).then(function (gd) {
      var meta = (fig.layout && fig.layout.meta) || {};
      if (axis && !offline) { axis.attach(gd); }
      gd.dataset.drawn = "1";
      if (offline || !meta.zoom) { return; }
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
    });
  }

  document.querySelectorAll("[data-figure]").forEach(draw);
  if (dark && dark.addEventListener) {
    dark.addEventListener("change", function () {
      document.querySelectorAll("[data-drawn='1']").forEach(function (gd) { Plotly.relayout(gd, theme()); });
    });
  }
})();

// The training charts (templates/jobs/_training.html): fetched as JSON, drawn loss first, each line
// twice: its raw values faint behind the smoothed line. Smoothing is TensorBoard's: an exponential
// moving average, debiased at the start so the first points are not pulled toward zero. Each chart
// has its own log/linear switch (a loss spans decades; a learning rate does not).
(function () {
  "use strict";
  var section = document.getElementById("training");
  var slider = document.getElementById("training-smoothing");
  var box = document.getElementById("training-charts");
  if (!section || !slider || !box || !window.tpuwatchCharts) { return; }
  var output = document.getElementById("training-smoothing-value");

  function charts() {
    return Array.prototype.filter.call(box.querySelectorAll(".training-chart"), function (gd) {
      return gd.data && gd.layout;
    });
  }

  function smooth(ys, weight) {
    var out = [], last = 0, n = 0;
    for (var i = 0; i < ys.length; i++) {
      var v = ys[i];
      if (v === null || !isFinite(v)) { out.push(v); continue; }
      last = last * weight + (1 - weight) * v;
      n += 1;
      out.push(weight > 0 ? last / (1 - Math.pow(weight, n)) : v);
    }
    return out;
  }

  function smoothChart(gd, weight) {
    var ys = [], idx = [];
    gd.data.forEach(function (t, i) {
      if (t.meta && t.meta.raw === false) {
        var raw = gd.data[i - 1] && gd.data[i - 1].meta && gd.data[i - 1].meta.raw ? gd.data[i - 1].y : t.y;
        ys.push(smooth(raw || [], weight)); idx.push(i);
      }
    });
    gd.dataset.smoothing = String(weight);
    return idx.length ? Plotly.restyle(gd, { y: ys }, idx) : Promise.resolve();
  }

  function applySmoothing() {
    var weight = Number(slider.value);
    if (output) { output.textContent = weight.toFixed(2); }
    charts().forEach(function (gd) { smoothChart(gd, weight); });
  }

  function logSwitch(gd, key) {
    var label = document.createElement("label");
    label.className = "chart-log no-print";
    var input = document.createElement("input");
    input.type = "checkbox";
    input.dataset.key = key;
    input.addEventListener("change", function () {
      var type = input.checked ? "log" : "linear";
      // Log ticks labelled in full ("0.02, 0.05"), not a decade's bare minor digits ("2, 5").
      Plotly.relayout(gd, { "yaxis.type": type, "yaxis.autorange": true, "yaxis.tickformat": type === "log" ? ".3~g" : "" });
      gd.dataset.scale = type;
    });
    label.appendChild(input);
    label.appendChild(document.createTextNode(" log y: " + key));
    return label;
  }

  function build(list) {
    var sections = {};
    list.forEach(function (c, i) {
      var holder = sections[c.section];
      if (!holder) {
        if (c.section) {
          var h = document.createElement("h3");
          h.className = "training-section";
          h.textContent = c.section;
          box.appendChild(h);
        }
        holder = sections[c.section] = document.createElement("div");
        holder.className = "charts";
        box.appendChild(holder);
      }
      var cell = document.createElement("div");
      cell.className = "chart-cell";
      var gd = document.createElement("div");
      gd.className = "chart training-chart";
      gd.id = "training-" + i + "-" + c.key.replace(/[^A-Za-z0-9_-]/g, "-");
      gd.dataset.key = c.key;
      gd.setAttribute("aria-label", c.key + " by " + ((c.figure.layout.meta || {}).x || "step") + ", raw and smoothed");
      cell.appendChild(logSwitch(gd, c.key));
      cell.appendChild(gd);
      holder.appendChild(cell);
      window.tpuwatchCharts.draw(gd, c.figure).then(function () { return smoothChart(gd, Number(slider.value)); });
    });
  }

  window.tpuwatchCharts.ready.then(function () {
    return fetch(section.dataset.src, { credentials: "same-origin" });
  }).then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
    .then(function (data) {
      var list = data.charts || [];
      if (!list.length) { document.getElementById("training-empty").hidden = false; }
      build(list);
      section.dataset.charts = String(list.length);
    })
    .catch(function (err) { section.dataset.error = String(err); });

  slider.addEventListener("input", applySmoothing);
})();

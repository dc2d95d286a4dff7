// Smoothing and log/linear y for the training-metric charts (templates/jobs/_training.html).
// Smoothing is TensorBoard's: an exponential moving average, debiased at the start so the first
// points are not pulled toward zero. The raw values stay on each trace (kept on first use).
(function () {
  "use strict";
  var slider = document.getElementById("training-smoothing");
  var logBox = document.getElementById("training-log");
  if (!slider || !logBox) { return; }
  var output = document.getElementById("training-smoothing-value");

  function charts() {
    return Array.prototype.filter.call(document.querySelectorAll(".training-chart"), function (gd) {
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

  function applySmoothing() {
    var weight = Number(slider.value);
    if (output) { output.textContent = weight.toFixed(2); }
    charts().forEach(function (gd) {
      if (!gd._rawY) { gd._rawY = gd.data.map(function (t) { return (t.y || []).slice(); }); }
      var ys = gd._rawY.map(function (y) { return smooth(y, weight); });
      Plotly.restyle(gd, { y: ys }, ys.map(function (_, i) { return i; }));
      gd.dataset.smoothing = String(weight);
    });
  }

  function applyScale() {
    var type = logBox.checked ? "log" : "linear";
    charts().forEach(function (gd) {
      // Log ticks labelled in full ("0.02, 0.05"), not a decade's bare minor digits ("2, 5").
      Plotly.relayout(gd, { "yaxis.type": type, "yaxis.autorange": true, "yaxis.tickformat": type === "log" ? ".3~g" : "" });
      gd.dataset.scale = type;
    });
  }

  slider.addEventListener("input", applySmoothing);
  logBox.addEventListener("change", applyScale);
})();

// Draw every element with a data-figure attribute (Plotly figure JSON built by app/jobs/charts.py).
document.querySelectorAll("[data-figure]").forEach(function (el) {
  var fig = JSON.parse(el.dataset.figure);
  Plotly.newPlot(el, fig.data, fig.layout, { responsive: true, displaylogo: false });
});

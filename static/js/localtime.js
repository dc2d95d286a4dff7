// Times read in the reader's own time zone: every <time data-ts="UNIX seconds"> shows local time
// with its UTC offset, and the UTC time (what exports and the API use) on hover. Fragments that
// pages swap in later (live refresh) are converted as they arrive.
(function () {
  "use strict";
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function offset(d) {
    var m = -d.getTimezoneOffset(), sign = m >= 0 ? "+" : "-";
    m = Math.abs(m);
    return sign + pad(Math.floor(m / 60)) + ":" + pad(m % 60);
  }
  function local(d) {
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
      pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  }
  function convert(root) {
    (root.querySelectorAll ? root.querySelectorAll("time[data-ts]:not([data-local])") : []).forEach(function (el) {
      var ts = Number(el.dataset.ts);
      if (!isFinite(ts) || el.dataset.ts === "") { return; }
      var d = new Date(ts * 1000);
      if (isNaN(d.getTime())) { return; }
      el.title = d.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
      el.setAttribute("datetime", d.toISOString());
      el.textContent = local(d) + " " + offset(d);
      el.dataset.local = "1";
    });
  }
  function start() {
    convert(document);
    new MutationObserver(function (records) {
      records.forEach(function (r) { r.addedNodes.forEach(function (n) { if (n.nodeType === 1) { convert(n); if (n.matches && n.matches("time[data-ts]")) { convert(n.parentNode); } } }); });
    }).observe(document.body, { childList: true, subtree: true });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();

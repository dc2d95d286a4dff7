// The overview refreshes its table in place: it fetches the same fragment the page includes
// (/fragments/jobs with the page's filters) every few seconds, and pauses while the tab is hidden.
(function () {
  "use strict";
  var box = document.getElementById("jobs-live");
  var label = document.getElementById("live-status");
  if (!box) { return; }
  var every = Number(box.dataset.interval || 5000);
  var busy = false;

  function refresh() {
    if (busy || document.hidden) { return; }
    busy = true;
    fetch(box.dataset.refresh + window.location.search, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) {
        if (r.redirected || r.status === 401) { window.location.reload(); throw new Error("logged out"); }
        if (!r.ok) { throw new Error("HTTP " + r.status); }
        return r.text();
      })
      .then(function (html) {
        box.innerHTML = html; // server-rendered, escaped by the same template as the first load
        if (label) { label.textContent = "live · updated " + new Date().toLocaleTimeString(); label.className = "live"; }
      })
      .catch(function (err) {
        if (label) { label.textContent = "refresh failed (" + err.message + "), retrying"; label.className = "live stale"; }
      })
      .then(function () { busy = false; });
  }

  setInterval(refresh, every);
  document.addEventListener("visibilitychange", refresh);
})();

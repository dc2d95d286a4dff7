// The overview refreshes its table in place: it fetches the same fragment the page includes
// (/fragments/jobs with the page's filters) every few seconds, and pauses while the tab is hidden.
// A refresh keeps what the reader was doing: the element with keyboard focus keeps it, and the
// runs ticked for comparing stay ticked.
(function () {
  "use strict";
  var box = document.getElementById("jobs-live");
  var label = document.getElementById("live-status");
  if (!box) { return; }
  var every = Number(box.dataset.interval || 5000);
  var busy = false;

  // What identifies an element across a refresh: its id, else its link or its checkbox value.
  function keyOf(el) {
    if (!el || !box.contains(el)) { return null; }
    if (el.id) { return "#" + CSS.escape(el.id); }
    if (el.matches("a[href]")) { return "a[href=\"" + CSS.escape(el.getAttribute("href")) + "\"]"; }
    if (el.matches("input[name][value]")) {
      return "input[name=\"" + CSS.escape(el.name) + "\"][value=\"" + CSS.escape(el.value) + "\"]";
    }
    return null;
  }

  function swap(html) {
    var focus = keyOf(document.activeElement);
    var ticked = Array.prototype.map.call(box.querySelectorAll("input[name=jobs]:checked"), function (i) { return i.value; });
    box.innerHTML = html; // server-rendered, escaped by the same template as the first load
    ticked.forEach(function (v) {
      var input = box.querySelector("input[name=jobs][value=\"" + CSS.escape(v) + "\"]");
      if (input) { input.checked = true; }
    });
    var again = focus ? box.querySelector(focus) : null;
    if (again) { again.focus({ preventScroll: true }); }
  }

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
        swap(html);
        box.dataset.refreshed = String(Number(box.dataset.refreshed || 0) + 1);
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

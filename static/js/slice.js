// The slice's hosts table pages and sorts on the server: a click fetches the same fragment the
// page included (/jobs/{id}/fragments/hosts?...) and swaps it in place.
(function () {
  "use strict";
  document.addEventListener("click", function (ev) {
    var link = ev.target.closest ? ev.target.closest("a[data-hosts]") : null;
    if (!link) { return; }
    var box = document.getElementById("slice-hosts");
    if (!box) { return; }
    ev.preventDefault();
    box.dataset.loading = "1";
    fetch(link.getAttribute("href"), { credentials: "same-origin" })
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.text(); })
      .then(function (html) {
        var holder = document.createElement("div");
        holder.innerHTML = html;
        var fresh = holder.querySelector("#slice-hosts");
        if (fresh) { box.replaceWith(fresh); }
      })
      .catch(function (err) { box.dataset.error = String(err); box.dataset.loading = ""; });
  });
})();

// The job page stays current without a reload: it polls two small fragments the page itself
// includes (the live facts and the log lines after the last one shown) and redraws the step
// charts when new steps came. Filters on the log reload its lines; a card's link to its line
// opens the log there (follow off). Pauses while the tab is hidden.
(function () {
  "use strict";
  var live = document.getElementById("job-live");
  var pre = document.getElementById("job-log");
  if (!live || !pre) { return; }
  var jobId = pre.dataset.jobId;
  var follow = document.getElementById("log-follow");
  // On load the log shows what matters: the line a card links to (a stopped job's error line, or
  // ?log_line=), scrolled to the middle of the log box (the page itself stays where it is: the
  // card above the fold); else its newest lines, following them.
  var hit = pre.querySelector(".ln.hit");
  if (hit) {
    follow.checked = false;
    pre.scrollTop = Math.max(0, hit.offsetTop - (pre.clientHeight - hit.offsetHeight) / 2);
  } else if (follow.checked) {
    pre.scrollTop = pre.scrollHeight;
  }
  pre.dataset.ready = "1";
  var busy = { live: false, log: false };

  function get(url) {
    return fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (r) {
      if (r.redirected || r.status === 401) { window.location.reload(); throw new Error("logged out"); }
      if (!r.ok) { throw new Error("HTTP " + r.status); }
      return r.text();
    });
  }

  function filters() {
    var q = new URLSearchParams();
    ["host", "level", "q"].forEach(function (name) {
      var el = document.getElementById("log-" + name);
      if (el && el.value) { q.set(name, el.value); }
    });
    return q;
  }

  function lastId() {
    var chunks = pre.querySelectorAll(".log-chunk[data-last-id]");
    for (var i = chunks.length - 1; i >= 0; i--) {
      if (chunks[i].dataset.lastId) { return chunks[i].dataset.lastId; }
    }
    return "";
  }

  function loadLog(reset) {
    if (busy.log || document.hidden) { return; }
    busy.log = true;
    var q = filters();
    var after = reset ? "" : lastId();
    if (after) { q.set("after", after); }
    get(pre.dataset.src + "?" + q).then(function (html) {
      var atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
      if (reset) { pre.innerHTML = html; } else { pre.insertAdjacentHTML("beforeend", html); }
      pre.dataset.lines = String(pre.querySelectorAll(".ln").length);
      if (follow.checked && (atBottom || reset)) { pre.scrollTop = pre.scrollHeight; }
    }).catch(function (err) { pre.dataset.error = String(err); })
      .then(function () { busy.log = false; });
  }

  function redrawSteps() {
    ["step_time", "input_wait"].forEach(function (metric) {
      var gd = document.getElementById("chart-" + metric);
      if (!gd || !gd.data || (gd.layout && gd.layout.xaxis && gd.layout.xaxis.autorange === false)) { return; }
      fetch("/api/v1/jobs/" + jobId + "/steps?points=2000", { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (!data) { return; }
          var series = data.series.filter(function (s) { return s.metric === metric; });
          var traces = series.map(function (s) {
            var old = gd.data.find(function (t) { return t.name === "host " + s.host; }) || {};
            return Object.assign({}, old, { type: "scatter", mode: "lines", x: s.x, y: s.y, name: "host " + s.host });
          });
          Plotly.react(gd, traces, gd.layout).then(function () {
            if (window.tpuwatchAxis) { window.tpuwatchAxis.update(gd); } // onto the page's x axis
            gd.dataset.steps = String(data.total_steps);
          });
        });
    });
  }

  function loadLive() {
    if (busy.live || document.hidden) { return; }
    busy.live = true;
    var before = document.getElementById("live-steps");
    var had = before ? before.dataset.steps : "";
    get(live.dataset.src).then(function (html) {
      live.innerHTML = html; // server-rendered and escaped by the same template as the first load
      var now = document.getElementById("live-steps");
      if (now && window.tpuwatchAxis && now.dataset.lastStep && now.dataset.lastAt) {
        window.tpuwatchAxis.extend(Number(now.dataset.lastStep), Number(now.dataset.lastAt));
      }
      if (now && now.dataset.steps !== had) { redrawSteps(); }
      live.dataset.updated = String(Date.now());
    }).catch(function (err) { live.dataset.error = String(err); })
      .then(function () { busy.live = false; });
  }

  document.getElementById("log-filters").addEventListener("submit", function (ev) { ev.preventDefault(); loadLog(true); });
  ["log-host", "log-level"].forEach(function (id) {
    document.getElementById(id).addEventListener("change", function () { loadLog(true); });
  });
  var timer = null;
  document.getElementById("log-q").addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { loadLog(true); }, 250);
  });
  follow.addEventListener("change", function () { if (follow.checked) { loadLog(true); } });
  setInterval(function () { if (follow.checked) { loadLog(false); } }, 2000);
  setInterval(loadLive, 3000);
  document.addEventListener("visibilitychange", function () { loadLive(); });
})();

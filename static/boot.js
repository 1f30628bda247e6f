// Before Python runs: loading progress, and a readable banner if it never does.
(function () {
  "use strict";
  var started = Date.now();
  function banner(message) {
    var box = document.getElementById("error-banner");
    if (!box) {  // (before the body is read: shown once it is)
      document.addEventListener("DOMContentLoaded", function () { banner(message); });
      return;
    }
    document.getElementById("error-text").textContent = message;
    box.hidden = false;
    var loading = document.getElementById("loading");
    if (loading && !(window.bendscope && window.bendscope.ready)) loading.hidden = true;
  }
  window.bendscopeBootError = banner;
  var steps = 0;
  window.addEventListener("py:progress", function (event) {
    steps += 1;
    var step = document.getElementById("loading-step");
    var bar = document.getElementById("loading-progress");
    if (step && event.detail) step.textContent = String(event.detail);
    if (bar) bar.style.width = Math.min(95, steps * 12) + "%";
  });
  window.addEventListener("error", function (event) {
    if (!(window.bendscope && window.bendscope.ready)) banner(event.message || "A script failed to load.");
  });
  window.addEventListener("unhandledrejection", function (event) {
    if (!(window.bendscope && window.bendscope.ready)) banner(String(event.reason && event.reason.message || event.reason));
  });
  // A slow start says so; if Python does start after all (a busy machine), main.py calls
  // bendscopeStarted as the page turns ready and the note goes (a failure's banner stays).
  var slowAfter = typeof window.bendscopeSlowStartMs === "number" ? window.bendscopeSlowStartMs : 60000;
  var slow = null;
  setTimeout(function () {
    if (window.bendscope && window.bendscope.ready) return;
    slow = "Python did not start within " + Math.round(slowAfter / 1000) + " s (" +
      Math.round((Date.now() - started) / 1000) + " s). Reload to try again.";
    banner(slow);
  }, slowAfter);
  window.bendscopeStarted = function () {
    var text = document.getElementById("error-text");
    if (slow !== null && text && text.textContent === slow) document.getElementById("error-banner").hidden = true;
  };
  document.addEventListener("DOMContentLoaded", function () {
    var close = document.getElementById("error-close");
    if (close) close.addEventListener("click", function () { document.getElementById("error-banner").hidden = true; });
  });
})();

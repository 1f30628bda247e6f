// Before Python runs: loading progress, and a readable banner if it never does.
(function () {
  "use strict";
  var started = Date.now();
  function banner(message) {
    var box = document.getElementById("error-banner");
    if (!box) return;
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
  setTimeout(function () {
    if (!(window.bendscope && window.bendscope.ready)) {
      var slow = "Python did not start within 60 s (" + Math.round((Date.now() - started) / 1000) + " s). Reload to try again.";
      banner(slow);
      // a slow start is not a failed one: once Python is up, the banner (which covers the
      // toolbar) goes — unless another error has replaced it meanwhile
      var watch = setInterval(function () {
        if (!(window.bendscope && window.bendscope.ready)) return;
        clearInterval(watch);
        if (document.getElementById("error-text").textContent === slow) document.getElementById("error-banner").hidden = true;
      }, 500);
    }
  }, 60000);
  document.addEventListener("DOMContentLoaded", function () {
    var close = document.getElementById("error-close");
    if (close) close.addEventListener("click", function () { document.getElementById("error-banner").hidden = true; });
  });
})();

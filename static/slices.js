// When the page's background slices run (Python's: a document coming in, κ, the loop and cut
// searches; py/bendscope/app/app.py ``_pump``): right after a frame has been drawn, and for no
// longer than what is left before the next frame begins, so that a slice never holds a frame
// back. A slice asks ``left()`` how long it may run; with too little left it waits for the next
// frame (``afterFrame``). Frames are not asked for otherwise: a page at rest draws none.
(function (root) {
  "use strict";
  var FRAME_MS = 1000 / 60;
  var MARGIN_MS = 2;  // what the frame's own start may need (input, timers due) before its callbacks
  var STALE_MS = 3 * FRAME_MS;  // no frame for this long: frames are not being drawn (a hidden page)
  var frameAt = -Infinity, waiting = [], asked = false, queue = [];
  var channel = new MessageChannel();
  // (a message task: no 4 ms clamp as for chained timeouts)
  channel.port1.onmessage = function () { var fn = queue.shift(); if (fn) fn(); };
  function post(fn) { queue.push(fn); channel.port2.postMessage(0); }
  function frame(ts) {
    asked = false;
    frameAt = Math.max(frameAt, ts);
    var due = waiting;
    waiting = [];
    // (posted from the frame's callbacks: each runs once the frame is drawn, in a task of its own)
    for (var i = 0; i < due.length; i++) post(due[i]);
  }
  root.bendscopeSlices = {
    // a frame's callback began at ``ts`` (its requestAnimationFrame time): the page's own frames say so
    frame: function (ts) { frameAt = Math.max(frameAt, ts); },
    // ms a slice beginning now may run before the next frame is due (Infinity: no frames are drawn)
    left: function () {
      var now = performance.now();
      if (now - frameAt > STALE_MS) return Infinity;
      return frameAt + FRAME_MS - MARGIN_MS - now;
    },
    // run ``fn`` in a task of its own soon (a slice that may go on now)
    soon: post,
    // run ``fn`` in a task of its own right after the next frame is drawn, or within ``STALE_MS`` if
    // no frame comes (a hidden page draws none)
    afterFrame: function (fn) {
      var ran = false, once = function () { if (!ran) { ran = true; fn(); } };
      waiting.push(once);
      setTimeout(once, STALE_MS);
      if (!asked) { asked = true; requestAnimationFrame(frame); }
    },
  };
})(typeof globalThis !== "undefined" ? globalThis : this);

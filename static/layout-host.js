// The page's side of the layout worker (static/layout-worker.js): sends the messages Python
// makes, keeps the latest frame of each plane layout until Python takes it before a paint.
// Frames arrive as tasks of their own between the page's frames; nothing else runs here.
(function (root) {
  "use strict";
  var base = document.currentScript ? document.currentScript.src : root.location.href;
  var worker = null, latest = {}, received = 0, failure = null, arranging = {}, jobs = 0, patches = null, resend = {};
  function start() {
    if (worker) return worker;
    worker = new Worker(new URL("layout-worker.js", base));
    worker.onmessage = function (event) {
      var m = event.data;
      if (m.type === "frame") { latest[m.sim] = m; received++; patches = m.patches; }
      else if (m.type === "arranged") {
        var wait = arranging[m.id];
        delete arranging[m.id];
        if (wait) { if (m.error) wait.reject(new Error(m.error)); else wait.resolve(m); }
      }
      else if (m.type === "resend") resend[m.sim] = true;
      else if (m.type === "error") { failure = m.message; console.warn("Bendscope layout worker: " + m.message); }
    };
    worker.onerror = function (event) {
      failure = event.message || "the layout worker failed";
      console.warn("Bendscope layout worker: " + failure);
      for (var id in arranging) arranging[id].reject(new Error(failure));
      arranging = {};
    };
    return worker;
  }
  root.bendscopeLayoutHost = {
    send: function (message, transfer) {
      if (message.type === "stop" || message.type === "graph" || message.type === "grow" || message.type === "drop") delete latest[message.sim];
      start().postMessage(message, transfer || []);
    },
    // the latest frame for ``sim`` (null if none came since the last call)
    take: function (sim) {
      var frame = latest[sim];
      if (frame === undefined) return null;
      delete latest[sim];
      return frame;
    },
    // frames received, the worker's failure, its count of states given as patches (checked
    // against the whole state and mismatched, with the check on: static/layout.js)
    // whether the worker asked for ``sim``'s whole state (a patch came over a frame it no
    // longer keeps); asked once
    // where a frame's positions (x, y per card) differ from the frame applied before, for
    // Python to write only those cards: [i, x, y, …] of ``next`` for each card whose place
    // changed, and for each card of ``also`` (indices: cards Python held or moved meanwhile,
    // whatever the frames say). O(n)
    changed: function (prev, next, also) {
      var out = [], n = next.length >> 1, i, k, mark = new Uint8Array(n);
      for (k = 0; k < also.length; k++) if (also[k] < n) mark[also[k]] = 1;
      for (i = 0; i < n; i++) {
        k = 2 * i;
        if (mark[i] || prev[k] !== next[k] || prev[k + 1] !== next[k + 1]) out.push(i, next[k], next[k + 1]);
      }
      return new Float64Array(out);
    },
    resend: function (sim) { var asked = !!resend[sim]; delete resend[sim]; return asked; },
    stats: function () { return { received: received, failure: failure, patches: patches }; },
    // a promise of {xy: Float64Array of card centres, ms} for an Arrange job (bend/layout/arrange.py)
    arrange: function (job) {
      var id = ++jobs;
      return new Promise(function (resolve, reject) {
        arranging[id] = { resolve: resolve, reject: reject };
        start().postMessage({ type: "arrange", id: id, job: job });
      });
    },
  };
})(typeof globalThis !== "undefined" ? globalThis : this);

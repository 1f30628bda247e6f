// The layout worker: the kernel of static/layout.js on d3-force, stepping as fast as it can off
// the page's main thread. Only a shell: the protocol is bendscopeLayout.runner (static/layout.js).
"use strict";
importScripts(
  "./vendor/d3/d3-dispatch.min.js",
  "./vendor/d3/d3-quadtree.min.js",
  "./vendor/d3/d3-timer.min.js",
  "./vendor/d3/d3-force.min.js",
  "./layout.js"
);
(function () {
  // a task of its own with no 4 ms clamp (setTimeout's nesting clamp would idle the worker)
  var channel = new MessageChannel(), queued = null;
  channel.port1.onmessage = function () { var fn = queued; queued = null; if (fn) fn(); };
  function schedule(fn) { queued = fn; channel.port2.postMessage(0); }
  var runner = self.bendscopeLayout.runner(function (message, transfer) { self.postMessage(message, transfer); }, schedule);
  // Arrange (static/arrange.js on dagre), loaded the first time a plane is arranged. While it
  // runs the layout waits (an arranged plane is pinned: its layout is stopped anyway).
  function arrange(m) {
    try {
      if (!self.bendscopeArrange) importScripts("./vendor/dagre/dagre.min.js", "./arrange.js");
      var started = Date.now(), xy = self.bendscopeArrange.run(m.job, self.dagre);
      self.postMessage({ type: "arranged", id: m.id, xy: xy, ms: Date.now() - started }, [xy.buffer]);
    } catch (error) {
      self.postMessage({ type: "arranged", id: m.id, error: String(error && error.message || error) });
    }
  }
  self.onmessage = function (event) {
    try {
      if (event.data.type === "arrange") arrange(event.data);
      else runner.handle(event.data);
    } catch (error) {
      self.postMessage({ type: "error", message: String(error && error.stack || error) });
    }
  };
})();

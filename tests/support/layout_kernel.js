// Runs the page's layout kernel (static/layout.js on the vendored d3 files) in node, the way
// py/bendscope/app/d3layout.py drives it: reads one JSON job on stdin, prints the result on stdout.
//
// job: {scripts: [paths loaded in order as the page's <script> tags],
//       seed, params, state, pairs, rest, k, runs: [{maxTicks, budgetMs}]}
// Each run starts from the previous run's positions and alpha, as the page's slices do.
// result: {runs: [[alpha, ticks, settled], ...], state: [x, y, vx, vy per node]}
//
// With ``worker: true`` the job goes through the layout worker's driver instead
// (bendscopeLayout.runner, as static/layout-worker.js runs it): a graph message, a run
// message, then the worker's slices until it posts a settled frame.
// result: {frames: [[alpha, ticks, settled, overlaps], ...], xy: [x, y per node]}
"use strict";
const fs = require("fs");
const vm = require("vm");

const job = JSON.parse(fs.readFileSync(0, "utf8"));
for (const path of job.scripts) vm.runInThisContext(fs.readFileSync(path, "utf8"), { filename: path });
const L = globalThis.bendscopeLayout;
const n = job.state.length / 7;
if (job.worker) {
  const queue = [], frames = [];
  let last = null;
  const runner = L.runner((m) => { frames.push([m.alpha, m.ticks, m.settled, m.overlaps]); last = m; }, (fn) => queue.push(fn));
  runner.handle({ type: "graph", sim: 1, gen: 1, epoch: 1, seed: job.seed, params: job.params,
    state: Float64Array.from(job.state), pairs: Int32Array.from(job.pairs), rest: Float64Array.from(job.rest),
    k: Float64Array.from(job.k) });
  runner.handle({ type: "run", sim: 1, epoch: 1, alpha: job.alpha || 1.0, state: null });
  while (queue.length) queue.shift()();
  process.stdout.write(JSON.stringify({ frames: frames, xy: Array.from(last.xy) }));
} else {
const state = Float64Array.from(job.state);
const h = L.create(job.seed, job.params);
L.setGraph(h, state, Int32Array.from(job.pairs), Float64Array.from(job.rest), Float64Array.from(job.k));
let alpha = job.alpha || 1.0;
const runs = [];
let out = null;
for (const run of job.runs) {
  out = L.run(h, state, alpha, 0.0, run.maxTicks, run.budgetMs);
  alpha = out[0];
  runs.push([out[0], out[1], out[2]]);
  for (let i = 0; i < n; i++) state.set(out.subarray(3 + 4 * i, 7 + 4 * i), 7 * i);
  if (out[2]) break;  // cooled and separated: at rest
}
process.stdout.write(JSON.stringify({ runs: runs, state: Array.from(out ? out.subarray(3) : []) }));
}

// Drives the layout worker's runner (static/layout.js) in node the way the page does while an
// agent writes: reads one JSON job on stdin — {scripts, seed, params, state, pairs, rest, k,
// steps} — and keeps the state the page holds (its positions are those of the last frame it
// took). Steps: {pump: slices} (the worker runs; the page takes its last frame),
// {grow: {state, pairs, rest}} (cards appended, their state as the page has it), {patch:
// {changes: [[index, x, y, vx, vy, hw, hh, held], …], omit}} (the page changes those cards and
// sends them as a patch over the frame it took, the whole state it holds as the check; with
// ``omit`` the first change is left out of the patch). Prints the runner's stats and the
// errors it posted.
"use strict";
const fs = require("fs");
const vm = require("vm");

const job = JSON.parse(fs.readFileSync(0, "utf8"));
for (const path of job.scripts) vm.runInThisContext(fs.readFileSync(path, "utf8"), { filename: path });
const L = globalThis.bendscopeLayout;
const queue = [], errors = [];
let last = null, taken = -1, epoch = 1, gen = 1;
const runner = L.runner((m) => {
  if (m.type === "frame") { if (m.epoch === epoch && m.gen === gen) last = m; } else errors.push(m.message);
}, (fn) => queue.push(fn));
let page = Float64Array.from(job.state);  // the state the page holds
runner.handle({ type: "graph", sim: 1, gen: gen, epoch: epoch, seed: job.seed, params: job.params, state: Float64Array.from(page),
  pairs: Int32Array.from(job.pairs), rest: Float64Array.from(job.rest), k: Float64Array.from(job.k) });
runner.handle({ type: "run", sim: 1, epoch: epoch, alpha: 1.0, state: null });
for (const step of job.steps) {
  if (step.pump !== undefined) {
    for (let i = 0; i < step.pump && queue.length; i++) queue.shift()();
    if (last) {  // the page takes the frame: its positions are the frame's
      for (let i = 0; i < last.xy.length / 2; i++) { page[7 * i] = last.xy[2 * i]; page[7 * i + 1] = last.xy[2 * i + 1]; }
      taken = last.seq; last = null;
    }
  } else if (step.grow) {
    const more = new Float64Array(page.length + step.grow.state.length);
    more.set(page); more.set(step.grow.state, page.length); page = more;
    gen++; epoch++;
    runner.handle({ type: "grow", sim: 1, gen: gen, epoch: epoch, seed: job.seed, params: job.params,
      state: Float64Array.from(step.grow.state), pairs: Int32Array.from(step.grow.pairs), rest: Float64Array.from(step.grow.rest) });
  } else if (step.patch) {
    const changes = step.patch.changes, index = [], state = [];
    for (const c of changes) page.set(c.slice(1), 7 * c[0]);
    for (const c of step.patch.omit ? changes.slice(1) : changes) { index.push(c[0]); state.push(...c.slice(1)); }
    epoch++;
    runner.handle({ type: "run", sim: 1, epoch: epoch, alpha: 0.3,
      patch: { base: taken, index: Int32Array.from(index), state: Float64Array.from(state), check: Float64Array.from(page) } });
    taken = -1;
  }
}
while (queue.length) queue.shift()();
process.stdout.write(JSON.stringify({ stats: runner.stats(), errors: errors }));

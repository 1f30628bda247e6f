// Runs static/damage.js ``prepare`` in node over a scene plan (static/scene.js): reads one JSON
// job on stdin — {scripts, steps: [{call: [name, args]} | {prepare: {xy, env, moving}} |
// {leavesOut: moving}]} — and prints, for each prepare, why the layer must be drawn again
// ("kept": it need not) and the cards it leaves out (for each leavesOut: whether the layer
// leaves out exactly those cards, as ``prime`` asks before it keeps a layer). (prepare only decides; drawing needs a canvas.)
"use strict";
const fs = require("fs");
const vm = require("vm");

const job = JSON.parse(fs.readFileSync(0, "utf8"));
for (const path of job.scripts) vm.runInThisContext(fs.readFileSync(path, "utf8"), { filename: path });
const S = globalThis.bendscopeScene, D = globalThis.bendscopeDamage;
const plan = S.createPlan();
const out = [];
for (const step of job.steps) {
  if (step.call) { S[step.call[0]](plan, ...step.call[1]); continue; }
  if (step.leavesOut) { out.push(D.leavesOut(plan, step.leavesOut)); continue; }
  const p = step.prepare, layer = D.prepare(plan, Float64Array.from(p.xy), p.env, p.moving, true);
  layer.drawn = layer.drawn || {};  // (as paint does: the layer is drawn now)
  const only = [];
  for (let i = 0; i < layer.only.length; i++) if (layer.only[i]) only.push(i);
  out.push([layer.reason, only]);
}
process.stdout.write(JSON.stringify(out));

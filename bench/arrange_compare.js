// bench/bench_arrange.py's node half: the condensation step of Arrange (the blocks of a job
// from bend/layout/arrange.py, with the sizes static/arrange.js gives them, laid out in layers) with
// dagre (vendored) and with elkjs' layered algorithm, on the same job: milliseconds, and
// crossings of the arcs drawn straight between block centres (as the editor draws edges).
// Reads {dagre, arrange, elk, job, libraries} on stdin.
"use strict";
const fs = require("fs");
const vm = require("vm");

const input = JSON.parse(fs.readFileSync(0, "utf8"));
vm.runInThisContext(fs.readFileSync(input.dagre, "utf8"), { filename: input.dagre });
vm.runInThisContext(fs.readFileSync(input.arrange, "utf8"), { filename: input.arrange });
const job = input.job;

function blockSizes() {
  // the blocks' real sizes: a card, a large loop's bounding box, a small loop in its layers
  const inner = globalThis.bendscopeArrange.blockLayout(job, globalThis.dagre), out = [];
  for (let b = 0; b < job.blocks.length; b++) out.push([inner.sizes[2 * b], inner.sizes[2 * b + 1]]);
  return out;
}

function crossings(centres) {
  const a = job.arcs, segs = [];
  for (let k = 0; k < a.length; k += 2) segs.push([centres[a[k]], centres[a[k + 1]]]);
  function orient(p, q, r) { const v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]); return v > 0 ? 1 : v < 0 ? -1 : 0; }
  let count = 0;
  for (let i = 0; i < segs.length; i++) {
    const [p1, p2] = segs[i];
    for (let j = i + 1; j < segs.length; j++) {
      const [q1, q2] = segs[j];
      if (p1 === q1 || p1 === q2 || p2 === q1 || p2 === q2) continue;  // arcs sharing a block
      if (orient(p1, p2, q1) * orient(p1, p2, q2) < 0 && orient(q1, q2, p1) * orient(q1, q2, p2) < 0) count++;
    }
  }
  return count;
}

async function main() {
  const sizes = blockSizes(), n = sizes.length, out = {};
  if (input.libraries.includes("dagre")) {
    for (const ranker of ["network-simplex", "tight-tree"]) {
      const t0 = performance.now();
      const g = new globalThis.dagre.graphlib.Graph();
      g.setGraph({ rankdir: job.direction, nodesep: 40, ranksep: 90, edgesep: 20, ranker: ranker });
      g.setDefaultEdgeLabel(() => ({}));
      for (let i = 0; i < n; i++) g.setNode("n" + i, { width: sizes[i][0], height: sizes[i][1] });
      for (let k = 0; k < job.arcs.length; k += 2) g.setEdge("n" + job.arcs[k], "n" + job.arcs[k + 1]);
      globalThis.dagre.layout(g);
      const ms = performance.now() - t0, centres = [];
      for (let i = 0; i < n; i++) { const v = g.node("n" + i); centres.push([v.x, v.y]); }
      out["dagre " + ranker] = { ms: ms, crossings: crossings(centres), width: g.graph().width, height: g.graph().height };
    }
  }
  if (input.libraries.includes("elk") && input.elk) {
    const ELK = require(input.elk);
    for (const thoroughness of ["7", "1"]) {
      const elk = new ELK();
      const t0 = performance.now();
      const graph = {
        id: "root",
        layoutOptions: {
          "elk.algorithm": "layered", "elk.direction": job.direction === "LR" ? "RIGHT" : "DOWN",
          "elk.spacing.nodeNode": "40", "elk.layered.spacing.nodeNodeBetweenLayers": "90",
          "elk.layered.thoroughness": thoroughness,
        },
        children: sizes.map((s, i) => ({ id: "n" + i, width: s[0], height: s[1] })),
        edges: [],
      };
      for (let k = 0; k < job.arcs.length; k += 2) graph.edges.push({ id: "e" + k, sources: ["n" + job.arcs[k]], targets: ["n" + job.arcs[k + 1]] });
      const done = await elk.layout(graph);
      const ms = performance.now() - t0, centres = done.children.map((c) => [c.x + c.width / 2, c.y + c.height / 2]);
      out["elk thoroughness " + thoroughness] = { ms: ms, crossings: crossings(centres), width: done.width, height: done.height };
    }
  }
  process.stdout.write(JSON.stringify(out));
}
main();

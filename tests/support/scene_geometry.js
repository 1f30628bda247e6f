// Runs the page's scene geometry (static/scene.js) in node: reads one JSON job on stdin —
// {calls: [[name, args], ...] (bend.sceneplan's calls), frames: [{xy, view}, ...]} — and prints
// the geometry of each frame, Maps as [key, value] lists in insertion order.
// With {count: true} it instead draws each frame on a recording canvas and prints how many
// times each Path2D and context method was called (the path builders' operation counts) and
// each line cap was set ({env: {...}}: more of the drawing's environment, e.g. skip).
"use strict";
const fs = require("fs");
const vm = require("vm");

const job = JSON.parse(fs.readFileSync(0, "utf8"));
for (const path of job.scripts) vm.runInThisContext(fs.readFileSync(path, "utf8"), { filename: path });
const S = globalThis.bendscopeScene;
const counts = {};
function counter(prefix) {
  return new Proxy({}, {
    get(target, name) {
      if (name === "getTransform") return () => ({ a: 1 });
      return (...args) => { counts[prefix + String(name)] = (counts[prefix + String(name)] || 0) + 1; };
    },
    set(target, name, value) {  // (the line caps asked for, by value: "ctx.lineCap=butt")
      if (name === "lineCap") counts[prefix + "lineCap=" + value] = (counts[prefix + "lineCap=" + value] || 0) + 1;
      return true;
    },
  });
}
S.paths.Path = function () { return counter("path."); };
const plan = S.createPlan();
for (const [name, args] of job.calls) S[name](plan, ...args);
const out = [];
for (const frame of job.frames) {
  const g = S.geometry(plan, frame.xy, frame.view);
  if (job.count) {
    S.draw(counter("ctx."), plan, g, Object.assign({ dpr: 1, width: frame.view.width, height: frame.view.height,
      cx: frame.view.cx, cy: frame.view.cy, zoom: frame.view.zoom, background: "#fff", pattern: null, layered: false },
      job.env || {}));
    continue;
  }
  const entries = (map) => Array.from(map.entries());
  const c = g.cards;
  out.push({
    lod: g.lod,
    halos: g.halos.map((h) => [h.fill, h.stroke, h.simple, h.rects, h.quads]),
    edges: g.edges.map((b) => [b.color, b.width, b.dash, b.segments]),
    arrows: g.arrows.map((a) => [a.color, a.triangles]),
    labels: g.labels.map(pill), badges: g.badges.map(pill), dim: g.dim,
    markers: g.markers.map((m) => [m.label, m.x, m.y, m.clockwise, m.color, pill(m.disk), m.arc, m.head]),
    tags: g.tags.map(pill),
    cards: {
      far: c.far, normal: c.normal, stargate: c.stargate, headers: entries(c.headers), decorations: entries(c.decorations),
      pulses: entries(c.pulses), pins: c.pins, selected: c.selected, bars: c.bars,
      texts: Array.from(c.texts.values()).map((t) => [t.font, t.color, t.texts, t.xy]),
    },
  });
}
function pill(p) { return [p.x, p.y, p.width, p.height, p.text, p.font, p.fill, p.color, p.border]; }
process.stdout.write(JSON.stringify(job.count ? counts : out));

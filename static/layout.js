// The layout kernel of the page: d3-force (vendored) driven from Python through typed arrays.
// Python owns the positions: every call takes them in and gives them back, so this file keeps
// no state that matters between calls except the forces' set-up. See py/app/d3layout.py.
//
// Forces (d3's model: small named forces, alpha cooling so the simulation rests):
//   charge  — many-body repulsion, Barnes–Hut quadtree (θ from the parameters): O(n log n)
//   link    — springs along edges, rest length from the two cards' sizes
//   cards   — rectangle collision: cards never overlap (d3's forceCollide is for circles)
//   x, y    — a weak pull to the origin, so separate components stay in view
(function (root) {
  "use strict";
  var d3 = root.d3;

  // A seeded source of [0, 1) numbers (d3 jiggles coincident nodes with it): same seed, same layout.
  function lcg(seed) {
    var s = (seed >>> 0) || 1;
    return function () {
      s = (Math.imul(1664525, s) + 1013904223) >>> 0;
      return s / 4294967296;
    };
  }

  // Rectangle collision: push overlapping cards (plus a padding) apart along the axis of least
  // overlap, half each. Neighbours come from a quadtree of centres searched within the largest
  // card's reach, so the cost is O(n log n) plus the pairs that are actually close.
  function cards(padding, strength) {
    var nodes = [];
    function force() {
      var n = nodes.length, maxW = 0, maxH = 0, i;
      for (i = 0; i < n; i++) {
        if (nodes[i].hw > maxW) maxW = nodes[i].hw;
        if (nodes[i].hh > maxH) maxH = nodes[i].hh;
      }
      var tree = d3.quadtree(nodes, function (d) { return d.x + d.vx; }, function (d) { return d.y + d.vy; });
      for (i = 0; i < n; i++) {
        var a = nodes[i];
        var ax = a.x + a.vx, ay = a.y + a.vy;
        var rx = a.hw + maxW + padding, ry = a.hh + maxH + padding;
        tree.visit(function (quad, x0, y0, x1, y1) {
          if (!quad.length) {
            var q = quad;
            do {
              var b = q.data;
              if (b.index > a.index) {
                var dx = (b.x + b.vx) - ax, dy = (b.y + b.vy) - ay;
                var ox = a.hw + b.hw + padding - Math.abs(dx);
                var oy = a.hh + b.hh + padding - Math.abs(dy);
                if (ox > 0 && oy > 0) {
                  // half each; a card that is held (dragged, pinned) does not move, the other moves all the way
                  var wa = a.fx != null ? 0 : b.fx != null ? 1 : 0.5, wb = b.fx != null ? 0 : 1 - wa;
                  if (ox * (a.hh + b.hh) < oy * (a.hw + b.hw)) {  // the cheaper way out, relative to size
                    var px = (dx > 0 ? ox : dx < 0 ? -ox : (a.index % 2 ? ox : -ox)) * strength;
                    a.vx -= px * wa; b.vx += px * wb;
                  } else {
                    var py = (dy > 0 ? oy : dy < 0 ? -oy : (a.index % 2 ? oy : -oy)) * strength;
                    a.vy -= py * wa; b.vy += py * wb;
                  }
                }
              }
            } while ((q = q.next));
          }
          return x0 > ax + rx || x1 < ax - rx || y0 > ay + ry || y1 < ay - ry;
        });
      }
    }
    force.initialize = function (list) { nodes = list; };
    // At rest: move overlapping cards apart directly (no velocity), one round per call, until
    // no card moves by more than a quarter pixel. Returns whether one did.
    force.separate = function () {
      var saved = strength, i, d, moved = false;
      strength = 1;
      for (i = 0; i < nodes.length; i++) { nodes[i].vx = 0; nodes[i].vy = 0; }
      force();
      for (i = 0; i < nodes.length; i++) {
        d = nodes[i];
        if (d.fx != null) { d.vx = d.vy = 0; continue; }
        if (Math.abs(d.vx) > 0.25 || Math.abs(d.vy) > 0.25) moved = true;
        d.x += d.vx; d.y += d.vy; d.vx = 0; d.vy = 0;
      }
      strength = saved;
      return moved;
    };
    return force;
  }

  function create(seed, p) {
    var sim = d3.forceSimulation([]).stop()
      .randomSource(lcg(seed))
      .alphaDecay(p.alphaDecay)
      .alphaMin(p.alphaMin)
      .velocityDecay(p.velocityDecay);
    var link = d3.forceLink([])
      .distance(function (l) { return l.rest; })
      .strength(function (l) { return l.k; })
      .iterations(1);
    sim.force("charge", d3.forceManyBody().strength(p.charge).theta(p.theta).distanceMin(p.chargeNear).distanceMax(p.chargeReach))
      .force("link", link)
      .force("cards", cards(p.padding, p.collide))
      .force("x", d3.forceX(0).strength(centre))
      .force("y", d3.forceY(0).strength(centre));
    // cards with no edge are pulled in harder: nothing else holds them near the graph
    function centre(d) { return d.links ? p.centre : p.loneCentre; }
    return { sim: sim, link: link, nodes: [], links: [], cards: sim.force("cards"), separated: 0, settled: false };
  }

  // state: per node x, y, vx, vy, half width, half height, fixed (1: stays where it is)
  function setGraph(h, state, pairs, rest, k) {
    var n = state.length / 7, nodes = new Array(n), i;
    for (i = 0; i < n; i++) nodes[i] = { index: i, x: 0, y: 0, vx: 0, vy: 0, hw: 0, hh: 0 };
    h.nodes = nodes;
    setState(h, state);
    h.sim.nodes(nodes);
    var links = new Array(pairs.length / 2);
    for (i = 0; i < links.length; i++) {
      links[i] = { source: pairs[2 * i], target: pairs[2 * i + 1], rest: rest[i], k: k[i] };
      nodes[pairs[2 * i]].links = (nodes[pairs[2 * i]].links || 0) + 1;
      nodes[pairs[2 * i + 1]].links = (nodes[pairs[2 * i + 1]].links || 0) + 1;
    }
    h.links = links;
    h.link.links(links);
    h.sim.force("x").strength(h.sim.force("x").strength());  // re-read the per-node strengths
    h.sim.force("y").strength(h.sim.force("y").strength());
  }

  function setState(h, state) {
    var nodes = h.nodes;
    for (var i = 0, j = 0; i < nodes.length; i++, j += 7) {
      var d = nodes[i];
      d.x = state[j]; d.y = state[j + 1]; d.vx = state[j + 2]; d.vy = state[j + 3];
      d.hw = state[j + 4]; d.hh = state[j + 5];
      if (state[j + 6]) { d.fx = d.x; d.fy = d.y; } else { d.fx = null; d.fy = null; }
    }
  }

  function now() { return root.performance ? root.performance.now() : Date.now(); }

  var SEPARATE_ROUNDS = 300;  // at most this many separation rounds after the forces cool (split over calls)

  // Tick from ``alpha`` towards ``target`` until ``maxTicks`` ticks, rest, or (``budgetMs`` > 0)
  // until the next tick would not fit the budget (at least one tick always runs). Once cooled,
  // separation rounds run (within the budget too; they continue on the next call).
  // Returns [alpha, ticks, settled (1: cooled and separated), then x, y, vx, vy per node].
  // Where a run ends depends only on the graph, the seed and the state, never on the budget.
  function run(h, state, alpha, target, maxTicks, budgetMs) {
    setState(h, state);
    var sim = h.sim.alpha(alpha).alphaTarget(target);
    var start = now(), last = start, longest = 0, ticks = 0, t;
    if (alpha >= sim.alphaMin() || target > 0) { h.separated = 0; h.settled = false; }
    while (ticks < maxTicks && (sim.alpha() >= sim.alphaMin() || target > 0)) {
      sim.tick();
      ticks++;
      if (budgetMs > 0) {
        t = now();
        longest = Math.max(longest, t - last);
        last = t;
        if (t - start + longest > budgetMs) break;
      }
    }
    var cooled = sim.alpha() < sim.alphaMin() && target <= 0;
    if (cooled && !h.settled && (budgetMs <= 0 || ticks === 0 || now() - start + longest <= budgetMs)) {
      last = now();
      while (!h.settled) {
        var moved = h.cards.separate();
        h.separated++;
        if (!moved || h.separated >= SEPARATE_ROUNDS) h.settled = true;
        if (budgetMs > 0) {
          t = now();
          longest = Math.max(longest, t - last);
          last = t;
          if (t - start + longest > budgetMs) break;
        }
      }
    }
    var nodes = h.nodes, out = new Float64Array(3 + 4 * nodes.length);
    out[0] = sim.alpha(); out[1] = ticks; out[2] = cooled && h.settled ? 1 : 0;
    for (var i = 0, j = 3; i < nodes.length; i++, j += 4) {
      var d = nodes[i];
      out[j] = d.x; out[j + 1] = d.y; out[j + 2] = d.vx; out[j + 3] = d.vy;
    }
    return out;
  }

  root.bendscopeLayout = { create: create, setGraph: setGraph, run: run };
})(typeof globalThis !== "undefined" ? globalThis : this);

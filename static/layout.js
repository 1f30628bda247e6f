// The layout kernel: d3-force (vendored) on flat typed arrays, the same code in the page's
// layout worker (static/layout-worker.js), on the page's main thread (a run to rest in one go:
// `settle`, `?still=1`, `?layout=d3`) and in node (tests). See py/bendscope/app/d3layout.py.
//
// Forces (d3's model: small named forces, alpha cooling so the simulation rests):
//   charge  — many-body repulsion, Barnes–Hut quadtree (θ from the parameters): O(n log n)
//   link    — springs along edges, rest length from the two cards' sizes
//   cards   — rectangle collision: cards never overlap (d3's forceCollide is for circles)
//   x, y    — a weak pull to the origin, so separate components stay in view
// After cooling, separation rounds move overlapping cards apart directly until none moves.
// Where a run ends depends only on the graph, the seed and the state given, never on how the
// run is sliced in time: the worker's slices end where one run to rest ends.
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

  // Visit every pair of cards whose boxes (half sizes + ``pad`` each way) may overlap, each pair
  // once (b.index > a.index), through a quadtree of centres searched within the largest card's
  // reach: O(n log n) plus the pairs that are actually close. ``at`` gives a node's centre.
  function closePairs(nodes, pad, at, visit) {
    var n = nodes.length, maxW = 0, maxH = 0, i;
    for (i = 0; i < n; i++) {
      if (nodes[i].hw > maxW) maxW = nodes[i].hw;
      if (nodes[i].hh > maxH) maxH = nodes[i].hh;
    }
    var tree = d3.quadtree(nodes, function (d) { return at(d)[0]; }, function (d) { return at(d)[1]; });
    for (i = 0; i < n; i++) {
      var a = nodes[i], pa = at(a), ax = pa[0], ay = pa[1];
      var rx = a.hw + maxW + pad, ry = a.hh + maxH + pad;
      tree.visit(function (quad, x0, y0, x1, y1) {
        if (!quad.length) {
          var q = quad;
          do {
            var b = q.data;
            if (b.index > a.index) visit(a, b, ax, ay, at(b));
          } while ((q = q.next));
        }
        return x0 > ax + rx || x1 < ax - rx || y0 > ay + ry || y1 < ay - ry;
      });
    }
  }

  var ahead = [0, 0];
  function nextPosition(d) { ahead[0] = d.x + d.vx; ahead[1] = d.y + d.vy; return ahead; }
  var here = [0, 0];
  function position(d) { here[0] = d.x; here[1] = d.y; return here; }

  // Rectangle collision: push overlapping cards (plus a padding) apart along the axis of least
  // overlap, half each; a card that is held (dragged, pinned, outside a local reheat) does not
  // move, the other moves all the way.
  function cards(padding, strength) {
    var nodes = [], overlapping = 0;
    function force() {
      overlapping = 0;
      closePairs(nodes, padding, nextPosition, function (a, b, ax, ay, pb) {
        var dx = pb[0] - ax, dy = pb[1] - ay;
        var ox = a.hw + b.hw + padding - Math.abs(dx);
        var oy = a.hh + b.hh + padding - Math.abs(dy);
        if (ox > 0 && oy > 0) {
          // the boxes themselves overlap (not only the padding), and one of them can move
          if (ox > padding + 0.5 && oy > padding + 0.5 && (a.fx == null || b.fx == null)) overlapping++;
          var wa = a.fx != null ? 0 : b.fx != null ? 1 : 0.5, wb = b.fx != null ? 0 : 1 - wa;
          if (ox * (a.hh + b.hh) < oy * (a.hw + b.hw)) {  // the cheaper way out, relative to size
            var px = (dx > 0 ? ox : dx < 0 ? -ox : (a.index % 2 ? ox : -ox)) * strength;
            a.vx -= px * wa; b.vx += px * wb;
          } else {
            var py = (dy > 0 ? oy : dy < 0 ? -oy : (a.index % 2 ? oy : -oy)) * strength;
            a.vy -= py * wa; b.vy += py * wb;
          }
        }
      });
    }
    force.initialize = function (list) { nodes = list; sep = null; };
    // the pairs of overlapping cards (one of them free) the last pass found
    force.overlapping = function () { return overlapping; };

    // At rest: rounds that move cards apart directly (no velocity): overlapping ones, and ones
    // closer than the padding. A round looks only at the cards that were in such a pair or moved
    // in the last round (all, in the first) — any other card is in no pair and pushes nothing —
    // through a quadtree kept until the cards drift from it by more than REBUILD: so a round
    // costs what is still crowded, not the size of the plane.
    var sep = null, REBUILD = 64;
    force.reset = function () { sep = null; };
    force.separate = function () {
      var n = nodes.length, i, k, d;
      if (sep === null) {
        var maxW = 0, maxH = 0, all = new Int32Array(n);
        for (i = 0; i < n; i++) { all[i] = i; if (nodes[i].hw > maxW) maxW = nodes[i].hw; if (nodes[i].hh > maxH) maxH = nodes[i].hh; }
        sep = { list: all, active: new Uint8Array(n).fill(1), tree: null, drift: Infinity, maxW: maxW, maxH: maxH };
        close = new Uint8Array(n);
      }
      if (sep.drift > REBUILD) {
        sep.tree = d3.quadtree(nodes, function (q) { return q.x; }, function (q) { return q.y; });
        sep.drift = 0;
      }
      var list = sep.list, active = sep.active, margin = padding + 2 * sep.drift;
      for (k = 0; k < list.length; k++) { d = nodes[list[k]]; d.vx = 0; d.vy = 0; }
      overlapping = 0;
      for (k = 0; k < list.length; k++) {
        var a = nodes[list[k]], ax = a.x, ay = a.y, rx = a.hw + sep.maxW + margin, ry = a.hh + sep.maxH + margin;
        sep.tree.visit(function (quad, x0, y0, x1, y1) {
          if (!quad.length) {
            var q = quad;
            do {
              var b = q.data;
              // each pair once: from the lower index when both are active, else from the active one
              if (b !== a && !(active[b.index] && b.index < a.index)) push(a, b);
            } while ((q = q.next));
          }
          return x0 > ax + rx || x1 < ax - rx || y0 > ay + ry || y1 < ay - ry;
        });
      }
      var moved = false, next = [], most = 0;
      active.fill(0);
      // the cards of this round's close pairs: the active ones and the partners they met
      for (k = 0; k < list.length; k++) touched(nodes[list[k]]);
      for (k = 0; k < pushed.length; k++) touched(pushed[k]);
      function touched(q) {
        if (active[q.index] || !close[q.index]) return;  // seen, or in no close pair
        active[q.index] = 1;
        next.push(q.index);
        if (q.fx != null && !q.soft) { q.vx = q.vy = 0; return; }
        var m = Math.max(Math.abs(q.vx), Math.abs(q.vy));
        if (m > 0.25) moved = true;
        if (m > most) most = m;
        q.x += q.vx; q.y += q.vy; q.vx = 0; q.vy = 0;
        if (q.fx != null && m > 0) { q.fx = q.x; q.fy = q.y; q.shifted = true; }  // stays where it made way to
      }
      for (k = 0; k < next.length; k++) close[next[k]] = 0;
      pushed = [];
      next.sort(function (x, y) { return x - y; });
      sep.list = next;
      sep.drift += most;
      return moved;
    };
    var pushed = [], close = new Uint8Array(0);  // close[i]: card i is in a close pair this round
    // How a close pair moves apart, along the axis that is cheaper relative to the cards' sizes.
    // Free cards keep the padding between them. A card held by a local reheat (outside its
    // region, "soft") moves only to clear a real overlap of the boxes, and as little as that:
    // all of it against a held card (pinned, dragged), half of it against a free card (which
    // takes the rest, padding included), and half of it against another soft card once one of
    // the two has made way already in this run (a crowd makes way outwards from the change;
    // an overlap far from it stays as it was). Held cards never move.
    function push(a, b) {
      var dx = b.x - a.x, dy = b.y - a.y;
      var ox = a.hw + b.hw + padding - Math.abs(dx);
      var oy = a.hh + b.hh + padding - Math.abs(dy);
      if (!(ox > 0 && oy > 0)) return;
      var ha = a.fx != null && !a.soft, hb = b.fx != null && !b.soft;
      var fa = a.fx == null, fb = b.fx == null;
      if ((ha && hb) || (!fa && !fb && !ha && !hb && !a.shifted && !b.shifted)) return;  // neither may move
      if (ox > padding + 0.5 && oy > padding + 0.5) overlapping++;
      var alongX = ox * (a.hh + b.hh) < oy * (a.hw + b.hw);
      var full = alongX ? ox : oy, bare = Math.max(0, full - padding), ta, tb;
      if (fa && fb) { ta = tb = full / 2; }
      else if (fa) { tb = hb ? 0 : bare / 2; ta = full - tb; }
      else if (fb) { ta = ha ? 0 : bare / 2; tb = full - ta; }
      else if (ha) { ta = 0; tb = bare; }
      else if (hb) { ta = bare; tb = 0; }
      else { ta = tb = bare / 2; }  // two soft cards, one of which has made way already
      if (ta + tb <= 0) return;
      close[a.index] = 1;
      if (!close[b.index]) { close[b.index] = 1; if (!sep.active[b.index]) pushed.push(b); }
      var d = alongX ? dx : dy, sign = d > 0 ? 1 : d < 0 ? -1 : (a.index % 2 ? 1 : -1);
      if (alongX) { a.vx -= sign * ta; b.vx += sign * tb; } else { a.vy -= sign * ta; b.vy += sign * tb; }
    }
    return force;
  }

  // Pairs of cards whose rectangles overlap by more than half a pixel each way (no padding);
  // ``movable``: only pairs one card of which may move.
  function overlaps(h, movable) {
    var count = 0;
    closePairs(h.nodes, 0, position, function (a, b, ax, ay, pb) {
      if (movable && a.fx != null && b.fx != null) return;
      if (Math.abs(pb[0] - ax) < a.hw + b.hw - 0.5 && Math.abs(pb[1] - ay) < a.hh + b.hh - 0.5) count++;
    });
    return count;
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
    return { sim: sim, link: link, nodes: [], links: [], cards: sim.force("cards"), separated: 0, settled: false, p: p };
  }

  // Cards and springs appended to the graph (bend.layout.forces.kernel_growth): the new cards'
  // state (7 per card), the new springs' index pairs and rest lengths; every spring's stiffness
  // is 1 / min(degree) again and the parameters for the new size are taken, so the graph equals
  // one made afresh by setGraph (the seed's random source too). O(n + m)
  function grow(h, seed, p, state, pairs, rest) {
    var nodes = h.nodes, n0 = nodes.length, i, j;
    for (i = 0; i < state.length / 7; i++) nodes.push({ index: n0 + i, x: 0, y: 0, vx: 0, vy: 0, hw: 0, hh: 0 });
    for (i = n0, j = 0; i < nodes.length; i++, j += 7) {
      var d = nodes[i];
      d.x = state[j]; d.y = state[j + 1]; d.vx = state[j + 2]; d.vy = state[j + 3];
      d.hw = state[j + 4]; d.hh = state[j + 5];
      if (state[j + 6]) { d.fx = d.x; d.fy = d.y; } else { d.fx = null; d.fy = null; }
      d.soft = state[j + 6] === 2;
    }
    for (i = 0; i < rest.length; i++) {
      h.links.push({ source: pairs[2 * i], target: pairs[2 * i + 1], rest: rest[i], k: 0 });
      nodes[pairs[2 * i]].links = (nodes[pairs[2 * i]].links || 0) + 1;
      nodes[pairs[2 * i + 1]].links = (nodes[pairs[2 * i + 1]].links || 0) + 1;
    }
    for (i = 0; i < h.links.length; i++) {
      var l = h.links[i];
      var a = typeof l.source === "object" ? l.source : nodes[l.source];
      var b = typeof l.target === "object" ? l.target : nodes[l.target];
      l.k = 1 / Math.min(a.links, b.links);
    }
    for (var name in p) h.p[name] = p[name];
    h.sim.force("charge").distanceMax(h.p.chargeReach);
    h.sim.randomSource(lcg(seed));  // (every force initialised again: links, strengths, as a fresh graph)
    h.sim.nodes(nodes);
    h.link.links(h.links);
    h.sim.force("x").strength(h.sim.force("x").strength());
    h.sim.force("y").strength(h.sim.force("y").strength());
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

  // state: per node x, y, vx, vy, half width, half height, held: 0 free, 1 held (pinned,
  // dragged), 2 held by a local reheat (outside its region: still during the ticks, but it
  // makes way for a free card that separation finds on top of it)
  function setState(h, state) {
    var nodes = h.nodes;
    for (var i = 0, j = 0; i < nodes.length; i++, j += 7) {
      var d = nodes[i];
      d.x = state[j]; d.y = state[j + 1]; d.vx = state[j + 2]; d.vy = state[j + 3];
      d.hw = state[j + 4]; d.hh = state[j + 5];
      if (state[j + 6]) { d.fx = d.x; d.fy = d.y; } else { d.fx = null; d.fy = null; }
      d.soft = state[j + 6] === 2;
    }
  }

  function now() { return root.performance ? root.performance.now() : Date.now(); }

  //: at most this many separation rounds after the forces cool (split over calls); a round
  //: count, not a time, so that where a run ends never depends on the machine's speed
  var SEPARATE_ROUNDS = 1500;
  var STALL = 150;
  var CLEAR = 30;

  // A new run: separation starts afresh (every card may again be pushed, none has made way yet).
  function restart(h) {
    h.separated = 0; h.settled = false; h.best = Infinity; h.stalled = 0;
    h.cards.reset();
    for (var i = 0; i < h.nodes.length; i++) h.nodes[i].shifted = false;
  }

  // Tick from ``alpha`` towards ``target`` until ``maxTicks`` ticks, rest, or (``budgetMs`` > 0)
  // until the next tick would not fit the budget (at least one tick always runs). Once cooled,
  // separation rounds run (within the budget too; they continue on the next call).
  // Returns [alpha, ticks, settled (1: cooled and separated)]; positions stay on h.nodes.
  function advance(h, alpha, target, maxTicks, budgetMs) {
    var sim = h.sim.alpha(alpha).alphaTarget(target);
    var start = now(), last = start, longest = 0, ticks = 0, t;
    if (alpha >= sim.alphaMin() || target > 0) restart(h);
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
        var moved = h.cards.separate(), left = h.cards.overlapping();
        h.separated++;
        // progress: fewer overlapping pairs than ever before in this run
        if (left < h.best) { h.best = left; h.stalled = 0; } else h.stalled++;
        // done: nothing overlaps and nothing moves; nothing overlapped for CLEAR rounds (only
        // padding is still being evened out); no progress in STALL rounds (a jam the space does
        // not allow to clear, e.g. pinned cards on top of each other); or the cap
        var done = left === 0 ? !moved || (h.stalled >= CLEAR && overlaps(h, true) === 0) : h.stalled >= STALL;
        if (done || h.separated >= SEPARATE_ROUNDS) h.settled = true;
        if (budgetMs > 0) {
          t = now();
          longest = Math.max(longest, t - last);
          last = t;
          if (t - start + longest > budgetMs) break;
        }
      }
    }
    return [sim.alpha(), ticks, cooled && h.settled ? 1 : 0];
  }

  // The single-threaded call: set the state, advance, return
  // [alpha, ticks, settled, then x, y, vx, vy per node].
  function run(h, state, alpha, target, maxTicks, budgetMs) {
    setState(h, state);
    var head = advance(h, alpha, target, maxTicks, budgetMs);
    var nodes = h.nodes, out = new Float64Array(3 + 4 * nodes.length);
    out[0] = head[0]; out[1] = head[1]; out[2] = head[2];
    for (var i = 0, j = 3; i < nodes.length; i++, j += 4) {
      var d = nodes[i];
      out[j] = d.x; out[j + 1] = d.y; out[j + 2] = d.vx; out[j + 3] = d.vy;
    }
    return out;
  }

  //: how long the worker ticks before it hands a frame of positions to the page
  var SLICE_MS = 12;

  // The layout worker's driver (static/layout-worker.js is only its shell): keeps one kernel per
  // plane layout (``sim`` ids chosen by the page), runs the one the page last asked to run in
  // slices, and after each slice posts a frame ``{type: "frame", sim, gen, epoch, alpha, ticks,
  // settled, overlaps, xy}`` (``xy``: x, y per node, its buffer transferred). ``schedule(fn)``
  // runs fn as a task of its own (so messages are handled between slices).
  //
  // Messages from the page (``gen`` numbers a kernel graph, ``epoch`` a state the page set):
  //   {type: "graph", sim, gen, epoch, seed, params, state, pairs, rest, k}  (re)build, no run
  //   {type: "grow", sim, gen, epoch, seed, params, state, pairs, rest}  cards and springs appended
  //   {type: "run", sim, epoch, alpha, state?}   set the state (7 per node) if given, run to rest
  //   {type: "run", sim, epoch, alpha, patch: {base, index, state, outside?, check?}}  the same, the state
  //                                              given as what changed (below); if its base
  //                                              frame is no longer kept the worker posts
  //                                              {type: "resend", sim} and waits for a whole one
  //   {type: "heat", sim, alpha, held?, index?, xy?}  a drag: the alpha rises; held flags (one per
  //                                              node) and cards released (where the page has them)
  //   {type: "hold", sim, index, xy}             held cards (a drag) stand at these positions
  //   {type: "stop", sim, epoch}                 stop where it is
  //   {type: "drop", sim}                        forget the kernel
  // A frame names the gen and epoch it was computed from, so the page ignores stale ones, and
  // its ``seq`` (a number per plane layout).
  //
  // A patch stands for the whole state the page would send (``given``: the state last given,
  // whole or patched, with grown cards; the x, y of the frame ``base`` the page last took, if
  // it took one since — the page's positions are that frame's), with the ``index``ed cards'
  // 7 values replaced: what the page changed (cards it moved or added, held flags); ``outside``:
  // first, the held flag of every card not held (a local reheat after a run over the whole
  // plane: 2 for every card outside its region, given in ``index``; the other way round: 0). It costs
  // the page what changed; the worker makes the whole state, O(n). ``check`` (tests): the whole
  // state the page made too; the worker counts the cards where the two differ (``stats``).
  var KEPT_FRAMES = 64;  // frames' positions kept for a patch's base (64 slices: the page may be busy for ~0.8 s)
  function runner(post, schedule) {
    var sims = {}, current = null, pending = false, stats = { patched: 0, checked: 0, mismatched: 0, unknownBase: 0 };
    function frame(s, head) {
      var nodes = s.h.nodes, xy = new Float64Array(2 * nodes.length);
      for (var i = 0; i < nodes.length; i++) { xy[2 * i] = nodes[i].x; xy[2 * i + 1] = nodes[i].y; }
      s.seq++;
      s.kept[s.seq % KEPT_FRAMES] = { seq: s.seq, xy: Float64Array.from(xy) };
      post({
        type: "frame", sim: s.id, gen: s.gen, epoch: s.epoch, seq: s.seq, alpha: head[0], ticks: head[1],
        settled: head[2], overlaps: head[2] ? overlaps(s.h) : -1, xy: xy, patches: stats,
      }, [xy.buffer]);
    }
    // the whole state a patch stands for (see above); null when its base frame is no longer kept
    function patched(s, patch) {
      var state = Float64Array.from(s.given), i, j, k;
      if (patch.base >= 0) {
        var base = s.kept[patch.base % KEPT_FRAMES];
        if (!base || base.seq !== patch.base) return null;
        var xy = base.xy, n = Math.min(xy.length / 2, state.length / 7);
        for (i = 0; i < n; i++) { state[7 * i] = xy[2 * i]; state[7 * i + 1] = xy[2 * i + 1]; }
      }
      if (patch.outside != null) {  // every card not pinned (nor given below) takes this held flag
        for (i = 6; i < state.length; i += 7) if (state[i] !== 1) state[i] = patch.outside;
      }
      for (k = 0; k < patch.index.length; k++) {
        for (i = 7 * patch.index[k], j = 7 * k; j < 7 * k + 7; i++, j++) state[i] = patch.state[j];
      }
      return state;
    }
    function given(s, state) {  // the state the page gave, kept for patches
      s.given = Float64Array.from(state);
    }
    function pump() {
      pending = false;
      var s = current;
      if (s === null || !s.running) return;
      var head = advance(s.h, s.alpha, 0, 1e9, SLICE_MS);
      s.alpha = head[0];
      if (head[2]) { s.running = false; s.alpha = 0; }
      frame(s, head);
      if (s.running) wake();
    }
    function wake() {
      if (!pending) { pending = true; schedule(pump); }
    }
    function go(s) {
      s.running = true;
      if (current && current !== s) current.running = false;  // one plane's layout runs at a time
      current = s;
      wake();
    }
    function handle(m) {
      var s = sims[m.sim];
      if (m.type === "graph") {
        s = sims[m.sim] = { id: m.sim, gen: m.gen, epoch: m.epoch, h: create(m.seed, m.params), alpha: 0, running: false,
          seq: s ? s.seq : 0, kept: new Array(KEPT_FRAMES), given: null };
        setGraph(s.h, m.state, m.pairs, m.rest, m.k);
        given(s, m.state);
        return;
      }
      if (!s) return;
      if (m.type === "grow") {
        grow(s.h, m.seed, m.params, m.state, m.pairs, m.rest);
        s.gen = m.gen; s.epoch = m.epoch;
        var more = new Float64Array(s.given.length + m.state.length);
        more.set(s.given); more.set(m.state, s.given.length);
        s.given = more;
        return;
      }
      if (m.type === "run") {
        var state = m.state;
        if (m.patch) {
          state = patched(s, m.patch);
          if (state === null) {  // (its frame is too old: the page sends the whole state again)
            stats.unknownBase++;
            post({ type: "resend", sim: s.id });
            return;
          }
          stats.patched++;
          if (m.patch.check) {
            stats.checked++;
            var check = m.patch.check, bad = state.length !== check.length;
            for (var c = 0; !bad && c < state.length; c++) bad = state[c] !== check[c];
            if (bad) stats.mismatched++;
          }
        }
        if (state) { setState(s.h, state); given(s, state); }
        s.epoch = m.epoch;
        s.alpha = m.alpha;
        restart(s.h);  // (also when it resumes in the middle of separating: from the state given)
        go(s);
      } else if (m.type === "heat") {  // a drag goes on: held flags, released cards, the alpha
        var nodes = s.h.nodes, i;
        if (m.held) {
          for (i = 0; i < nodes.length; i++) {
            var q = nodes[i], flag = m.held[i];
            if (flag) { if (q.fx == null) { q.fx = q.x; q.fy = q.y; } } else { q.fx = q.fy = null; }
            q.soft = flag === 2;
          }
          for (i = 0; i < m.index.length; i++) {
            var r = nodes[m.index[i]];
            r.x = m.xy[2 * i]; r.y = m.xy[2 * i + 1]; r.vx = r.vy = 0;
            if (r.fx != null) { r.fx = r.x; r.fy = r.y; }
          }
        }
        if (!s.running || m.alpha > s.alpha) { s.alpha = Math.max(s.alpha, m.alpha); restart(s.h); }
        go(s);
      } else if (m.type === "hold") {
        for (var i = 0; i < m.index.length; i++) {
          var d = s.h.nodes[m.index[i]];
          if (d) { d.x = d.fx = m.xy[2 * i]; d.y = d.fy = m.xy[2 * i + 1]; d.vx = d.vy = 0; }
        }
      } else if (m.type === "stop") {
        s.running = false;
        s.alpha = 0;
        s.epoch = m.epoch;
      } else if (m.type === "drop") {
        if (current === s) current = null;
        delete sims[m.sim];
      }
    }
    return { handle: handle, pump: pump, stats: function () { return stats; } };
  }

  root.bendscopeLayout = {
    create: create, setGraph: setGraph, grow: grow, setState: setState, advance: advance, run: run,
    overlaps: overlaps, runner: runner, SLICE_MS: SLICE_MS, SEPARATE_ROUNDS: SEPARATE_ROUNDS,
  };
})(typeof globalThis !== "undefined" ? globalThis : this);

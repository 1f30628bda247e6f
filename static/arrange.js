// Arrange: the layered drawing of a plane's condensation DAG with @dagrejs/dagre (vendored,
// pinned), run in the layout worker. The job comes from bend/layout/arrange.py: card sizes, blocks
// (a loop's cards, or one card), each block's inner arcs (drawn in layers inside it) or the
// positions its cards keep, the arcs between blocks, and the cards with no directed edge.
// Returns a Float64Array of card centres (x, y per card in plane order). Deterministic: dagre
// has no randomness, and everything is added to its graphs in the job's order.
// Long layers are wrapped into columns and long drawings folded into bands so the drawing fits a
// screen (see wrapped, folded); a drawing of very many layers is laid out in pieces (see pieced).
(function (root) {
  "use strict";
  var NODESEP = 40, RANKSEP = 90, EDGESEP = 20, LOOSE_GAP = 30;
  //: a layer longer than the drawing's other side is wrapped into columns this far apart, so the
  //: whole fits a screen: its long side at most MAX_ASPECT times its short side, aiming for ASPECT
  var WRAP_GAP = 30, ASPECT = 1.6, MAX_ASPECT = 2.5;
  //: a drawing whose blocks fill less than this share of its box is wrapped and folded anew (see run;
  //: the benchmark's mixed graph of 90 cards, whose arcs all read along one axis, fills 7 %)
  var MIN_FILL = 0.05;
  //: a drawing whose blocks fill less than this share of its box has its layers stacked tight (see wrapped)
  var WRAP_FILL = 0.15;
  //: a small loop is set in the job's compact rows when its layers' drawing is this many times their area
  var LOOP_ROWS = 2;
  //: a small loop whose layers' estimated area (layersArea) is more than this many times LOOP_ROWS
  //: times its rows' area is set in rows without drawing its layers: on the loops measured (5–60
  //: cards, 5–159 arcs) the estimate was 0.4–1.1 times the area of dagre's drawing
  var ROWS_SURE = 1.5;
  //: the condensation's ranks come from dagre's tight-tree ranker: in bench/bench_arrange.py it
  //: took 0.5–0.9× the time of network simplex and drew fewer crossings on every graph measured
  var RANKER = "tight-tree";

  function layered(dagre, direction, sizes, count, arcs, ranker) {
    var g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: direction, nodesep: NODESEP, ranksep: RANKSEP, edgesep: EDGESEP, ranker: ranker });
    g.setDefaultEdgeLabel(function () { return {}; });
    for (var i = 0; i < count; i++) g.setNode("n" + i, { width: sizes[2 * i], height: sizes[2 * i + 1] });
    for (var k = 0; k < arcs.length; k += 2) g.setEdge("n" + arcs[k], "n" + arcs[k + 1]);
    dagre.layout(g);
    var xy = new Float64Array(2 * count);
    for (i = 0; i < count; i++) { var v = g.node("n" + i); xy[2 * i] = v.x; xy[2 * i + 1] = v.y; }
    var size = g.graph();
    return { xy: xy, width: size.width || 0, height: size.height || 0 };
  }

  //: dagre recurses once per layer (its ranking and ordering): a drawing of more layers than this
  //: is laid out in pieces of this many layers each, one after another along the reading axis (a
  //: chain of 2,000 cards overflowed the JavaScript stack)
  var PIECE_LAYERS = 400;

  // Each block's layer: the longest path of arcs that ends at it (Kahn's order, O(blocks + arcs)),
  // or null when the arcs are not a DAG (they are the condensation's, so they always are).
  function depths(count, arcs) {
    var into = new Int32Array(count), out = [], depth = new Int32Array(count), queue = [], b, k, h;
    for (b = 0; b < count; b++) out.push([]);
    for (k = 0; k < arcs.length; k += 2) { out[arcs[k]].push(arcs[k + 1]); into[arcs[k + 1]]++; }
    for (b = 0; b < count; b++) if (!into[b]) queue.push(b);
    for (h = 0; h < queue.length; h++) {
      b = queue[h];
      for (k = 0; k < out[b].length; k++) {
        var t = out[b][k];
        depth[t] = Math.max(depth[t], depth[b] + 1);
        if (--into[t] === 0) queue.push(t);
      }
    }
    return queue.length === count ? depth : null;
  }

  // layered, for a drawing of any number of layers: more than PIECE_LAYERS, its blocks go in pieces
  // by layer (PIECE_LAYERS layers each), each piece drawn by dagre with the arcs inside it and put
  // after the one before along the reading axis — so every arc still reads forwards (an arc between
  // pieces goes from a piece to a later one). Fewer layers: layered itself.
  function pieced(dagre, direction, sizes, count, arcs, ranker) {
    var depth = depths(count, arcs), top = 0, b, k;
    if (depth === null) return layered(dagre, direction, sizes, count, arcs, ranker);
    for (b = 0; b < count; b++) top = Math.max(top, depth[b]);
    if (top < PIECE_LAYERS) return layered(dagre, direction, sizes, count, arcs, ranker);
    var lr = direction === "LR", pieces = Math.floor(top / PIECE_LAYERS) + 1, members = [], local = new Int32Array(count), inside = [];
    for (k = 0; k < pieces; k++) { members.push([]); inside.push([]); }
    for (b = 0; b < count; b++) { var p = Math.floor(depth[b] / PIECE_LAYERS); local[b] = members[p].length; members[p].push(b); }
    for (k = 0; k < arcs.length; k += 2) {
      var from = Math.floor(depth[arcs[k]] / PIECE_LAYERS);
      if (from === Math.floor(depth[arcs[k + 1]] / PIECE_LAYERS)) inside[from].push(local[arcs[k]], local[arcs[k + 1]]);
    }
    var xy = new Float64Array(2 * count), start = 0, across = 0;
    for (k = 0; k < pieces; k++) {
      var own = new Float64Array(2 * members[k].length), m;
      for (m = 0; m < members[k].length; m++) { own[2 * m] = sizes[2 * members[k][m]]; own[2 * m + 1] = sizes[2 * members[k][m] + 1]; }
      var drawn = layered(dagre, direction, own, members[k].length, inside[k], ranker);
      for (m = 0; m < members[k].length; m++) {
        b = members[k][m];
        xy[2 * b] = drawn.xy[2 * m] + (lr ? start : 0); xy[2 * b + 1] = drawn.xy[2 * m + 1] + (lr ? 0 : start);
      }
      start += (lr ? drawn.width : drawn.height) + RANKSEP;
      across = Math.max(across, lr ? drawn.height : drawn.width);
    }
    start -= RANKSEP;
    return { xy: xy, width: lr ? start : across, height: lr ? across : start };
  }

  // Each block's size and its cards' centres inside it (a card; a large loop where the job sets it
  // in compact rows; a small loop in layers of its own).
  function blockLayout(job, dagre) {
    var sizes = job.sizes, blocks = job.blocks, b, k, i;
    var blockSizes = new Float64Array(2 * blocks.length), offsets = [];  // offsets: member centres in the block
    for (b = 0; b < blocks.length; b++) {
      var members = blocks[b], off = new Float64Array(2 * members.length), w = 0, h = 0;
      if (members.length === 1) {
        i = members[0]; w = sizes[2 * i]; h = sizes[2 * i + 1];
        off[0] = w / 2; off[1] = h / 2;
      } else if (job.kept[b]) {  // a large loop: its cards where the job puts them (compact rows)
        var set = inRows(job.keep[b], members, sizes);
        off = set.xy; w = set.width; h = set.height;
      } else {  // a small loop: in layers of its own (dagre turns its back arcs round)
        var local = {}, own = new Float64Array(2 * members.length), inner = job.inner[b], arcs = [];
        for (k = 0; k < members.length; k++) { local[members[k]] = k; own[2 * k] = sizes[2 * members[k]]; own[2 * k + 1] = sizes[2 * members[k] + 1]; }
        for (k = 0; k < inner.length; k += 2) arcs.push(local[inner[k]], local[inner[k + 1]]);
        var rows = job.rows && job.rows[b] && job.rows[b].length ? inRows(job.rows[b], members, sizes) : null, drawn;
        if (rows !== null && layersArea(own, members.length, arcs) > ROWS_SURE * LOOP_ROWS * rows.width * rows.height) {
          drawn = rows;  // (dagre would draw it larger still: its layers are not drawn at all)
        } else {
          // (folded as a drawing of blocks is when it is long: a ring of 60 cards is 60 layers)
          drawn = folded(layered(dagre, job.direction, own, members.length, arcs, "network-simplex"), own, job.direction);
          if (rows !== null && drawn.width * drawn.height > LOOP_ROWS * rows.width * rows.height) drawn = rows;
        }
        off = drawn.xy; w = drawn.width; h = drawn.height;
      }
      blockSizes[2 * b] = w; blockSizes[2 * b + 1] = h;
      offsets.push(off);
    }
    return { sizes: blockSizes, offsets: offsets };
  }

  // An estimate of the area of a small loop's drawing in layers, without drawing it: its arcs
  // that close a cycle in a depth-first search (in the job's order) turned round, as dagre turns
  // them, each card in the layer of the longest path that ends at it, a layer as long as its
  // widest card and as deep as its cards and the arcs passing through it (NODESEP, EDGESEP apart).
  // dagre's drawing of a loop costs it seconds when its arcs are long (a 50-card region with
  // chords: 2–9 s, a back arc passing 40 layers is 40 points to order and place), and those are
  // the loops whose layers are many times the area of rows. O(cards + arcs + layers passed).
  function layersArea(own, count, arcs) {
    var out = [], state = new Int8Array(count), forward = [], into = new Int32Array(count), depth = new Int32Array(count), k, v;
    for (v = 0; v < count; v++) out.push([]);
    for (k = 0; k < arcs.length; k += 2) if (arcs[k] !== arcs[k + 1]) out[arcs[k]].push(arcs[k + 1]);
    function visit(u) {  // (recursive: a small loop is at most LAYERED_LOOP cards deep)
      state[u] = 1;
      for (var j = 0; j < out[u].length; j++) {
        var w = out[u][j];
        if (state[w] === 1) forward.push(w, u);
        else { if (state[w] === 0) visit(w); forward.push(u, w); }
      }
      state[u] = 2;
    }
    for (v = 0; v < count; v++) if (!state[v]) visit(v);
    var next = [];
    for (v = 0; v < count; v++) next.push([]);
    for (k = 0; k < forward.length; k += 2) { next[forward[k]].push(forward[k + 1]); into[forward[k + 1]]++; }
    var queue = [];
    for (v = 0; v < count; v++) if (!into[v]) queue.push(v);
    for (var h = 0; h < queue.length; h++) {
      v = queue[h];
      for (k = 0; k < next[v].length; k++) {
        var t = next[v][k];
        depth[t] = Math.max(depth[t], depth[v] + 1);
        if (--into[t] === 0) queue.push(t);
      }
    }
    var layers = 0;
    for (v = 0; v < count; v++) layers = Math.max(layers, depth[v] + 1);
    var wide = new Float64Array(layers), deep = new Float64Array(layers).fill(-NODESEP);
    for (v = 0; v < count; v++) { wide[depth[v]] = Math.max(wide[depth[v]], own[2 * v]); deep[depth[v]] += own[2 * v + 1] + NODESEP; }
    for (k = 0; k < forward.length; k += 2) {
      for (var l = Math.min(depth[forward[k]], depth[forward[k + 1]]) + 1; l < Math.max(depth[forward[k]], depth[forward[k + 1]]); l++) deep[l] += EDGESEP;
    }
    var along = -RANKSEP, across = 0;
    for (l = 0; l < layers; l++) { along += wide[l] + RANKSEP; across = Math.max(across, deep[l]); }
    return along * across;
  }

  // A loop's cards at the centres ``keep`` (x, y per member) puts them: their offsets in its box, and its size.
  function inRows(keep, members, sizes) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, off = new Float64Array(2 * members.length), k, i;
    for (k = 0; k < members.length; k++) {
      i = members[k];
      x0 = Math.min(x0, keep[2 * k] - sizes[2 * i] / 2); x1 = Math.max(x1, keep[2 * k] + sizes[2 * i] / 2);
      y0 = Math.min(y0, keep[2 * k + 1] - sizes[2 * i + 1] / 2); y1 = Math.max(y1, keep[2 * k + 1] + sizes[2 * i + 1] / 2);
    }
    for (k = 0; k < members.length; k++) { off[2 * k] = keep[2 * k] - x0; off[2 * k + 1] = keep[2 * k + 1] - y0; }
    return { xy: off, width: x1 - x0, height: y1 - y0 };
  }

  function run(job, dagre) {
    var sizes = job.sizes, n = sizes.length / 2, blocks = job.blocks, b, k, i;
    var inner = blockLayout(job, dagre), blockSizes = inner.sizes, offsets = inner.offsets;
    var xy = new Float64Array(2 * n), right = 0, bottom = 0;
    if (blocks.length) {
      var drawn = pieced(dagre, job.direction, blockSizes, blocks.length, job.arcs, RANKER);
      var plain = wrapped(drawn, blockSizes, job.direction, false), placed = folded(plain, blockSizes, job.direction);
      // a drawing that is folded, or mostly empty, has its long layers wrapped for the bands it is
      // folded into, when that shows it larger: a long chain from a cause of hundreds of effects,
      // wrapped for the drawing unfolded, had that layer in one column as tall as the chain was
      // long (or, top to bottom, an L of the chain and a row as long), 0.1–0.5 % of it cards
      var area = 0;
      for (b = 0; b < blocks.length; b++) area += blockSizes[2 * b] * blockSizes[2 * b + 1];
      if (placed !== plain || area < MIN_FILL * placed.width * placed.height) {
        var refit = wrapped(drawn, blockSizes, job.direction, true);
        if (screenScore(refit.width, refit.height) < screenScore(placed.width, placed.height)) placed = refit;
      }
      for (b = 0; b < blocks.length; b++) {
        var left = placed.xy[2 * b] - blockSizes[2 * b] / 2, top = placed.xy[2 * b + 1] - blockSizes[2 * b + 1] / 2;
        for (k = 0; k < blocks[b].length; k++) {
          i = blocks[b][k];
          xy[2 * i] = left + offsets[b][2 * k]; xy[2 * i + 1] = top + offsets[b][2 * k + 1];
        }
      }
      right = placed.width; bottom = placed.height;
    }
    // cards with no directed edge: in rows after the drawing (below it, or right of it top to
    // bottom), each as wide (tall) as it is, the rows as long as make the drawing with them the
    // one a screen shows largest (a few dozen lengths tried, O(cards) each)
    var loose = job.loose;
    if (loose.length) {
      var lr = job.direction === "LR", along = lr ? 0 : 1, across = 1 - along, longest = 0, sum = 0, best = Infinity, limit = 0;
      for (k = 0; k < loose.length; k++) { longest = Math.max(longest, sizes[2 * loose[k] + along] + LOOSE_GAP); sum += sizes[2 * loose[k] + along] + LOOSE_GAP; }
      var shelves = function (cap) {  // each card's offset along its row, its row, and the rows' depths
        var at = new Float64Array(loose.length), row = new Int32Array(loose.length), depths = [0], x = 0;
        for (var q = 0; q < loose.length; q++) {
          var size = sizes[2 * loose[q] + along] + LOOSE_GAP;
          if (x > 0 && x + size > cap) { depths.push(0); x = 0; }
          at[q] = x; row[q] = depths.length - 1; x += size;
          depths[depths.length - 1] = Math.max(depths[depths.length - 1], sizes[2 * loose[q] + across] + LOOSE_GAP);
        }
        return { at: at, row: row, depths: depths };
      };
      var steps = 48;
      for (k = 0; k <= steps; k++) {
        var cap = longest * Math.pow(Math.max(1, sum / longest), k / steps), set = shelves(cap), deep = 0, wide = 0;
        for (var r = 0; r < set.depths.length; r++) deep += set.depths[r];
        for (var q2 = 0; q2 < loose.length; q2++) wide = Math.max(wide, set.at[q2] + sizes[2 * loose[q2] + along] + LOOSE_GAP);
        var score = !blocks.length ? screenScore(lr ? wide : deep, lr ? deep : wide) : lr
          ? screenScore(Math.max(right, wide), bottom + RANKSEP + deep)
          : screenScore(right + RANKSEP + deep, Math.max(bottom, wide));
        if (score < best - 1e-9) { best = score; limit = cap; }
      }
      var placedLoose = shelves(limit), start = [], offset = blocks.length ? (lr ? bottom : right) + RANKSEP : 0;
      for (k = 0; k < placedLoose.depths.length; k++) { start.push(offset); offset += placedLoose.depths[k]; }
      for (k = 0; k < loose.length; k++) {
        i = loose[k];
        var a0 = placedLoose.at[k] + (sizes[2 * i + along] + LOOSE_GAP) / 2, c0 = start[placedLoose.row[k]] + placedLoose.depths[placedLoose.row[k]] / 2;
        xy[2 * i + along] = a0; xy[2 * i + across] = c0;
      }
    }
    return xy;
  }

  // Wrap long layers: dagre's drawing, when its long side is more than MAX_ASPECT times its short one
  // because some layers hold many blocks, with each layer's blocks (in dagre's order) stacked in
  // columns no longer than a limit, the columns of a layer side by side and the layers in dagre's
  // order — so every arc still reads forwards. The limit is the one (of a few dozen tried, O(blocks)
  // each) whose drawing a screen ASPECT wide shows largest (then the smallest drawing). A layer's blocks share a
  // coordinate along the reading axis in dagre's drawing: that is how its layers are found.
  // With fold, each wrap is scored as the drawing folded() makes of it, and that folded drawing is
  // returned (a few dozen folds, each O(blocks log blocks + 256 · slabs); a wrap of as many columns
  // as the one before is the same drawing and is not folded again).
  function wrapped(placed, sizes, direction, fold) {
    var count = sizes.length / 2, lr = direction === "LR", a = lr ? 0 : 1, c = 1 - a, b, k;
    var w = placed.width, h = placed.height, area = 0;
    for (b = 0; b < count; b++) area += sizes[2 * b] * sizes[2 * b + 1];
    // (a drawing mostly empty — dagre spaces a layer's blocks for the long arcs passing — has its
    // layers stacked tight too, when that shows it larger: a random DAG of 33 cards was 9 % cards)
    var sparse = area < WRAP_FILL * w * h;
    if (count < 2 || (!fold && !sparse && Math.max(w, h) <= MAX_ASPECT * Math.max(1, Math.min(w, h)))) return placed;
    var order = [];
    for (b = 0; b < count; b++) order.push(b);
    order.sort(function (p, q) {
      return placed.xy[2 * p + a] - placed.xy[2 * q + a] || placed.xy[2 * p + c] - placed.xy[2 * q + c] || p - q;
    });
    var layers = [], last = NaN;
    for (k = 0; k < count; k++) {
      b = order[k];
      var at = Math.round(placed.xy[2 * b + a] * 2) / 2;  // (dagre centres a layer's blocks on one line)
      if (at !== last) { layers.push([]); last = at; }
      layers[layers.length - 1].push(b);
    }
    var longest = 0, total = 0;
    for (b = 0; b < count; b++) { longest = Math.max(longest, sizes[2 * b + c]); total += sizes[2 * b + c] + NODESEP; }
    function columns(limit) {  // each layer's columns: [blocks, along (width), across (height)]
      var out = [], i, j;
      for (i = 0; i < layers.length; i++) {
        var cols = [], col = null;
        for (j = 0; j < layers[i].length; j++) {
          var bb = layers[i][j], along = sizes[2 * bb + a], across = sizes[2 * bb + c];
          if (col === null || col.across + NODESEP + across > limit) { col = { blocks: [], along: 0, across: -NODESEP }; cols.push(col); }
          col.blocks.push(bb); col.along = Math.max(col.along, along); col.across += NODESEP + across;
        }
        out.push(cols);
      }
      return out;
    }
    function extent(layout) {
      var along = -RANKSEP, across = 0, i, j;
      for (i = 0; i < layout.length; i++) {
        along += RANKSEP - WRAP_GAP;
        for (j = 0; j < layout[i].length; j++) { along += WRAP_GAP + layout[i][j].along; across = Math.max(across, layout[i][j].across); }
      }
      return [along, across];
    }
    function place(layout) {
      var size = extent(layout), xy = new Float64Array(2 * count), start = 0, i, j, m;
      for (i = 0; i < layout.length; i++) {
        for (j = 0; j < layout[i].length; j++) {
          var column = layout[i][j], offset = (size[1] - column.across) / 2;
          for (m = 0; m < column.blocks.length; m++) {
            b = column.blocks[m];
            xy[2 * b + a] = start + column.along / 2;
            xy[2 * b + c] = offset + sizes[2 * b + c] / 2;
            offset += sizes[2 * b + c] + NODESEP;
          }
          start += column.along + WRAP_GAP;
        }
        start += RANKSEP - WRAP_GAP;
      }
      return { xy: xy, width: lr ? size[0] : size[1], height: lr ? size[1] : size[0] };
    }
    var best = null, bestScore = Infinity, steps = 48, seen = -1;
    for (k = 0; k <= steps; k++) {
      var limit = longest * Math.pow(Math.max(1, total / longest), k / steps);
      var layout = columns(limit), width, height, drawing = null;
      if (fold) {
        var many = 0;
        for (var i = 0; i < layout.length; i++) many += layout[i].length;
        if (many === seen) continue;
        seen = many; drawing = folded(place(layout), sizes, direction); width = drawing.width; height = drawing.height;
      } else {
        var e = extent(layout);
        width = lr ? e[0] : e[1]; height = lr ? e[1] : e[0];
      }
      var score = screenScore(width, height);
      if (score < bestScore - 1e-9) { best = drawing || layout; bestScore = score; }
    }
    if (fold) return best;
    var tight = place(best);
    return sparse && screenScore(tight.width, tight.height) >= screenScore(w, h) ? placed : tight;
  }

  // the area a screen of ASPECT must show to hold a drawing (what Fit zooms to), then its own
  function screenScore(width, height) {
    return Math.max(width, height * ASPECT) * Math.max(height, width / ASPECT) + 1e-3 * width * height;
  }

  // Fold a drawing still too long along the reading axis (many layers: a long chain) into bands
  // laid one after another across it, as lines of text are: the drawing is cut only between
  // layers (where no block spans the cut), each band starts again at the reading axis's origin,
  // and arcs read forwards inside a band and from one band to the next. The number of bands is
  // the one whose drawing a screen ASPECT wide shows largest (as in wrapped). O(blocks log blocks).
  function folded(placed, sizes, direction) {
    var count = sizes.length / 2, a = direction === "LR" ? 0 : 1, c = 1 - a, k, b;
    var along = a === 0 ? placed.width : placed.height, across = a === 0 ? placed.height : placed.width;
    if (count < 2 || along <= MAX_ASPECT * Math.max(1, across)) return placed;
    var order = [];
    for (b = 0; b < count; b++) order.push(b);
    function lo(q, axis) { return placed.xy[2 * q + axis] - sizes[2 * q + axis] / 2; }
    function hi(q, axis) { return placed.xy[2 * q + axis] + sizes[2 * q + axis] / 2; }
    order.sort(function (p, q) { return lo(p, a) - lo(q, a) || p - q; });
    var slabs = [], reach = -Infinity;  // runs of blocks along the axis with no gap between them
    for (k = 0; k < count; k++) {
      b = order[k];
      if (lo(b, a) >= reach) slabs.push({ blocks: [], start: lo(b, a), end: -Infinity, low: Infinity, high: -Infinity });
      var slab = slabs[slabs.length - 1];
      slab.blocks.push(b); slab.end = Math.max(slab.end, hi(b, a)); reach = Math.max(reach, hi(b, a));
      slab.low = Math.min(slab.low, lo(b, c)); slab.high = Math.max(slab.high, hi(b, c));
    }
    function bands(n) {  // the slabs in n bands of about equal length: [[first, last, length, depth]]
      var out = [], target = along / n, first = 0;
      for (var i = 0; i < slabs.length; i++) {
        var length = slabs[i].end - slabs[first].start;
        if (i === slabs.length - 1 || (length >= target && out.length < n - 1)) {
          var low = Infinity, high = -Infinity;
          for (var j = first; j <= i; j++) { low = Math.min(low, slabs[j].low); high = Math.max(high, slabs[j].high); }
          out.push([first, i, length, high - low, low]); first = i + 1;
        }
      }
      return out;
    }
    var best = null, bestScore = Infinity;
    for (var n = 1; n <= Math.min(slabs.length, 256); n++) {
      var cut = bands(n), long = 0, deep = -RANKSEP;
      for (k = 0; k < cut.length; k++) { long = Math.max(long, cut[k][2]); deep += cut[k][3] + RANKSEP; }
      var score = a === 0 ? screenScore(long, deep) : screenScore(deep, long);
      if (score < bestScore - 1e-9) { best = cut; bestScore = score; }
    }
    var xy = new Float64Array(placed.xy), offset = 0, longest = 0;
    for (k = 0; k < best.length; k++) {
      var band = best[k], start = slabs[band[0]].start;
      for (var s = band[0]; s <= band[1]; s++) {
        for (var m = 0; m < slabs[s].blocks.length; m++) {
          b = slabs[s].blocks[m];
          xy[2 * b + a] -= start; xy[2 * b + c] += offset - band[4];
        }
      }
      offset += band[3] + RANKSEP; longest = Math.max(longest, band[2]);
    }
    offset -= RANKSEP;
    return { xy: xy, width: a === 0 ? longest : offset, height: a === 0 ? offset : longest };
  }

  root.bendscopeArrange = { run: run, blockLayout: blockLayout, pieced: pieced, wrapped: wrapped, folded: folded, RANKER: RANKER };
})(typeof globalThis !== "undefined" ? globalThis : this);

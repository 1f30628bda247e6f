// Frames while a bounded set of cards moves (a drag, a local reheat): what does not move is
// drawn once into an offscreen layer, and each frame is that layer copied plus the moving part
// drawn over it (static/scene.js geometry with ``only`` / ``side``), then the pulses of every
// card in view and the gesture's marks. app/painter.py calls ``paint`` for such frames, and
// ``prime`` at rest to draw the layer ahead of a drag's press (app/ahead.py).
//
// The layer is drawn again whole when anything it shows may have changed: the plan (any of its
// setters ran: styles, flags, selection, art, the theme, the document — but for a change to
// the flags, art, pin or size of cards the layer leaves out alone, such as selecting or dropping
// the held card, or cards and edges appended among them, such as a live change's:
// ``plan.touched``), the view (camera, size,
// pixel ratio, grid, pins), the set of moving cards grew, or a card the layer shows moved (a
// card held by a local reheat can make way for a moving one). So a frame costs the copy, the
// moving cards with the edges and halo bands touching them, and the pulses — not the graph.
// The moving part goes on top: where it overlaps what does not move, the order differs from a
// whole frame (a moving edge is drawn over a card that does not move, a moving card's halo is a
// plain fill over the region's); everywhere else the pixels are those of a whole frame
// (``footprint`` bounds where they may differ). At rest frames are drawn whole (the painter).
(function (root) {
  "use strict";

  var TILE = 16;  // device px: a footprint is whole tiles
  var EDGE_PX = 3;  // device px around every footprint box (antialiasing)

  // what every pixel of the layer depends on besides the plan and the positions
  function viewKey(env) {
    return [env.cx, env.cy, env.zoom, env.width, env.height, env.dpr, env.pins !== false, env.background, env.grid,
      env.skip ? JSON.stringify(env.skip) : ""].join("|");
  }

  // Whether the layer must be drawn again, and the moving flags (one per card) it is drawn for.
  // ``moving``: the indices of the cards the layout may move; ``kept``: the layer holds the
  // last layer drawn for this plan. Records the layer's state on the plan. O(n)
  function prepare(plan, xy, env, moving, kept) {
    var n = plan.n, last = plan.layer, key = (plan.rev || 0) + "#" + viewKey(env), i, reason = "";
    var only = new Uint8Array(n);
    for (i = 0; i < moving.length; i++) if (moving[i] < n) only[moving[i]] = 1;
    if (!kept || !last) reason = "nothing kept";
    else if (last.key !== key) reason = last.key.split("#")[0] !== key.split("#")[0] ? "plan" : "view";
    else if ((last.xy.length !== xy.length || last.only.length !== n) && !appended(last, xy, n, only)) reason = "cards";
    else if (!leftOut(last.only, plan.touched || [], last.touched)) reason = "plan";
    else {
      var joined = 0, moved = 0;  // cards that move now, cards the layer shows that moved
      for (i = 0; i < n; i++) {
        if (last.only[i]) { only[i] = 1; continue; }
        if (only[i]) joined++;
        else if (last.xy[2 * i] !== xy[2 * i] || last.xy[2 * i + 1] !== xy[2 * i + 1]) { only[i] = 1; moved++; }
      }
      if (joined || moved) reason = "moved";
    }
    if (reason) {
      plan.touched = [];
      plan.layer = { key: key, only: only, xy: Float64Array.from(xy), drawn: null, rebuilt: (last ? last.rebuilt : 0) + 1, touched: 0,
        grew: reason === "moved" ? [joined, moved] : null };
    }
    plan.layer.reason = reason || "kept";
    return plan.layer;
  }

  // Cards appended to the plan since the layer was drawn (a live change) that all move now: the
  // layer never showed them, so it stays good for what it shows; it is extended to leave them
  // out (their positions noted). Whether it was. O(n)
  function appended(last, xy, n, only) {
    var was = last.only.length, i;
    if (n <= was || xy.length !== 2 * n || last.xy.length !== 2 * was) return false;
    for (i = was; i < n; i++) if (!only[i]) return false;
    var out = new Uint8Array(n), at = new Float64Array(2 * n);
    out.set(last.only); at.set(last.xy);
    for (i = was; i < n; i++) { out[i] = 1; at[2 * i] = xy[2 * i]; at[2 * i + 1] = xy[2 * i + 1]; }
    last.only = out; last.xy = at;
    return true;
  }

  // Whether every card changed since the layer was drawn (``touched`` from ``since`` on: the
  // cards whose flags, art, pin or size alone changed, static/scene.js) is one the layer leaves out.
  function leftOut(only, touched, since) {
    if (touched.length < since) return false;  // (the list was started again: anything may have changed)
    for (var i = since; i < touched.length; i++) if (!only[touched[i]]) return false;
    return true;
  }

  function background(ctx, env) {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
    var W = env.width * env.dpr, H = env.height * env.dpr;
    ctx.fillStyle = env.background;
    ctx.fillRect(0, 0, W, H);
    if (env.grid) { ctx.fillStyle = env.pattern; ctx.fillRect(0, 0, W, H); }
  }

  function withSide(view, only, side) {
    var out = {};
    for (var name in view) out[name] = view[name];
    out.only = only; out.side = side;
    return out;
  }

  function flatEnv(env) {
    var flat = {};
    for (var name in env) flat[name] = env[name];
    flat.layered = true;  // (pulses drawn last, over both parts)
    return flat;
  }

  // The layer made good for ``moving`` (drawn again if it must be), the size of ``canvas``.
  function ensure(canvas, layer, plan, xy, view, env, moving, kept) {
    var state = prepare(plan, xy, env, moving, kept);
    if (!state.drawn) {
      var S = root.bendscopeScene;
      if (layer.width !== canvas.width || layer.height !== canvas.height) {
        layer.width = canvas.width; layer.height = canvas.height;
      }
      var lctx = layer.getContext("2d");
      background(lctx, env);
      state.drawn = S.draw(lctx, plan, S.geometry(plan, xy, withSide(view, state.only, 0)), flatEnv(env));
    }
    return state;
  }

  // Draw the layer ahead, at rest, for the cards a coming gesture will move (a drag of the
  // hovered card), so that its press frame only copies it. A layer kept for another set of
  // cards is drawn afresh for exactly ``moving`` (a kept one leaves out every card it ever
  // left out). What ``prepare`` said: "kept" when the layer was good already. O(n), plus
  // the layer's drawing when it was not.
  function prime(canvas, layer, plan, xy, view, env, moving, kept) {
    var state = ensure(canvas, layer, plan, xy, view, env, moving, kept && leavesOut(plan, moving));
    // (a canvas only records what is drawn on it until it is read or drawn from: read one pixel,
    // so that the layer is rasterised now, not in the press's frame when it is first copied)
    if (state.reason !== "kept") layer.getContext("2d").getImageData(0, 0, 1, 1);
    return state.reason;
  }

  // Whether the plan's last layer leaves out exactly the cards ``moving`` (indices). O(n)
  function leavesOut(plan, moving) {
    var last = plan.layer, i;
    if (!last || last.only.length !== plan.n) return false;
    var want = new Uint8Array(plan.n), count = 0, left = 0;
    for (i = 0; i < moving.length; i++) if (moving[i] < plan.n && !want[moving[i]]) { want[moving[i]] = 1; count++; }
    for (i = 0; i < plan.n; i++) {
      if (!last.only[i]) continue;
      if (!want[i]) return false;
      left++;
    }
    return left === count;
  }

  // One frame: the layer (drawn again if it must be) copied onto ``ctx``, the moving part over
  // it, then every pulse in view. ``layer``: the offscreen canvas; view and env as for scene.js
  // geometry and draw (env.pattern: the grid's pattern, env.grid: its key, "" for none).
  // Returns {geometry (the moving part's), transform, cards, pulses, markers, shownEdges, tags, reason}.
  function paint(ctx, layer, plan, xy, view, env, moving, kept) {
    var S = root.bendscopeScene, state = ensure(ctx.canvas, layer, plan, xy, view, env, moving, kept);
    var flat = flatEnv(env);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalCompositeOperation = "copy";
    ctx.drawImage(layer, 0, 0);
    ctx.globalCompositeOperation = "source-over";
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
    var g = S.geometry(plan, xy, withSide(view, state.only, 1)), fixed = state.drawn;
    var drawn = S.draw(ctx, plan, g, flat);
    S.repulse(ctx, plan, drawn.transform, fixed.pulseRects.concat(drawn.pulseRects), view.pulse, drawn.pulseRadius || fixed.pulseRadius);
    var t = drawn.transform;
    ctx.setTransform(t[0], t[1], t[2], t[3], t[4], t[5]);
    return {
      geometry: g, transform: t, cards: fixed.cards + drawn.cards, pulses: fixed.pulses + drawn.pulses,
      markers: fixed.markers.concat(drawn.markers), shownEdges: fixed.shownEdges.concat(drawn.shownEdges),
      tags: fixed.tags.concat(drawn.tags), reason: state.reason, rebuilt: state.rebuilt, moving: moving.length,
    };
  }

  // Where a frame drawn by ``paint`` may differ from the same frame drawn whole: whole tiles
  // around the moving cards (with their halo padding) and along the edges and halo bands that
  // touch them, as device-pixel rectangles [x, y, w, h, …]. O(n + m + halo pairs)
  function footprint(plan, xy, env) {
    var only = plan.layer ? plan.layer.only : new Uint8Array(plan.n), c = plan.c, n = plan.n, i, k;
    var zoom = env.zoom, k0 = env.dpr * zoom;
    var tx = env.dpr * (env.width / 2 - env.cx * zoom), ty = env.dpr * (env.height / 2 - env.cy * zoom);
    var W = Math.round(env.width * env.dpr), H = Math.round(env.height * env.dpr);
    var cols = Math.ceil(W / TILE), rows = Math.ceil(H / TILE), tiles = new Uint8Array(cols * rows);
    function box(x0, y0, x1, y1, pad) {
      var l = Math.floor((k0 * (x0 - pad) + tx - EDGE_PX) / TILE), t = Math.floor((k0 * (y0 - pad) + ty - EDGE_PX) / TILE);
      var r = Math.floor((k0 * (x1 + pad) + tx + EDGE_PX) / TILE), b = Math.floor((k0 * (y1 + pad) + ty + EDGE_PX) / TILE);
      for (var row = Math.max(0, t); row <= Math.min(rows - 1, b); row++) {
        for (var col = Math.max(0, l); col <= Math.min(cols - 1, r); col++) tiles[row * cols + col] = 1;
      }
    }
    function line(ax, ay, bx, by, pad) {
      var pieces = Math.max(1, Math.min(256, Math.ceil(Math.sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay)) * k0 / TILE)));
      for (var p = 0; p < pieces; p++) {
        var x0 = ax + (bx - ax) * p / pieces, y0 = ay + (by - ay) * p / pieces;
        var x1 = ax + (bx - ax) * (p + 1) / pieces, y1 = ay + (by - ay) * (p + 1) / pieces;
        box(Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1), pad);
      }
    }
    var sizes = plan.sizes;
    for (i = 0; i < n; i++) {
      if (!only[i]) continue;
      var hw = sizes[2 * i] / 2, hh = sizes[2 * i + 1] / 2;
      box(xy[2 * i] - hw, xy[2 * i + 1] - hh, xy[2 * i] + hw, xy[2 * i + 1] + hh, c.haloPad + 8);
    }
    var e = plan.edges;
    for (var j = 0; e && j < e.a.length; j++) {
      var a = e.a[j], b = e.b[j];
      if (!only[a] && !only[b]) continue;
      line(xy[2 * a], xy[2 * a + 1], xy[2 * b], xy[2 * b + 1], 8 + e.width[j] + e.arrow[j] + 5 * Math.abs(e.offset[j]));
    }
    for (var h = 0; h < plan.halos.length; h++) {
      var pairs = plan.halos[h].pairs;
      for (k = 0; k < pairs.length; k += 2) {
        var pa = pairs[k], pb = pairs[k + 1];
        if (only[pa] || only[pb]) line(xy[2 * pa], xy[2 * pa + 1], xy[2 * pb], xy[2 * pb + 1], c.haloBand + 4);
      }
    }
    var out = [];
    for (i = 0; i < tiles.length; i++) {
      if (tiles[i]) out.push((i % cols) * TILE, Math.floor(i / cols) * TILE, TILE, TILE);
    }
    return out;
  }

  // How many pixels of two RGBA images (``width`` px wide) differ by more than ``tolerance`` in
  // a channel, outside the rectangles ``except`` [x, y, w, h, …] (tests); -1 when the sizes
  // differ. ``differ.at``: the first few such pixels [x, y, r, g, b, r, g, b].
  function differ(a, b, width, except, tolerance) {
    if (a.length !== b.length) return -1;
    var skip = new Uint8Array(a.length / 4), count = 0, i, at = differ.at = [], most = tolerance || 0;
    for (i = 0; except && i < except.length; i += 4) {
      for (var y = except[i + 1]; y < except[i + 1] + except[i + 3]; y++) {
        for (var x = except[i]; x < Math.min(width, except[i] + except[i + 2]); x++) skip[y * width + x] = 1;
      }
    }
    for (i = 0; i < a.length; i += 4) {
      if (skip[i / 4]) continue;
      if (Math.abs(a[i] - b[i]) > most || Math.abs(a[i + 1] - b[i + 1]) > most || Math.abs(a[i + 2] - b[i + 2]) > most ||
          Math.abs(a[i + 3] - b[i + 3]) > most) {
        if (count < 8) at.push([(i / 4) % width, Math.floor(i / 4 / width), a[i], a[i + 1], a[i + 2], b[i], b[i + 1], b[i + 2]]);
        count++;
      }
    }
    return count;
  }

  root.bendscopeDamage = { prepare: prepare, prime: prime, leavesOut: leavesOut, paint: paint, footprint: footprint, differ: differ, TILE: TILE };
})(typeof globalThis !== "undefined" ? globalThis : this);

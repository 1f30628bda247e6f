// The page's scene geometry and drawing: what bend.scene.build_scene + bend.drawlist.draw_list
// compute in Python (the reference, tested under CPython), computed here for every frame from a
// scene plan (bend/render/sceneplan.py: everything that does not depend on positions, sent when it
// changes) and the frame's positions, so no Python runs per item per frame. tests/support/scene_geometry.js
// runs `geometry` in node and tests/test_scene_geometry.py checks it against Python's draw list.
//
// Culling: halo parts, edges and cards outside the view are skipped before any geometry, so
// the cost of a frame grows with what is visible. Levels of detail by zoom: "detail", "greek"
// (text as bars), "far" (boxes only, hairline edges, plain halo fills). Path builders never
// call closePath (in Chromium it costs O(path length), which made long paths quadratic):
// a fill closes every subpath by itself, and an outline is closed with a lineTo.
(function (root) {
  "use strict";

  // ---------------------------------------------------------------- path builders (O(items))
  var CHUNK = 4096;
  var HAIRLINE = 0.99;  // device px
  var FAR_BUFFER = 8000;  // far out, more lines than this in view are drawn at half resolution
  var FAR_BAND_HAIRS = 3;  // far out, halo bands up to this many device px wide are drawn as hairlines
  var paths = {
    Path: null,  // the Path2D constructor (tests count its calls)
    make: function () { return new (paths.Path || root.Path2D)(); },
    // line segments [ax, ay, bx, by, …] stroked in paths of at most CHUNK segments (one huge
    // path costs the rasteriser far more than several)
    strokeSegments: function (ctx, flat) {
      for (var start = 0; start < flat.length; start += 4 * CHUNK) {
        var p = paths.make(), end = Math.min(flat.length, start + 4 * CHUNK);
        for (var i = start; i < end; i += 4) { p.moveTo(flat[i], flat[i + 1]); p.lineTo(flat[i + 2], flat[i + 3]); }
        ctx.stroke(p);
      }
    },
    // wide lines one by one: a long line crossing the view costs far less in a path of its own.
    // A line that stands alone (an edge's: it ends under a card or inside its arrowhead, where a
    // round cap cannot be seen) gets butt caps: Skia's software path fills it as a plain
    // four-sided polygon, ~40 % less raster than with round caps; the pieces of a curve (a line
    // beginning where the one before ends, or ending where the next begins) keep round caps,
    // which close the joints between them.
    strokeEach: function (ctx, flat) {
      var round = ctx.lineCap;
      for (var i = 0; i < flat.length; i += 4) {
        var joined = (i > 0 && flat[i] === flat[i - 2] && flat[i + 1] === flat[i - 1]) ||
          (i + 4 < flat.length && flat[i + 2] === flat[i + 4] && flat[i + 3] === flat[i + 5]);
        ctx.lineCap = joined ? round : "butt";
        ctx.beginPath(); ctx.moveTo(flat[i], flat[i + 1]); ctx.lineTo(flat[i + 2], flat[i + 3]); ctx.stroke();
      }
      ctx.lineCap = round;
    },
    fillTriangles: function (ctx, flat) {
      for (var start = 0; start < flat.length; start += 6 * CHUNK) {
        var p = paths.make(), end = Math.min(flat.length, start + 6 * CHUNK);
        for (var i = start; i < end; i += 6) {
          p.moveTo(flat[i], flat[i + 1]); p.lineTo(flat[i + 2], flat[i + 3]); p.lineTo(flat[i + 4], flat[i + 5]);
        }
        ctx.fill(p);
      }
    },
    rects: function (flat, radius) {
      var p = paths.make();
      for (var i = 0; i < flat.length; i += 4) {
        if (radius > 0) p.roundRect(flat[i], flat[i + 1], flat[i + 2], flat[i + 3], Math.min(radius, flat[i + 3] / 2));
        else p.rect(flat[i], flat[i + 1], flat[i + 2], flat[i + 3]);
      }
      return p;
    },
    // A halo: member boxes and the bands between them in one path; all clockwise, so a nonzero
    // fill (and clip) is their union. Each band is closed by a lineTo to its first corner.
    halo: function (rects, quads, radius) {
      var p = paths.make(), i;
      for (i = 0; i < rects.length; i += 4) {
        if (radius > 0) p.roundRect(rects[i], rects[i + 1], rects[i + 2], rects[i + 3], radius);
        else p.rect(rects[i], rects[i + 1], rects[i + 2], rects[i + 3]);
      }
      for (i = 0; i < quads.length; i += 8) {
        p.moveTo(quads[i], quads[i + 1]);
        p.lineTo(quads[i + 2], quads[i + 3]); p.lineTo(quads[i + 4], quads[i + 5]); p.lineTo(quads[i + 6], quads[i + 7]);
        p.lineTo(quads[i], quads[i + 1]);
      }
      return p;
    },
    tops: function (flat, radius, band) {
      var p = paths.make();
      for (var i = 0; i < flat.length; i += 3) p.roundRect(flat[i], flat[i + 1], flat[i + 2], band, [radius, radius, 0, 0]);
      return p;
    },
    dots: function (flat, radius) {
      var p = paths.make();
      for (var i = 0; i < flat.length; i += 2) {
        p.moveTo(flat[i] + radius, flat[i + 1]);
        p.arc(flat[i], flat[i + 1], radius, 0, 2 * Math.PI);
      }
      return p;
    },
    texts: function (ctx, font, color, texts, xy) {
      ctx.font = font; ctx.fillStyle = color;
      for (var i = 0; i < texts.length; i++) ctx.fillText(texts[i], xy[2 * i], xy[2 * i + 1]);
    },
  };

  // ---------------------------------------------------------------- the plan
  function createPlan() {
    return {
      strings: [],  // interned fonts and colours (bend.sceneplan keeps the same table)
      c: null,  // constants (theme, sizes, thresholds)
      ids: [], at: new Map(), n: 0, sizes: new Float64Array(0), stargate: new Uint8Array(0), pinned: new Uint8Array(0),
      art: new Map(),  // node id → {items: Float64Array (font, colour, dx, dy), texts: [...], header, bars, decos}
      edges: null, labels: null, halos: [],
      flags: new Uint8Array(0), selectedEdge: -1, faults: new Uint8Array(0),
      markers: [], shown: new Uint8Array(0), loopColor: "", tags: [],
    };
  }
  var SELECTED = 1, PULSING = 2, DIMMED = 4, EDITING = 8;

  function intern(plan, added) { for (var i = 0; i < added.length; i++) plan.strings.push(added[i]); }

  // ``old`` followed by ``extra``, in a new typed array of old's type. O(n)
  function grown(old, extra) {
    if (!ArrayBuffer.isView(old)) return Array.from(old).concat(Array.from(extra));  // (plain arrays: the tests' driver)
    var out = new old.constructor(old.length + extra.length);
    out.set(old); out.set(extra, old.length);
    return out;
  }

  // a number per (colour, width), in order of first use: the batch an edge goes to (see setEdges);
  // ``from``: the edges before it are as they were (appended edges: O(those), their styles kept). O(m)
  function restyle(plan, from) {
    var e = plan.edges, style = new Int32Array(e.a.length), styles = from ? e.styles : new Map(), start = from || 0;
    if (from) style.set(e.style.subarray(0, from));
    for (var j = start; j < e.a.length; j++) {
      var skey = e.color[j] + "|" + e.width[j], s = styles.get(skey);
      if (s === undefined) { s = styles.size + 2; styles.set(skey, s); }
      style[j] = s;
    }
    e.style = style; e.styles = styles;
  }

  var api = {
    createPlan: createPlan,
    setConstants: function (plan, c) { plan.c = c; },
    // node order (index → id), card sizes [w, h, …], stargate and pinned flags per node
    setNodes: function (plan, ids, sizes, stargate, pinned) {
      plan.ids = Array.from(ids); plan.n = plan.ids.length; plan.sizes = sizes; plan.stargate = stargate; plan.pinned = pinned;
      plan.at = new Map();  // id → index
      for (var i = 0; i < plan.n; i++) plan.at.set(plan.ids[i], i);
      if (plan.flags.length !== plan.n) plan.flags = new Uint8Array(plan.n);
    },
    // cards' art: per card in nums [nItems, hasHeader, nBars, nDecos, items (font, colour, dx,
    // dy)…, bars (x, y, w, h)…, decorations (colour, x, y, w, h)…], item texts in ``texts``
    // (returns the indices of those cards: only they look different)
    setArt: function (plan, added, ids, nums, texts) {
      intern(plan, added);
      var cards = [];
      var at = 0, t = 0;
      for (var k = 0; k < ids.length; k++) {
        var nItems = nums[at], hasHeader = nums[at + 1], nBars = nums[at + 2], nDecos = nums[at + 3];
        at += 4;
        var items = nums.slice(at, at + 4 * nItems); at += 4 * nItems;
        var bars = nums.slice(at, at + 4 * nBars); at += 4 * nBars;
        var decos = nums.slice(at, at + 5 * nDecos); at += 5 * nDecos;
        plan.art.set(ids[k], { items: items, texts: texts.slice(t, t + nItems), header: hasHeader, bars: bars, decos: decos });
        t += nItems;
        if (plan.at.has(ids[k])) cards.push(plan.at.get(ids[k]));
      }
      return cards;
    },
    // cards added at the end of the plane's order (as setNodes takes them, for those alone)
    // (returns their indices: nothing else looks different)
    appendNodes: function (plan, ids, sizes, stargate, pinned) {
      var cards = [];
      for (var i = 0; i < ids.length; i++) { cards.push(plan.ids.length); plan.at.set(ids[i], plan.ids.length); plan.ids.push(ids[i]); }
      plan.n = plan.ids.length;
      plan.sizes = grown(plan.sizes, sizes); plan.stargate = grown(plan.stargate, stargate);
      plan.pinned = grown(plan.pinned, pinned);
      if (plan.flags.length !== plan.n) plan.flags = grown(plan.flags, new Uint8Array(plan.n - plan.flags.length));
      return cards;
    },
    // cards whose size or flags changed: their indices, [w, h, …], stargate and pinned flags
    // (returns them: only those cards look different)
    patchNodes: function (plan, index, sizes, stargate, pinned) {
      for (var i = 0; i < index.length; i++) {
        var k = index[i];
        plan.sizes[2 * k] = sizes[2 * i]; plan.sizes[2 * k + 1] = sizes[2 * i + 1];
        plan.stargate[k] = stargate[i]; plan.pinned[k] = pinned[i];
      }
      return Array.from(index);
    },
    forgetArt: function (plan, ids) { for (var k = 0; k < ids.length; k++) plan.art.delete(ids[k]); },
    // edges in the plane's order: endpoints (indices), colour (interned), width, arrow size (0:
    // undirected), signed parallel offset; labels: edge index, width, border colour, text;
    // polarity per edge (0 none, 1 +, 2 −)
    setEdges: function (plan, added, a, b, color, width, arrow, offset, labelEdge, labelWidth, labelBorder, labelText, polarity) {
      intern(plan, added);
      var label = new Int32Array(a.length).fill(-1);
      for (var i = 0; i < labelEdge.length; i++) label[labelEdge[i]] = i;
      // a number per (colour, width): the batch an edge goes to, without building strings per frame
      var style = new Int32Array(a.length), styles = new Map();
      for (var j = 0; j < a.length; j++) {
        var skey = color[j] + "|" + width[j], s = styles.get(skey);
        if (s === undefined) { s = styles.size + 2; styles.set(skey, s); }
        style[j] = s;
      }
      plan.edges = { a: a, b: b, color: color, width: width, arrow: arrow, offset: offset, label: label, style: style,
        styles: styles, polarity: polarity || new Int8Array(a.length) };
      plan.labels = { width: labelWidth, border: labelBorder, text: Array.from(labelText) };
      if (plan.faults.length !== a.length) plan.faults = new Uint8Array(a.length);
      if (plan.shown.length !== a.length) plan.shown = new Uint8Array(a.length);
    },
    // edges added at the end (as setEdges takes them, for those alone: labelEdge holds their
    // indices among all the edges) (returns their cards: the edges before keep their batches,
    // so only the new edges, at those cards, look different)
    appendEdges: function (plan, added, a, b, color, width, arrow, offset, labelEdge, labelWidth, labelBorder, labelText, polarity) {
      if (!plan.edges) { api.setEdges(plan, added, a, b, color, width, arrow, offset, labelEdge, labelWidth, labelBorder, labelText, polarity); return null; }
      intern(plan, added);
      var e = plan.edges, l = plan.labels, i, held = e.a.length;
      e.a = grown(e.a, a); e.b = grown(e.b, b); e.color = grown(e.color, color); e.width = grown(e.width, width);
      e.arrow = grown(e.arrow, arrow); e.offset = grown(e.offset, offset); e.polarity = grown(e.polarity, polarity);
      e.label = grown(e.label, new Int32Array(a.length).fill(-1));
      for (i = 0; i < labelEdge.length; i++) e.label[labelEdge[i]] = l.text.length + i;
      l.width = grown(l.width, labelWidth); l.border = grown(l.border, labelBorder);
      for (i = 0; i < labelText.length; i++) l.text.push(labelText[i]);
      restyle(plan, held);  // (numbers in order of first use: the edges before keep theirs)
      plan.faults = grown(plan.faults, new Uint8Array(a.length)); plan.shown = grown(plan.shown, new Uint8Array(a.length));
      return Array.from(a).concat(Array.from(b));
    },
    // edges changed in place: their indices, then their rows as setEdges takes them; labelAt:
    // the index in the label arrays of each of them that has a label, in order
    patchEdges: function (plan, added, index, a, b, color, width, arrow, offset, polarity, labelAt, labelWidth, labelBorder, labelText) {
      intern(plan, added);
      var e = plan.edges, l = plan.labels, i;
      for (i = 0; i < index.length; i++) {
        var k = index[i];
        e.a[k] = a[i]; e.b[k] = b[i]; e.color[k] = color[i]; e.width[k] = width[i]; e.arrow[k] = arrow[i];
        e.offset[k] = offset[i]; e.polarity[k] = polarity[i];
      }
      for (i = 0; i < labelAt.length; i++) {
        l.width[labelAt[i]] = labelWidth[i]; l.border[labelAt[i]] = labelBorder[i]; l.text[labelAt[i]] = labelText[i];
      }
      restyle(plan);
    },
    // halos of the κ > 0 SCCs, packed (bend/render/sceneplan.py ``_halos``: one crossing however
    // many): kept as [{members, pairs (flat index pairs), fill, farFill, stroke, badge, badgeWidth}]
    setHalos: function (plan, packed) {
      var out = [], ends = packed.memberEnds, pairEnds = packed.pairEnds, m = 0, p = 0;
      for (var h = 0; h < ends.length; h++) {
        var style = packed.styles[packed.style[h]];
        out.push({ members: packed.members.slice(m, ends[h]), pairs: packed.pairs.slice(p, pairEnds[h]),
          fill: style.fill, farFill: style.farFill, stroke: style.stroke, badge: packed.badges[h],
          badgeWidth: packed.badgeWidths[h] });
        m = ends[h]; p = pairEnds[h];
      }
      plan.halos = out;
    },
    // loop markers: [{members (node indices in loop order), label ("R1"), color}]
    // (returns no card when they are the markers already set: nothing looks different)
    setMarkers: function (plan, markers) {
      var next = Array.from(markers), was = plan.markers, i, k, alike = next.length === was.length;
      for (i = 0; alike && i < next.length; i++) {
        var p = next[i], q = was[i];
        alike = p.label === q.label && p.color === q.color && p.members.length === q.members.length;
        for (k = 0; alike && k < p.members.length; k++) alike = p.members[k] === q.members[k];
      }
      plan.markers = next;
      return alike ? [] : null;
    },
    // name tags: [{node (index), text, width (its width in c.tagFont, screen px)}], drawn where
    // cards' text is bars or boxes (bend.render.sceneplan ScenePlanner._tags)
    setTags: function (plan, tags) {
      plan.tags = Array.from(tags);
      return null;
    },
    // per node: 1 selected, 2 in a κ > 0 SCC (pulses), 4 faded by find, 8 being edited;
    // the selected edge's index (-1: none); fault-line edges' indices; the shown loop's edges
    // (drawn in ``loopColor``) and the edges shown as breaking every loop
    // (returns the cards whose flags changed when nothing else did: only they look different)
    setFlags: function (plan, flags, selectedEdge, faults, loopEdges, cutEdges, loopColor) {
      var m = plan.edges ? plan.edges.a.length : 0, i;
      var fault = new Uint8Array(m), shown = new Uint8Array(m);  // shown: 1 on the shown loop, 2 breaks every loop
      for (i = 0; i < faults.length; i++) fault[faults[i]] = 1;
      for (i = 0; loopEdges && i < loopEdges.length; i++) shown[loopEdges[i]] = 1;
      for (i = 0; cutEdges && i < cutEdges.length; i++) shown[cutEdges[i]] = 2;
      var changed = null;
      if (selectedEdge === plan.selectedEdge && (loopColor || "") === plan.loopColor && flags.length === plan.flags.length &&
          same(fault, plan.faults) && same(shown, plan.shown)) {
        changed = [];
        for (i = 0; i < flags.length; i++) if (flags[i] !== plan.flags[i]) changed.push(i);
      }
      plan.flags = flags; plan.selectedEdge = selectedEdge; plan.faults = fault; plan.shown = shown;
      plan.loopColor = loopColor || "";
      return changed;
    },
    geometry: geometry,
    draw: draw,
    repulse: repulse,
    paths: paths,
  };

  // every setter counts on ``plan.rev`` (a kept layer is drawn again after any, static/damage.js),
  // but a change to some cards' flags, art, pin or size alone, cards or edges appended, or the
  // same markers again: it lists those cards in
  // ``plan.touched`` instead (a layer that leaves them out stays good). The list is kept to
  // a few times the cards (then it is a change to the plan).
  ["setConstants", "setNodes", "setArt", "appendNodes", "patchNodes", "forgetArt", "setEdges", "appendEdges",
    "patchEdges", "setHalos", "setMarkers", "setTags", "setFlags"].forEach(function (name) {
    var set = api[name];
    api[name] = function (plan) {
      var cards = set.apply(null, arguments), touched = plan.touched || (plan.touched = []);
      if (!cards || touched.length + cards.length > 4 * plan.n + 64) {
        plan.rev = (plan.rev || 0) + 1;
        plan.touched = [];
      } else {
        for (var i = 0; i < cards.length; i++) touched.push(cards[i]);
      }
    };
  });

  function same(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  function levelOfDetail(c, zoom) { return zoom < c.farZoom ? "far" : zoom < c.greekZoom ? "greek" : "detail"; }

  // ---------------------------------------------------------------- geometry (build_scene + draw_list)
  // view: {cx, cy, zoom, width, height, pulse (the frame's pulse value)}; xy: x, y per node.
  function geometry(plan, xy, view) {
    var c = plan.c, zoom = view.zoom;
    var halfW = view.width / 2 / zoom, halfH = view.height / 2 / zoom;
    var v0 = view.cx - halfW, v1 = view.cy - halfH, v2 = view.cx + halfW, v3 = view.cy + halfH;
    var lod = levelOfDetail(c, zoom);
    var sizes = plan.sizes, n = plan.n;
    var out = { lod: lod, halos: [], edges: [], arrows: [], labels: [], badges: [], dim: [], cards: null, markers: [],
      tags: [], shownEdges: [] };

    // -- halos (each part culled to the view)
    var pad = c.haloPad, bandHalf = c.haloBand, reach = 4.0 / zoom;
    var cx0 = v0 - reach, cy0 = v1 - reach, cx1 = v2 + reach, cy1 = v3 + reach;
    var layers = new Map();
    // view.only (one flag per card, 1: it moves) and view.side: draw only what does not move (0)
    // or only what does (1: cards, the edges and bands touching them, their halos filled plainly)
    var only = view.only || null, side = view.side ? 1 : 0, touched;
    function mine(a, b) { return !only || ((only[a] | only[b]) ? 1 : 0) === side; }
    for (var h = 0; h < plan.halos.length; h++) {
      var halo = plan.halos[h], members = halo.members;
      if (!members.length) continue;
      var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, m, i, k;
      for (k = 0, touched = 0; k < members.length; k++) {
        i = members[k];
        if (only && only[i]) touched = 1;
        var hw = sizes[2 * i] / 2, hh = sizes[2 * i + 1] / 2, nx = xy[2 * i], ny = xy[2 * i + 1];
        if (nx - hw < x0) x0 = nx - hw;
        if (ny - hh < y0) y0 = ny - hh;
        if (nx + hw > x1) x1 = nx + hw;
        if (ny + hh > y1) y1 = ny + hh;
      }
      x0 -= pad; y0 -= pad; x1 += pad; y1 += pad;
      if (!(x1 >= v0 && x0 <= v2 && y1 >= v1 && y0 <= v3) || (only && side > touched)) continue;
      var rects = [], quads = [], others = 0;  // others: parts in view left to the other side
      for (k = 0; k < members.length; k++) {
        i = members[k];
        var w = sizes[2 * i], hgt = sizes[2 * i + 1];
        var rx = xy[2 * i] - w / 2 - pad, ry = xy[2 * i + 1] - hgt / 2 - pad, rw = w + 2 * pad, rh = hgt + 2 * pad;
        if (rx + rw >= cx0 && rx <= cx1 && ry + rh >= cy0 && ry <= cy1) { if (mine(i, i)) rects.push(rx, ry, rw, rh); else others++; }
      }
      // long bands of a large region: drawn after the short ones, and only when they are few
      var pairs = halo.pairs, longest = members.length > c.bandMembers ? c.longBand * c.longBand : Infinity;
      var longPairs = [];
      for (k = 0; k < pairs.length; k += 2) {
        var pa = pairs[k], pb = pairs[k + 1];
        var ax = xy[2 * pa], ay = xy[2 * pa + 1], bx = xy[2 * pb], by = xy[2 * pb + 1];
        if ((ax - bx) * (ax - bx) + (ay - by) * (ay - by) > longest) {
          if (longPairs.length <= 2 * c.longBands) longPairs.push(pa, pb);
          continue;
        }
        if (Math.max(ax, bx) + bandHalf >= cx0 && Math.min(ax, bx) - bandHalf <= cx1 &&
            Math.max(ay, by) + bandHalf >= cy0 && Math.min(ay, by) - bandHalf <= cy1) { if (mine(pa, pb)) band(quads, ax, ay, bx, by, bandHalf); else others++; }
      }
      for (k = 0; longPairs.length <= 2 * c.longBands && k < longPairs.length; k += 2) {
        var la = longPairs[k], lb = longPairs[k + 1];
        var lax = xy[2 * la], lay = xy[2 * la + 1], lbx = xy[2 * lb], lby = xy[2 * lb + 1];
        if (Math.max(lax, lbx) + bandHalf >= cx0 && Math.min(lax, lbx) - bandHalf <= cx1 &&
            Math.max(lay, lby) + bandHalf >= cy0 && Math.min(lay, lby) - bandHalf <= cy1) { if (mine(la, lb)) band(quads, lax, lay, lbx, lby, bandHalf); else others++; }
      }
      // the badge on the top-most member (ties: the right-most, then the first)
      var top = -1, topY = 0, topR = 0;
      for (k = 0; k < members.length; k++) {
        i = members[k];
        var ty = xy[2 * i + 1] - sizes[2 * i + 1] / 2, tr = -(xy[2 * i] + sizes[2 * i] / 2);
        if (top < 0 || ty < topY || (ty === topY && tr < topR)) { top = i; topY = ty; topR = tr; }
      }
      var bw = halo.badgeWidth;
      var badgeX = xy[2 * top] + sizes[2 * top] / 2 + pad - bw / 2 - 6;
      var badgeY = xy[2 * top + 1] - sizes[2 * top + 1] / 2 - pad + 10;
      if (!only || side === touched) out.badges.push(pill(badgeX, badgeY, bw, 16, halo.badge, c.badgeFont, c.badgeFill, c.badgeText, ""));
      var simple = side === 1 || lod === "far" || (rects.length / 4 + quads.length / 8 + others) > c.haloDetailLimit;
      var key = halo.fill + "|" + halo.stroke, layer = layers.get(key);
      if (!layer) {
        layer = { fill: halo.fill, farFill: halo.farFill, stroke: halo.stroke, rects: [], quads: [], simple: simple };
        layers.set(key, layer);
        out.halos.push(layer);
      }
      for (k = 0; k < rects.length; k++) layer.rects.push(rects[k]);
      for (k = 0; k < quads.length; k++) layer.quads.push(quads[k]);
      layer.simple = layer.simple || simple;
    }

    // -- edges (culled on the centres' box widened by a margin, before any geometry)
    var e = plan.edges;
    if (e) {
      var margin = 140.0, vx0 = v0 - margin, vy0 = v1 - margin, vx1 = v2 + margin, vy1 = v3 + margin;
      var batches = new Map(), arrows = new Map(), total = 0, far = lod === "far";
      var labelsOn = zoom >= c.greekZoom;
      for (var j = 0; j < e.a.length; j++) {
        var ia = e.a[j], ib = e.b[j];
        var ax2 = xy[2 * ia], ay2 = xy[2 * ia + 1], bx2 = xy[2 * ib], by2 = xy[2 * ib + 1];
        if ((ax2 < vx0 && bx2 < vx0) || (ax2 > vx1 && bx2 > vx1) || (ay2 < vy0 && by2 < vy0) || (ay2 > vy1 && by2 > vy1)) continue;
        var sx, sy, ex, ey, off = 0;
        if (far) {  // centre to centre: borders and parallel offsets are under a pixel there
          if (ax2 === bx2 && ay2 === by2) continue;
          sx = ax2; sy = ay2; ex = bx2; ey = by2;
        } else {
          off = e.offset[j];
          if (!segment(ax2, ay2, sizes[2 * ia], sizes[2 * ia + 1], bx2, by2, sizes[2 * ib], sizes[2 * ib + 1], off)) continue;
          sx = SEG[0]; sy = SEG[1]; ex = SEG[2]; ey = SEG[3];
        }
        // the batch: the edge's own style, or (strength-dependent widths) the selected, shown
        // (breaking every loop, on the shown loop) or fault style
        var shown = plan.shown[j], bkey;
        if (j === plan.selectedEdge) bkey = "s" + e.width[j];
        else if (shown) bkey = (shown === 2 ? "c" : "h") + Math.max(e.width[j] + 1.5, 3.0);
        else if (plan.faults[j]) bkey = "f" + Math.max(e.width[j], 2.2);
        else bkey = e.style[j];
        var theirs = !mine(ia, ib);  // (its batch is made all the same: batches keep the whole frame's order)
        if (shown && j !== plan.selectedEdge && !theirs) out.shownEdges.push(j);
        var batch = batches.get(bkey);
        if (!batch) {
          var color, dash, width = e.width[j], keep = true;
          if (j === plan.selectedEdge) { color = c.edgeSelected; dash = c.noDash; width += 1.0; }
          else if (shown === 2) { color = c.cutColor; dash = c.noDash; width = Math.max(width + 1.5, 3.0); }
          else if (shown === 1) { color = plan.loopColor; dash = c.noDash; width = Math.max(width + 1.5, 3.0); }
          else if (plan.faults[j]) { color = c.faultColor; dash = c.faultDash; width = Math.max(width, 2.2); keep = false; }
          else { color = plan.strings[e.color[j]]; dash = c.noDash; keep = false; }
          batch = { color: color, width: width, dash: dash, segments: [], keep: keep };
          batches.set(bkey, batch);
          out.edges.push(batch);
        }
        color = batch.color;
        if (theirs) { total++; batch.extra = (batch.extra || 0) + (off !== 0 ? 4 * CURVE_PIECES : 4); continue; }
        var size = far ? 0 : e.arrow[j];  // (far: hairlines without arrowheads)
        var fx = sx, fy = sy, ux, uy;
        if (off !== 0) {  // a curve: its first pieces, then the last one as a straight edge's line
          curve(sx, sy, ex, ey, off);
          for (var q = 0; q < 2 * CURVE_PIECES - 2; q += 2) batch.segments.push(CURVE[q], CURVE[q + 1], CURVE[q + 2], CURVE[q + 3]);
          fx = CURVE[2 * CURVE_PIECES - 2]; fy = CURVE[2 * CURVE_PIECES - 1]; ux = CURVE_END[0]; uy = CURVE_END[1];
        } else if (size > 0) {
          var length = Math.sqrt((ex - sx) * (ex - sx) + (ey - sy) * (ey - sy));
          ux = (ex - sx) / length; uy = (ey - sy) / length;
        }
        if (size > 0) {
          batch.segments.push(fx, fy, ex - ux * size * 0.8, ey - uy * size * 0.8);
          var px = -uy * size * 0.45, py = ux * size * 0.45;
          var baseX = ex - ux * size, baseY = ey - uy * size;
          var arrow = arrows.get(color);
          if (!arrow) { arrow = { color: color, triangles: [] }; arrows.set(color, arrow); out.arrows.push(arrow); }
          arrow.triangles.push(ex, ey, baseX + px, baseY + py, baseX - px, baseY - py);
          var sign = e.polarity[j];
          if (sign && labelsOn) {  // (bend.scene.polarity_pill)
            var back = size + 7.0, ps = c.polaritySize, mark = sign === 1 ? "+" : "\u2212";
            out.labels.push(pill(ex - ux * back - uy * 9.0, ey - uy * back + ux * 9.0, ps, ps, mark, c.polarityFont,
              c.labelFill, c.polarityColor[sign === 1 ? "+" : "-"], plan.strings[e.color[j]]));
          }
        } else {
          batch.segments.push(fx, fy, ex, ey);
        }
        total++;
        var l = e.label[j];
        if (l >= 0 && labelsOn) {
          var lw = plan.labels.width[l], lx = (sx + ex) / 2, ly = (sy + ey) / 2;
          if (off !== 0) { curveLabel(sx, sy, ex, ey, off, lw); lx = CURVE_END[0]; ly = CURVE_END[1]; }
          out.labels.push(pill(lx, ly, lw, 16, plan.labels.text[l], c.labelFont,
            c.labelFill, c.labelText, plan.strings[plan.labels.border[l]]));
        }
      }
      // (the selected edge and the edges shown on request go on top)
      out.edges = out.edges.filter(function (b) { return !b.keep; }).concat(out.edges.filter(function (b) { return b.keep; }));
      if (lod === "far" || total > c.edgeDetailLimit) {
        out.edges = hairlines(out.edges, lod === "far");
        out.arrows = []; out.labels = [];
      }
    }

    // -- cards
    var greek = lod !== "detail", far = lod === "far";
    var cards = out.cards = {
      far: far, greek: greek, normal: [], stargate: [], headers: new Map(), decorations: new Map(), pulses: new Map(), pins: [],
      selected: [], bars: [], texts: new Map(), order: [],
    };
    var pulse = view.pulse, flags = plan.flags;
    for (i = 0; i < n; i++) {
      var cw = sizes[2 * i], ch = sizes[2 * i + 1];
      var cxl = xy[2 * i] - cw / 2, cyt = xy[2 * i + 1] - ch / 2;
      if (cxl + cw < v0 || cxl > v2 || cyt + ch < v1 || cyt > v3 || !mine(i, i)) continue;
      var f = flags[i];
      if (f & DIMMED) out.dim.push(cxl - 1, cyt - 1, cw + 2, ch + 2);
      var gate = plan.stargate[i];
      (gate ? cards.stargate : cards.normal).push(cxl, cyt, cw, ch);
      if (f & SELECTED) cards.selected.push(cxl - 4, cyt - 4, cw + 8, ch + 8);
      if (far) continue;
      push(cards.headers, gate ? c.headerFill.stargate : c.headerFill.normal, cxl, cyt, cw);
      if (f & PULSING) { var pr = mapList(cards.pulses, pulse); pr.push(cxl, cyt, cw, ch); }
      if (plan.pinned[i] && view.pins !== false) cards.pins.push(cxl + cw - 10, cyt + 7);
      var art = plan.art.get(plan.ids[i]);
      if (!art) continue;
      if (f & EDITING || art.items.length === 0) {  // no lines: at most the header
        if (art.header && !greek) texts(cards, plan, art, art.texts.length - 1, cxl, cyt);
        continue;
      }
      if (greek) {
        var bars = art.bars;
        for (k = 0; k < bars.length; k += 4) cards.bars.push(bars[k] + cxl, bars[k + 1] + cyt, bars[k + 2], bars[k + 3]);
        continue;
      }
      var decos = art.decos;
      for (k = 0; k < decos.length; k += 5) {
        var dl = mapList(cards.decorations, plan.strings[decos[k]]);
        dl.push(decos[k + 1] + cxl, decos[k + 2] + cyt, decos[k + 3], decos[k + 4]);
      }
      texts(cards, plan, art, 0, cxl, cyt);
    }

    // -- loop markers (bend.scene.loop_marker): at the mean of the loop's cards' centres,
    // turning the way the loop runs on screen
    var disk = c.markerDisk, head = c.markerHead, arc = c.markerArc;
    for (var mk = 0; mk < plan.markers.length; mk++) {
      var marker = plan.markers[mk], ms = marker.members, count = ms.length, mx = 0, my = 0, area = 0;
      for (k = 0; k < count; k++) { mx += xy[2 * ms[k]]; my += xy[2 * ms[k] + 1]; }
      mx /= count; my /= count;
      for (k = 0, touched = 0; only && k < count; k++) touched |= only[ms[k]];
      if (only && touched !== side) continue;
      if (!(mx + disk >= v0 && mx - disk <= v2 && my + disk >= v1 && my - disk <= v3)) continue;
      for (k = 0; k < count; k++) {
        var p = ms[k], q2 = ms[(k + 1) % count];
        area += xy[2 * p] * xy[2 * q2 + 1] - xy[2 * q2] * xy[2 * p + 1];
      }
      var clockwise = area >= 0, sign = clockwise ? 1.0 : -1.0;
      out.markers.push({
        label: marker.label, x: mx, y: my, clockwise: clockwise, color: marker.color,
        disk: pill(mx, my, 2 * disk, 2 * disk, marker.label, c.loopFont, c.markerFill, marker.color, ""),
        arc: [mx, my, c.markerRadius, clockwise ? arc[0] : Math.PI - arc[0], clockwise ? arc[1] : Math.PI - arc[1]],
        head: [mx + sign * head[0], my + head[1], mx + sign * head[2], my + head[3], mx + sign * head[4], my + head[5]],
      });
    }

    // -- name tags (the shown loop's cards, where their text is bars or boxes): the size on the
    // screen stays c.tagFont's at any zoom, centred on the card
    if (lod !== "detail" && plan.tags && plan.tags.length) {
      var s = 1 / zoom, size = /(\d+(?:\.\d+)?)px/.exec(c.tagFont);
      var font = c.tagFont.replace(size[0], (parseFloat(size[1]) * s) + "px");
      for (k = 0; k < plan.tags.length; k++) {
        var tag = plan.tags[k], ti = tag.node;
        if (ti >= n || !mine(ti, ti)) continue;
        var tw = (tag.width + 2 * c.tagPad) * s, th = c.tagHeight * s, tx = xy[2 * ti], ty = xy[2 * ti + 1];
        if (tx + tw / 2 < v0 || tx - tw / 2 > v2 || ty + th / 2 < v1 || ty - th / 2 > v3) continue;
        // (over a tag already placed: moved down, then up, a tag's height at a time, up to 4 each way)
        var gap = 2 * s, ty0 = ty;
        for (var attempt = 0; attempt < 8 && tagOver(out.tags, tx, ty, tw, th, gap); attempt++) {
          var step = Math.floor(attempt / 2) + 1;
          ty = ty0 + (attempt % 2 === 0 ? step : -step) * (th + gap);
        }
        var named = pill(tx, ty, tw, th, tag.text, font, c.markerFill, c.tagText, plan.loopColor || c.tagText);
        named.line = 1.5 * s;  // (its border 1.5 px on the screen)
        out.tags.push(named);
      }
    }
    return out;
  }

  // whether a tag of width w, height h centred at x, y comes within ``gap`` of one of ``tags``
  // (bend.render.scene._tag_over)
  function tagOver(tags, x, y, w, h, gap) {
    for (var i = 0; i < tags.length; i++) {
      var t = tags[i];
      if (Math.abs(t.x - x) < (t.width + w) / 2 + gap && Math.abs(t.y - y) < (t.height + h) / 2 + gap) return true;
    }
    return false;
  }

  function push(map, key, x, y, w) { mapList(map, key).push(x, y, w); }
  function mapList(map, key) { var l = map.get(key); if (!l) { l = []; map.set(key, l); } return l; }

  function texts(cards, plan, art, from, x0, y0) {
    var items = art.items;
    for (var t = from; t < art.texts.length; t++) {
      var font = plan.strings[items[4 * t]], color = plan.strings[items[4 * t + 1]], key = font + "|" + color;
      var group = cards.texts.get(key);
      if (!group) { group = { font: font, color: color, texts: [], xy: [] }; cards.texts.set(key, group); }
      group.texts.push(art.texts[t]);
      group.xy.push(x0 + items[4 * t + 2], y0 + items[4 * t + 3]);
    }
  }

  function pill(x, y, width, height, text, font, fill, color, border) {
    return { x: x, y: y, width: width, height: height, text: text, font: font, fill: fill, color: color, border: border };
  }

  // far out, the bands of halos: a filled polygon costs the software rasteriser ~5 µs however
  // small (2,000 bands of 2 px: 13 ms a frame), a hairline a few ns per pixel of its length, so a
  // band under FAR_BAND_HAIRS device px wide is drawn as hairlines along it, as many as its width
  // in px rounded, evenly across it (at most 1.25 px apart, and a hairline's pixels are two wide:
  // no gap between them, a solid band with soft sides), a wider one filled
  function farBands(ctx, quads, color, width, k) {
    if (width > FAR_BAND_HAIRS) { ctx.fill(paths.halo([], quads, 0)); return; }
    var n = Math.max(1, Math.round(width)), lines = [];
    for (var i = 0; i < quads.length; i += 8) {
      for (var j = 0; j < n; j++) {  // (corners 0, 1 on one side, 3, 2 across from them)
        var t = (j + 0.5) / n, u = 1 - t;
        lines.push(quads[i + 6] * u + quads[i] * t, quads[i + 7] * u + quads[i + 1] * t,
          quads[i + 4] * u + quads[i + 2] * t, quads[i + 5] * u + quads[i + 3] * t);
      }
    }
    var cap = ctx.lineCap, wide = ctx.lineWidth;
    ctx.strokeStyle = color; ctx.lineWidth = HAIRLINE / k; ctx.lineCap = "butt";
    paths.strokeSegments(ctx, lines);
    ctx.lineCap = cap; ctx.lineWidth = wide;
  }

  // the quad of half-width ``half`` around a segment, clockwise on screen (bend.scene.band)
  function band(out, x0, y0, x1, y1, half) {
    var dx = x1 - x0, dy = y1 - y0, length = Math.sqrt(dx * dx + dy * dy);
    if (length === 0) return;
    var nx = -dy / length * half, ny = dx / length * half;
    var q = [x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny], area = 0;
    for (var i = 0; i < 4; i++) area += q[2 * i] * q[(2 * i + 3) % 8] - q[(2 * i + 2) % 8] * q[2 * i + 1];
    if (area < 0) q = [q[6], q[7], q[4], q[5], q[2], q[3], q[0], q[1]];
    for (var j = 0; j < 8; j++) out.push(q[j]);
  }

  // border to border, shifted sideways by the signed parallel offset (bend.scene._segment), into
  // SEG; false when there is nothing to draw (cards overlap, or on one point)
  var SEG = new Float64Array(4);
  function segment(ax, ay, aw, ah, bx, by, bw, bh, sign) {
    var dx = bx - ax, dy = by - ay, length = Math.sqrt(dx * dx + dy * dy);
    if (length < 1e-6) return false;
    var ux = dx / length, uy = dy / length, aux = ux >= 0 ? ux : -ux, auy = uy >= 0 ? uy : -uy;
    var nx = -uy * sign, ny = ux * sign, fx = ux >= 0 ? nx : -nx, fy = uy >= 0 ? ny : -ny;
    var ea = Math.min(aux > 1e-12 ? (aw / 2 - fx) / aux : 1e18, auy > 1e-12 ? (ah / 2 - fy) / auy : 1e18);
    var eb = Math.min(aux > 1e-12 ? (bw / 2 + fx) / aux : 1e18, auy > 1e-12 ? (bh / 2 + fy) / auy : 1e18);
    ea = ea > 0 ? ea : 0.0; eb = eb > 0 ? eb : 0.0;
    if (ea + eb >= length) return false;
    SEG[0] = ax + ux * ea + nx; SEG[1] = ay + uy * ea + ny; SEG[2] = bx - ux * eb + nx; SEG[3] = by - uy * eb + ny;
    return true;
  }

  // a curved edge (bend.scene.curve): the starts of its pieces into CURVE, the unit tangent
  // at its end into CURVE_END; t = k/8 and the bulge k(8-k)/16 as in Python, exact in binary
  var CURVE_PIECES = 8, CURVE_BULGE = 4.0, PARALLEL_SPACING = 7.0;
  var CURVE = new Float64Array(2 * CURVE_PIECES), CURVE_END = new Float64Array(2);
  function curve(sx, sy, ex, ey, signed) {
    var dx = ex - sx, dy = ey - sy, length = Math.sqrt(dx * dx + dy * dy), h = bulge(signed, length);
    var px = -dy / length * h, py = dx / length * h;
    CURVE[0] = sx; CURVE[1] = sy;
    for (var k = 1; k < CURVE_PIECES; k++) {
      var t = k / 8, w = k * (8 - k) / 16;
      CURVE[2 * k] = sx + dx * t + px * w; CURVE[2 * k + 1] = sy + dy * t + py * w;
    }
    var tx = dx - 4.0 * px, ty = dy - 4.0 * py, tl = Math.sqrt(tx * tx + ty * ty);
    CURVE_END[0] = tx / tl; CURVE_END[1] = ty / tl;
  }

  // how far a curve's middle lies from its ends' line (bend.scene._bulge)
  function bulge(signed, length) {
    var h = signed * CURVE_BULGE, most = length * 0.25;
    return h > most ? most : h < -most ? -most : h;
  }

  // where a curved edge's label is centred (bend.scene.curve_label), into CURVE_END
  function curveLabel(sx, sy, ex, ey, signed, width) {
    var dx = ex - sx, dy = ey - sy, length = Math.sqrt(dx * dx + dy * dy);
    var s = signed >= 0 ? signed : -signed, g = signed > 0 ? 1.0 : -1.0;
    var nx = -dy / length * g, ny = dx / length * g;
    var half = (nx >= 0 ? nx : -nx) * width / 2 + (ny >= 0 ? ny : -ny) * 8.0;
    var d = Math.max(s + bulge(s, length), s / PARALLEL_SPACING * (2.0 * half + 4.0));
    CURVE_END[0] = (sx + ex) / 2 + nx * (d - s); CURVE_END[1] = (sy + ey) / 2 + ny * (d - s);
  }

  function hairlines(batches, far) {
    var merged = new Map(), list = [], kept = [];
    for (var i = 0; i < batches.length; i++) {
      var b = batches[i];
      if (b.keep) { kept.push(b); continue; }  // the selected edge and the edges shown keep their width
      var dash = far ? [] : b.dash;  // far: no dashes (sub-pixel dashes cost hundreds of ms)
      var key = b.color + "|" + dash.join(","), target = merged.get(key);
      if (!target) { target = { color: b.color, width: 0, dash: dash, segments: [], keep: false }; merged.set(key, target); list.push(target); }
      for (var k = 0; k < b.segments.length; k++) target.segments.push(b.segments[k]);
    }
    return list.concat(kept);
  }

  // ---------------------------------------------------------------- drawing (the painter's order)
  // env: {dpr, cx, cy, zoom, width, height, background, pattern, layered}; returns what
  // `repulse` needs to redraw the pulses over a kept copy, and counts for diagnostics.
  function draw(ctx, plan, g, env) {
    var c = plan.c, k = env.dpr * env.zoom, W = env.width * env.dpr, H = env.height * env.dpr;
    var tx = env.dpr * (env.width / 2 - env.cx * env.zoom), ty = env.dpr * (env.height / 2 - env.cy * env.zoom);
    ctx.setTransform(k, 0, 0, k, tx, ty);
    ctx.lineJoin = "round";
    ctx.lineCap = "round";
    var i, skip = env.skip || {};  // (diagnostics: layers left out, to time the others)
    ctx.lineWidth = 2;
    for (i = 0; i < g.halos.length && !skip.halos; i++) {  // one path per κ level
      var layer = g.halos[i];
      if (g.lod === "far") {
        // boxes in the fill composited over the background: opaque, so overlaps look like the
        // union; one fillRect each costs far less than one path of thousands of boxes
        ctx.fillStyle = layer.farFill || layer.fill;
        var hr = layer.rects;
        for (var q = 0; q < hr.length; q += 4) ctx.fillRect(hr[q], hr[q + 1], hr[q + 2], hr[q + 3]);
        if (layer.quads.length) farBands(ctx, layer.quads, layer.farFill || layer.fill, 2 * c.haloBand * k, k);
        continue;
      }
      var path = paths.halo(layer.rects, layer.quads, c.haloRadius);
      if (!layer.simple) {
        // the outline of the union: stroke every part, then repaint the inside (background, grid)
        // so only the outer half of the stroke stays, then the translucent fill
        // (the path filled in device px — the pattern's space —, not a clip and the whole canvas
        // filled through it: the same pixels, without a clip mask the canvas's size)
        ctx.strokeStyle = layer.stroke;
        ctx.stroke(path);
        var device = paths.make();
        device.addPath(path, { a: k, b: 0, c: 0, d: k, e: tx, f: ty });
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.fillStyle = env.background;
        ctx.fill(device);
        if (env.pattern && env.pattern !== env.background) { ctx.fillStyle = env.pattern; ctx.fill(device); }
        ctx.setTransform(k, 0, 0, k, tx, ty);
      }
      ctx.fillStyle = layer.fill;
      ctx.fill(path);
    }
    var hairs = 0;
    for (i = 0; i < g.edges.length; i++) if (!g.edges[i].width) hairs += g.edges[i].segments.length / 4;
    if (g.lod === "far" && hairs > FAR_BUFFER && root.document && !skip.edges) {
      // far out with very many lines: drawn at half resolution and scaled up — the raster of a
      // line costs by its length in pixels (20,000 lines: ~10 ms a frame less, a softer look)
      var off = plan.buffer || (plan.buffer = root.document.createElement("canvas"));
      var bw = Math.ceil(W / 2), bh = Math.ceil(H / 2);
      if (off.width !== bw || off.height !== bh) { off.width = bw; off.height = bh; }
      var o = off.getContext("2d");
      o.setTransform(1, 0, 0, 1, 0, 0);
      o.clearRect(0, 0, bw, bh);
      o.setTransform(k / 2, 0, 0, k / 2, tx / 2, ty / 2);
      o.lineCap = "round";
      for (i = 0; i < g.edges.length; i++) {
        o.strokeStyle = g.edges[i].color;
        o.lineWidth = g.edges[i].width || HAIRLINE / (k / 2);
        paths.strokeSegments(o, g.edges[i].segments);
      }
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.imageSmoothingEnabled = true;
      ctx.drawImage(off, 0, 0, W, H);
      ctx.restore();
      skip = Object.assign({}, skip, { edges: 1 });
    }
    for (i = 0; i < g.edges.length && !skip.edges; i++) {
      var batch = g.edges[i];
      ctx.strokeStyle = batch.color;
      // 0: a hairline, just under one device pixel: at exactly one (1 / k rounds to a hair over)
      // Skia strokes each line as a polygon instead of drawing a hairline, 20× slower
      ctx.lineWidth = batch.width || HAIRLINE / k;
      if (batch.dash.length) { ctx.setLineDash(batch.dash); ctx.lineCap = "butt"; }
      if (batch.width && !batch.dash.length && batch.segments.length + (batch.extra || 0) <= 4 * c.edgeDetailLimit) paths.strokeEach(ctx, batch.segments);
      else paths.strokeSegments(ctx, batch.segments);
      if (batch.dash.length) { ctx.setLineDash([]); ctx.lineCap = "round"; }
    }
    for (i = 0; i < g.arrows.length && !skip.arrows; i++) { ctx.fillStyle = g.arrows[i].color; paths.fillTriangles(ctx, g.arrows[i].triangles); }
    if (!skip.labels) pills(ctx, g.labels);
    var pulse = skip.cards ? { rects: [], alpha: 0, radius: 0 } : drawCards(ctx, c, g.cards, env.layered);
    if (g.dim.length) { ctx.fillStyle = c.dimFill; ctx.fill(paths.rects(g.dim, c.cardRadius)); }
    pills(ctx, g.badges);
    drawMarkers(ctx, g.markers);
    pills(ctx, g.tags);
    var pulsing = 0;
    g.cards.pulses.forEach(function (rects) { pulsing += rects.length / 4; });
    return {
      transform: [k, 0, 0, k, tx, ty], pulseRects: pulse.rects, pulseAlpha: pulse.alpha, pulseRadius: pulse.radius || 0,
      pulses: pulsing,
      markers: g.markers.map(function (m) { return { label: m.label, x: m.x, y: m.y, clockwise: m.clockwise }; }),
      shownEdges: g.shownEdges,
      tags: g.tags.map(function (t) { return { text: t.text, x: t.x, y: t.y, width: t.width, height: t.height }; }),
      cards: g.cards.normal.length / 4 + g.cards.stargate.length / 4,
    };
  }

  // loop markers: the disk with the label, then the circular arrow (its arc and its head)
  function drawMarkers(ctx, markers) {
    if (!markers.length) return;
    pills(ctx, markers.map(function (m) { return m.disk; }));
    ctx.lineWidth = 2; ctx.lineCap = "butt";
    for (var i = 0; i < markers.length; i++) {
      var m = markers[i], a = m.arc, h = m.head;
      ctx.strokeStyle = m.color; ctx.fillStyle = m.color;
      ctx.beginPath(); ctx.arc(a[0], a[1], a[2], a[3], a[4], !m.clockwise); ctx.stroke();
      ctx.beginPath(); ctx.moveTo(h[0], h[1]); ctx.lineTo(h[2], h[3]); ctx.lineTo(h[4], h[5]); ctx.fill();
    }
    ctx.lineCap = "round";
  }

  function pills(ctx, list) {
    if (!list.length) return;
    var byFill = new Map(), groups = new Map(), i, p;
    for (i = 0; i < list.length; i++) {
      p = list[i];
      var f = mapList(byFill, p.fill + "|" + p.border + "|" + (p.line || 1));
      f.fill = p.fill; f.border = p.border; f.line = p.line || 1;
      f.push(p.x - p.width / 2, p.y - p.height / 2, p.width, p.height);
    }
    byFill.forEach(function (rects) {
      var path = paths.rects(rects, 999.0);
      ctx.fillStyle = rects.fill; ctx.fill(path);
      if (rects.border) { ctx.strokeStyle = rects.border; ctx.lineWidth = rects.line; ctx.stroke(path); }
    });
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    for (i = 0; i < list.length; i++) {
      p = list[i];
      var g = mapList(groups, p.font + "|" + p.color);
      g.font = p.font; g.color = p.color;
      if (!g.texts) { g.texts = []; }
      g.texts.push(p.text); g.push(p.x, p.y + 0.5);
    }
    groups.forEach(function (xy) { paths.texts(ctx, xy.font, xy.color, xy.texts, xy); });
    ctx.textAlign = "left"; ctx.textBaseline = "alphabetic";
  }

  function drawCards(ctx, c, cards, layered) {
    var r = c.cardRadius, far = cards.far, kinds = [], i;
    if (cards.normal.length) kinds.push([cards.normal, c.cardBorder, 1.0]);
    if (cards.stargate.length) kinds.push([cards.stargate, c.stargateBorder, 2.0]);
    if (far) {  // boxes only: a border-coloured box and (when there is room) the card's fill inside it
      var inset = 1.0 / (ctx.getTransform ? ctx.getTransform().a : 1);
      var dot = 2 * inset;  // never smaller than two device pixels: far out, a card is a dot
      for (i = 0; i < kinds.length; i++) {
        var rects = kinds[i][0];
        ctx.fillStyle = kinds[i][1];
        for (var j = 0; j < rects.length; j += 4) {
          var rw = rects[j + 2], rh = rects[j + 3];
          if (rw >= dot && rh >= dot) ctx.fillRect(rects[j], rects[j + 1], rw, rh);
          else ctx.fillRect(rects[j] + rw / 2 - Math.max(rw, dot) / 2, rects[j + 1] + rh / 2 - Math.max(rh, dot) / 2, Math.max(rw, dot), Math.max(rh, dot));
        }
        ctx.fillStyle = c.cardFill;
        for (j = 0; j < rects.length; j += 4) {
          if (rects[j + 3] > 4 * inset) ctx.fillRect(rects[j] + inset, rects[j + 1] + inset, rects[j + 2] - 2 * inset, rects[j + 3] - 2 * inset);
        }
      }
      if (cards.selected.length) { ctx.strokeStyle = c.selection; ctx.lineWidth = 2 * inset; ctx.stroke(paths.rects(cards.selected, 0)); }
      return { rects: [], alpha: 0, radius: 0 };
    }
    // greek: corners of a few pixels and a 2 px shadow cannot be seen, and cost the rasteriser
    // several times what plain boxes cost: plain boxes, no shadow
    var round = cards.greek ? 0 : r;
    var shapes = kinds.map(function (kd) { return [paths.rects(kd[0], round), kd[1], kd[2]]; });
    if (!cards.greek) {
      // a cheap offset shadow: the same paths, shifted (shadowBlur is slow in software)
      ctx.fillStyle = c.cardShadow;
      ctx.translate(0.5, 2);
      for (i = 0; i < shapes.length; i++) ctx.fill(shapes[i][0]);
      ctx.translate(-0.5, -2);
    }
    ctx.fillStyle = c.cardFill;
    for (i = 0; i < shapes.length; i++) ctx.fill(shapes[i][0]);
    cards.headers.forEach(function (tops, color) {
      ctx.fillStyle = color;
      ctx.fill(round ? paths.tops(tops, r, 14.0) : paths.rects(tops.flatMap(function (v, j) { return j % 3 === 2 ? [v, 14.0] : [v]; }), 0));
    });
    cards.decorations.forEach(function (rects, color) { ctx.fillStyle = color; ctx.fill(paths.rects(rects, 0)); });
    for (i = 0; i < shapes.length; i++) { ctx.strokeStyle = shapes[i][1]; ctx.lineWidth = shapes[i][2]; ctx.stroke(shapes[i][0]); }
    var pulse = { rects: [], alpha: 0, radius: round };
    if (layered) {  // drawn last, over the kept copy (see repulse)
      cards.pulses.forEach(function (rects, alpha) { if (!pulse.rects.length) pulse.alpha = alpha; pulse.rects = pulse.rects.concat(rects); });
    } else {
      cards.pulses.forEach(function (rects, alpha) {
        ctx.strokeStyle = "rgba(" + c.pulseBorder + "," + alpha.toFixed(3) + ")";
        ctx.lineWidth = 2.5;
        ctx.stroke(paths.rects(rects, round));
      });
    }
    if (cards.pins.length) { ctx.fillStyle = c.pinMark; ctx.fill(paths.dots(cards.pins, 2.5)); }
    if (cards.selected.length) { ctx.strokeStyle = c.selection; ctx.lineWidth = 2; ctx.stroke(paths.rects(cards.selected, round && r + 4)); }
    if (cards.bars.length) { ctx.fillStyle = c.greekBar; ctx.fill(paths.rects(cards.bars, 0)); }
    cards.texts.forEach(function (g) { paths.texts(ctx, g.font, g.color, g.texts, g.xy); });
    return pulse;
  }

  // The pulsing borders at ``alpha`` (over the kept copy of the frame, or right after drawing it).
  function repulse(ctx, plan, transform, rects, alpha, radius) {
    if (!rects.length) return;
    ctx.setTransform(transform[0], transform[1], transform[2], transform[3], transform[4], transform[5]);
    ctx.setLineDash([]);
    ctx.strokeStyle = "rgba(" + plan.c.pulseBorder + "," + alpha.toFixed(3) + ")";
    ctx.lineWidth = 2.5;
    ctx.stroke(paths.rects(rects, radius === undefined ? plan.c.cardRadius : radius));
  }

  root.bendscopeScene = api;
})(typeof globalThis !== "undefined" ? globalThis : this);

"""Bringing cards into a view where they can be read: card text drawn as text (zoom at least
``READABLE_ZOOM``, above the level of detail that draws it as bars) and no card under a panel
(the Loops panel, the inspector, the toolbar, the HUD: the page passes their boxes).

>>> free_rects(1000.0, 800.0, [(0.0, 0.0, 1000.0, 50.0), (0.0, 60.0, 300.0, 500.0)])[0]
(300.0, 50.0, 1000.0, 800.0)
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from bendscope.bend.editor.camera import READABLE_ZOOM, clamp_coord
from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.elements import MIN_ZOOM
from bendscope.bend.render.scene import GREEK_ZOOM

#: a screen rectangle: left, top, right, bottom (CSS px)
Rect = tuple[float, float, float, float]
#: room (screen px) kept between the cards and a panel or the window's edge
MARGIN = 24.0
#: a message's usual place: this far (CSS px) above the window's bottom, in the middle
TOAST_BOTTOM = 56.0

assert READABLE_ZOOM > GREEK_ZOOM  # (the zoom a view is brought to draws card text as text)


def overlaps(a: Rect, b: Rect) -> bool:
    """Whether two rectangles share some area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def free_rects(width: float, height: float, obstacles: Sequence[Rect]) -> list[Rect]:
    """The rectangles of the ``width`` × ``height`` view that no obstacle overlaps, with sides on
    the view's edges or the obstacles' (every maximal free rectangle is among them), largest
    first (ties: left, then top first). The whole view when nothing is free. O(k⁵) for k
    obstacles (a few panels)."""
    boxes = [
        (max(0.0, o[0]), max(0.0, o[1]), min(width, o[2]), min(height, o[3]))
        for o in obstacles
        if o[2] > o[0] and o[3] > o[1]
    ]
    xs = sorted({0.0, width, *(v for b in boxes for v in (b[0], b[2]) if 0.0 < v < width)})
    ys = sorted({0.0, height, *(v for b in boxes for v in (b[1], b[3]) if 0.0 < v < height)})
    found = [
        (x0, y0, x1, y1)
        for i, x0 in enumerate(xs)
        for x1 in xs[i + 1 :]
        for j, y0 in enumerate(ys)
        for y1 in ys[j + 1 :]
        if not any(overlaps((x0, y0, x1, y1), b) for b in boxes)
    ]
    found.sort(key=lambda r: (-(r[2] - r[0]) * (r[3] - r[1]), r[0], r[1]))
    return found or [(0.0, 0.0, width, height)]


def readable(editor: Editor, node_ids: Iterable[str], obstacles: Sequence[Rect]) -> bool:
    """Whether the cards ``node_ids`` are readable where the view shows them now: the zoom
    draws text as text, and each card lies inside the view, clear of every obstacle. O(k)."""
    zoom = editor.plane.camera.zoom
    if zoom < GREEK_ZOOM:
        return False
    w, h = editor.viewport
    for node_id in node_ids:
        node = editor.plane.nodes.get(node_id)
        if node is None:
            continue
        x0, y0 = editor.world_to_screen(node.x - node.width / 2, node.y - node.height / 2)
        box = (x0, y0, x0 + node.width * zoom, y0 + node.height * zoom)
        if box[0] < 0 or box[1] < 0 or box[2] > w or box[3] > h or any(overlaps(box, o) for o in obstacles):
            return False
    return True


def show_readably(editor: Editor, node_ids: Iterable[str], obstacles: Sequence[Rect]) -> bool:
    """Move the camera so the cards ``node_ids`` can be read, unless they can be already
    (``readable``): they are centred in the largest free part of the view (``free_rects``)
    where they fit at ``READABLE_ZOOM`` or more, at the zoom that fits them there (at most 1);
    when they fit nowhere so, all of them at the zoom that fits them (below ``READABLE_ZOOM``,
    their text may be bars: zooming in reads them) in the part where they come nearest to
    fitting — where every one of them is matters more than reading a few while the rest lie
    off the screen. Returns whether the camera moved.
    O(k + obstacles⁵)."""
    ids = [n for n in node_ids if n in editor.plane.nodes]
    if not ids or readable(editor, ids, obstacles):
        return False
    nodes = [editor.plane.nodes[n] for n in ids]
    left = min(n.x - n.width / 2 for n in nodes)
    right = max(n.x + n.width / 2 for n in nodes)
    top = min(n.y - n.height / 2 for n in nodes)
    bottom = max(n.y + n.height / 2 for n in nodes)
    width, height = editor.viewport
    chosen: tuple[float, Rect] | None = None
    nearest: tuple[float, Rect] | None = None
    for rect in free_rects(width, height, obstacles):  # (largest first)
        fit = min(
            (rect[2] - rect[0] - 2 * MARGIN) / max(1.0, right - left),
            (rect[3] - rect[1] - 2 * MARGIN) / max(1.0, bottom - top),
        )
        if fit >= READABLE_ZOOM:
            chosen = (min(1.0, fit), rect)
            break
        if nearest is None or fit > nearest[0]:
            nearest = (fit, rect)
    if chosen is None:
        assert nearest is not None
        chosen = (max(MIN_ZOOM, nearest[0]), nearest[1])
    zoom, rect = chosen
    cam = editor.plane.camera
    cam.zoom = zoom
    cam.x = clamp_coord((left + right) / 2 - ((rect[0] + rect[2]) / 2 - width / 2) / zoom)
    cam.y = clamp_coord((top + bottom) / 2 - ((rect[1] + rect[3]) / 2 - height / 2) / zoom)
    editor.needs_paint = True
    return True


def uncover(editor: Editor, sheets: Sequence[Rect], obstacles: Sequence[Rect]) -> bool:
    """A panel (``sheets``) opened over the view with nothing selected: when it covers some of
    the cards in the view, the cards that were in the view are brought, all of them, into the
    largest free part of the view (``free_rects`` of ``obstacles``), zoomed out no further than
    they can be read (``READABLE_ZOOM``) and never zoomed in; when they cannot be so, the view
    stays. Whether the camera moved.

    >>> from bendscope.bend.editor.editor import Editor
    >>> e = Editor()
    >>> e.viewport = (1000.0, 800.0)
    >>> cards = [e.add_node(x, 0.0, "card") for x in (-300.0, 0.0, 300.0)]
    >>> panel = (0.0, 0.0, 360.0, 400.0)
    >>> uncover(e, [panel], [panel]), any(overlaps(box, panel) for box in card_rects(e))
    (True, False)
    >>> len(card_rects(e)), e.plane.camera.zoom
    (3, 0.8)

    O(n + obstacles⁵)."""
    rects = card_rects(editor)
    if not any(overlaps(box, sheet) for box in rects for sheet in sheets):
        return False
    width, height = editor.viewport
    left, top = min(r[0] for r in rects), min(r[1] for r in rects)
    right, bottom = max(r[2] for r in rects), max(r[3] for r in rects)
    zoom = editor.plane.camera.zoom
    for rect in free_rects(width, height, obstacles):  # (largest first)
        fit = min(
            (rect[2] - rect[0] - 2 * MARGIN) / max(1.0, right - left),
            (rect[3] - rect[1] - 2 * MARGIN) / max(1.0, bottom - top),
        )
        scale = min(1.0, fit)
        if zoom * scale >= min(zoom, READABLE_ZOOM):
            cx, cy = editor.screen_to_world((left + right) / 2, (top + bottom) / 2)
            cam = editor.plane.camera
            cam.zoom = max(MIN_ZOOM, zoom * scale)
            cam.x = clamp_coord(cx - ((rect[0] + rect[2]) / 2 - width / 2) / cam.zoom)
            cam.y = clamp_coord(cy - ((rect[1] + rect[3]) / 2 - height / 2) / cam.zoom)
            editor.needs_paint = True
            return True
    return False


def card_rects(editor: Editor) -> list[Rect]:
    """The screen boxes of the active plane's cards that show in the view. O(n), the
    camera's transform inlined (one pass, no call per card)."""
    cam = editor.plane.camera
    zoom = cam.zoom
    w, h = editor.viewport
    ox, oy = w / 2 - cam.x * zoom, h / 2 - cam.y * zoom  # (screen = world × zoom + offset)
    rects = []
    for node in editor.plane.nodes.values():
        half_w, half_h = node.width * zoom / 2, node.height * zoom / 2
        cx, cy = node.x * zoom + ox, node.y * zoom + oy
        if cx + half_w > 0 and cx - half_w < w and cy + half_h > 0 and cy - half_h < h:
            rects.append((cx - half_w, cy - half_h, cx + half_w, cy + half_h))
    return rects


def card_under(editor: Editor, rect: Rect) -> bool:
    """Whether a card of the active plane shares some area with the screen box ``rect`` (the
    same test as ``overlaps`` on ``card_rects``, without making them). O(n), early stop.

    >>> from bendscope.bend.editor.editor import Editor
    >>> e = Editor()
    >>> e.viewport = (400.0, 800.0)
    >>> card = e.add_node(0.0, 0.0, "middle")
    >>> [box] = card_rects(e)
    >>> card_under(e, box), card_under(e, (box[2], box[1], box[2] + 50.0, box[3]))
    (True, False)
    """
    (x0, y0), (x1, y1) = editor.screen_to_world(rect[0], rect[1]), editor.screen_to_world(rect[2], rect[3])
    return any(
        n.x - n.width / 2 < x1 and x0 < n.x + n.width / 2 and n.y - n.height / 2 < y1 and y0 < n.y + n.height / 2
        for n in editor.plane.nodes.values()
    )


def keep_clear(editor: Editor, node_id: str, obstacles: Sequence[Rect]) -> bool:
    """Pan (zoom unchanged) the least that puts the card ``node_id`` inside the view, clear of
    every obstacle (a panel) and ``MARGIN`` px from them, unless it is so already or fits in
    no free part of the view (``free_rects``); whether the view moved.

    >>> from bendscope.bend.editor.editor import Editor
    >>> e = Editor()
    >>> e.viewport = (400.0, 800.0)
    >>> card = e.add_node(0.0, 300.0, "low")  # (a card's centre 300 px below the middle: y 700)
    >>> sheet = (0.0, 600.0, 400.0, 800.0)
    >>> keep_clear(e, card, [sheet]), keep_clear(e, card, [sheet])
    (True, False)
    >>> bottom = e.world_to_screen(0.0, 300.0)[1] + e.plane.nodes[card].height * e.plane.camera.zoom / 2
    >>> bottom <= 600.0 - MARGIN
    True

    O(obstacles⁵)."""
    node = editor.plane.nodes.get(node_id)
    if node is None:
        return False
    zoom = editor.plane.camera.zoom
    x0, y0 = editor.world_to_screen(node.x - node.width / 2, node.y - node.height / 2)
    card = (x0, y0, x0 + node.width * zoom, y0 + node.height * zoom)
    width, height = editor.viewport
    inside = card[0] >= 0 and card[1] >= 0 and card[2] <= width and card[3] <= height
    if inside and not any(overlaps(card, o) for o in obstacles):
        return False
    best: tuple[float, float, float] | None = None
    for rect in free_rects(width, height, obstacles):
        left, top, right, bottom = rect[0] + MARGIN, rect[1] + MARGIN, rect[2] - MARGIN, rect[3] - MARGIN
        if right - left < card[2] - card[0] or bottom - top < card[3] - card[1]:
            continue
        dx = min(0.0, right - card[2]) + max(0.0, left - card[0])
        dy = min(0.0, bottom - card[3]) + max(0.0, top - card[1])
        if best is None or abs(dx) + abs(dy) < best[0]:
            best = (abs(dx) + abs(dy), dx, dy)
    if best is None:
        return False
    editor.pan_by(best[1], best[2])
    return True


def toast_spot(
    width: float, height: float, size: tuple[float, float], cards: Sequence[Rect], panels: Sequence[Rect]
) -> tuple[float, float]:
    """Where a message of ``size`` (w, h) goes in the ``width`` × ``height`` window: the spot
    (left, top), among a grid of spots ``MARGIN`` px inside the window, that covers the least
    of the cards and the panels (area), the nearest its usual place (the middle,
    ``TOAST_BOTTOM`` px above the bottom) among equals.

    >>> card = (300.0, 690.0, 500.0, 730.0)
    >>> toast_spot(800.0, 800.0, (200.0, 30.0), [], [])
    (300.0, 714.0)
    >>> spot = toast_spot(800.0, 800.0, (200.0, 30.0), [card], [])
    >>> overlaps((spot[0], spot[1], spot[0] + 200.0, spot[1] + 30.0), card), spot[1] > 600.0
    (False, True)

    O((cards + panels) × log(spots) + spots × (log(boxes) + the boxes it may cover)), 11 × 10
    spots: each box is filed under the rows of spots it reaches, sorted by its left edge, and
    a spot looks only at the boxes of its row whose left edges can reach it."""
    _covered, left, top = toast_cover(width, height, size, cards, panels)
    return left, top


def toast_cover(
    width: float, height: float, size: tuple[float, float], cards: Sequence[Rect], panels: Sequence[Rect]
) -> tuple[float, float, float]:
    """``toast_spot`` with the area its spot covers first: (covered, left, top); 0 when it
    covers nothing."""
    tw, th = size
    usual = ((width - tw) / 2, height - TOAST_BOTTOM - th)
    xs = sorted({*_steps(MARGIN, max(MARGIN, width - MARGIN - tw), 11), usual[0]})
    ys = sorted({*_steps(MARGIN, max(MARGIN, height - MARGIN - th), 9), max(MARGIN, usual[1])})
    rows: list[list[Rect]] = [[] for _ in ys]
    for boxes in (cards, panels):
        for x0, y0, x1, y1 in boxes:  # (each box read once)
            if x1 <= x0 or y1 <= y0:
                continue  # (no area: covers nothing)
            # the rows whose spots share some height with the box: y0 - th < top < y1
            for k in range(bisect_right(ys, y0 - th), bisect_left(ys, y1)):
                rows[k].append((x0, y0, x1, y1))
    lefts: list[list[float]] = []
    widest: list[float] = []
    for row in rows:
        row.sort()
        lefts.append([b[0] for b in row])
        widest.append(max((b[2] - b[0] for b in row), default=0.0))
    index = {top: k for k, top in enumerate(ys)}
    spots = sorted((abs(x - usual[0]) + abs(y - usual[1]), x, y) for x in xs for y in ys)
    best: tuple[float, float, float] | None = None
    for _far, left, top in spots:
        k = index[top]
        row, right, bottom, covered = rows[k], left + tw, top + th, 0.0
        # (only a box whose left edge lies in (left - the row's widest box, right) can reach the spot)
        for x0, y0, x1, y1 in row[bisect_right(lefts[k], left - widest[k]) : bisect_left(lefts[k], right)]:
            if left < x1:  # (the shared area, without calls to min and max: the frequent step)
                w = (x1 if x1 < right else right) - (x0 if x0 > left else left)
                covered += w * ((y1 if y1 < bottom else bottom) - (y0 if y0 > top else top))
                if best is not None and covered >= best[0]:
                    break  # (no better than the best so far)
        if best is None or covered < best[0]:
            best = (covered, left, top)
            if covered == 0.0:
                break
    assert best is not None
    return best


def _steps(low: float, high: float, count: int) -> list[float]:
    """``count`` evenly spaced values from ``low`` to ``high`` (with the middle one)."""
    return [round(low + (high - low) * k / (count - 1), 2) for k in range(count)]


def _area(a: Rect, b: Rect) -> float:
    """The area two rectangles share."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))

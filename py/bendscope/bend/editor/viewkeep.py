"""The view kept honest while the layout moves cards nobody moved by hand: a graph that just
opened stays framed as it comes apart (``opening_view`` again each frame, small graphs only),
and after an edit (a new card, a new edge) the cards that were in view between the toolbar
and the HUD stay there — the camera pans (never zooms) the least that keeps them there, as
long as they fit (a change someone else made — the memory's agent, on the live page — moves
no view). Either ends when the layout rests, a gesture starts, the plane or the
document changes, or the camera is moved by anything else (the person, a panel's own move).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bendscope.bend.editor.camera import Box, _shift
from bendscope.bend.editor.editor import Editor

#: the most cards a graph may have for its opening view to follow its first layout frame by frame
FOLLOW_CARDS = 300
#: the most cards a plane may have for the cards in view to be kept there after an edit (a
#: large graph's live bursts would look at every card each frame)
KEEP_CARDS = 500
#: room (screen px) kept between the cards kept in view and the toolbar or the HUD
KEEP_MARGIN = 4.0


def _own_version(editor: Editor) -> int:
    """The document's version counting this page's own changes only (not ``remote_change``)."""
    return editor.version - editor.remote_versions


class ViewKeeper:
    """Call ``opened`` after ``opening_view`` and ``frame`` before each frame is drawn."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.mode: str | None = None  # "fit" (a graph opening), "keep" (after an edit), None
        self.ids: list[str] = []  # the cards kept in view
        self.band: tuple[float, float] = (0.0, 0.0)  # the free band's top and bottom (screen px)
        self._camera: tuple[float, float, float] | None = None  # as this left it
        self._where: tuple[object, str] | None = None  # (the document, the plane) it works on
        self._version = _own_version(editor)
        self._openings = editor.openings
        self._moving = False  # (the layout ran in the frame before: the frame it rests in follows it too)

    def _seen(self) -> None:
        cam = self.editor.plane.camera
        self._camera = (cam.x, cam.y, cam.zoom)

    def opened(self) -> None:
        """The graph was just given its opening view: keep it framed while its layout runs."""
        editor = self.editor
        self.mode = "fit" if len(editor.plane.nodes) <= FOLLOW_CARDS else None
        self._moving = False
        self._where = (editor.doc, editor.plane.id)
        self._version = _own_version(editor)
        self._seen()

    def frame(self, busy: bool, obstacles: Callable[[], Sequence[Box]]) -> bool:
        """Before a frame is drawn (``busy``: a gesture runs; ``obstacles``: the boxes of what
        covers the canvas, read only when an edit starts a keep): whether the camera moved.
        O(1) at rest; O(n) for a graph opening (FOLLOW_CARDS at most), O(cards kept) after an edit."""
        editor = self.editor
        if editor.openings != self._openings:  # (``opening_view`` ran: a graph opened, or this follows one)
            self._openings = editor.openings
            self.opened()
        cam = editor.plane.camera
        where = (editor.doc, editor.plane.id)
        edited = _own_version(editor) != self._version  # (the person's: an agent's edit moves no view)
        self._version = _own_version(editor)
        if busy or where != self._where or (self._camera is not None and self._camera != (cam.x, cam.y, cam.zoom)):
            self.mode = None
        if edited and not busy and self.mode != "fit" and editor.animating and len(editor.plane.nodes) <= KEEP_CARDS:
            self._keep(obstacles())
        self._where = where
        if self.mode is not None and not editor.animating and not self._moving:
            self.mode = None  # (no layout running since it began: nothing to follow)
        if self.mode is None:
            self._camera, self._moving = None, False
            return False
        self._moving = editor.animating
        if self.mode == "fit":
            editor.opening_view()
            self._openings = editor.openings  # (its own following is no graph opening again)
        else:
            self._pan()
        if not editor.animating:
            self.mode = None  # (at rest: this frame's positions were the last to follow)
        self._seen()
        return True

    def _keep(self, obstacles: Sequence[Box]) -> None:
        """An edit set the layout moving: note the cards in view between the toolbar and the HUD."""
        editor = self.editor
        w, h = editor.viewport
        bars = [o for o in obstacles if o[2] - o[0] >= w / 3]  # (the toolbar, the HUD: not a small box at a side)
        top = max((o[3] for o in bars if o[1] <= h / 3 and o[3] < h / 2), default=0.0) + KEEP_MARGIN
        bottom = min((o[1] for o in bars if o[3] >= 2 * h / 3 and o[1] > h / 2), default=h) - KEEP_MARGIN
        zoom = editor.plane.camera.zoom
        ids = []
        for node in editor.plane.nodes.values():
            sx, sy = editor.world_to_screen(node.x, node.y)
            half_w, half_h = node.width * zoom / 2, node.height * zoom / 2
            if (
                sx - half_w >= KEEP_MARGIN
                and sx + half_w <= w - KEEP_MARGIN
                and top <= sy - half_h <= sy + half_h <= bottom
            ):
                ids.append(node.id)
        if ids:
            self.mode, self.ids, self.band, self._moving = "keep", ids, (top, bottom), False
            self._seen()

    def _pan(self) -> None:
        """Pan the least that brings the kept cards back between the band's edges (if they fit)."""
        editor = self.editor
        nodes = [editor.plane.nodes[n] for n in self.ids if n in editor.plane.nodes]
        if not nodes:
            self.mode = None
            return
        left, upper = min(n.x - n.width / 2 for n in nodes), min(n.y - n.height / 2 for n in nodes)
        right, lower = max(n.x + n.width / 2 for n in nodes), max(n.y + n.height / 2 for n in nodes)
        (x0, y0), (x1, y1) = editor.world_to_screen(left, upper), editor.world_to_screen(right, lower)
        top, bottom = self.band
        width = editor.viewport[0]
        dx = _shift(x0, x1, KEEP_MARGIN, width - KEEP_MARGIN) if x1 - x0 <= width - 2 * KEEP_MARGIN else 0.0
        dy = _shift(y0, y1, top, bottom) if y1 - y0 <= bottom - top else 0.0
        if dx or dy:
            editor.pan_by(dx, dy)

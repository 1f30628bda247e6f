"""The Loops panel on the page (``bend.kappa_view.loops_panel`` draws what it lists): hover,
focus and choice of a loop, its markers, and the view brought to a chosen loop."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import js

from bendscope.bend.editor.editor import Editor
from bendscope.bend.editor.viewfit import Rect, keep_clear, overlaps, show_readably, uncover
from bendscope.bend.editor.viewkeep import ViewKeeper
from bendscope.bend.kappa_view.loop_cuts import CutReport
from bendscope.bend.kappa_view.loop_list import Loop, LoopReport
from bendscope.bend.kappa_view.loops_panel import CLASS_WORDS, PanelView, panel_view
from bendscope.bend.render.scene import LoopMarker

from .dom import by_id, clear, el, is_null, on

#: what may cover the canvas: the view brought to a loop keeps its cards clear of these
PANELS = ("toolbar", "breadcrumbs", "find-bar", "live-search", "loops-panel", "inspector", "hud", "legend-box")


#: the bars over the top and the bottom of the canvas (not the panels that open with a selection)
BARS = ("toolbar", "breadcrumbs", "find-bar", "live-search", "hud", "legend-box")


def panel_boxes(names: tuple[str, ...] = PANELS) -> list[Rect]:
    """The screen boxes (left, top, right, bottom) of the panels shown over the canvas."""
    boxes = []
    for name in names:
        element = js.document.getElementById(name)
        if is_null(element) or element.hidden:
            continue
        r = element.getBoundingClientRect()
        if float(r.width) > 0 and float(r.height) > 0:
            boxes.append((float(r.left), float(r.top), float(r.right), float(r.bottom)))
    return boxes


#: the panels that open over the canvas with what is selected or chosen: sheets over the bottom
#: of a narrow screen, the top column of a wide one (``app.css``)
SHEETS = ("inspector", "loops-panel")


def _within(inner: Rect, outer: Rect) -> bool:
    """Whether ``inner`` lies inside ``outer`` (half a pixel of play)."""
    return (
        inner[0] >= outer[0] - 0.5 and inner[1] >= outer[1] - 0.5 and inner[2] <= outer[2] + 0.5
        and inner[3] <= outer[3] + 0.5
    )  # fmt: skip


class InSight:
    """What the person works on stays clear of the inspector and the Loops panel (sheets over
    the bottom of a narrow screen, a column at the top of a wide one). The card being edited,
    else the only selected card, is brought clear of them (``bend.editor.viewfit.keep_clear``)
    when it becomes that card (a card just made, a card tapped) or a panel opens or grows; on a
    wide screen only when a panel covers it. A loop chosen in the Loops panel is brought back
    to a readable view clear of them (``show_readably``) when a panel opens or grows over one of
    its cards. Never because the person moved a card under one. It runs before the canvas is
    drawn, so the view a panel moves is drawn in the frame the panel appears."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self._focus: str | None = None
        self._boxes: list[Rect] = []  # the panels' boxes the last time (CSS px)
        self._narrow = js.window.matchMedia("(max-width: 600px)")  # (its ``matches`` follows the window)
        editor.obstacles = panel_boxes  # (Fit frames the graph clear of them: ``CameraControl.fit_view``)
        self.keeper = ViewKeeper(editor)

    def update(self, editing: str | None, busy: bool, chosen: Loop | None = None) -> None:
        """After the panels are updated, before the canvas is drawn (``busy``: a gesture runs, it
        waits; ``chosen``: the loop the view shows on purpose — its cards, not the selected
        card, are kept clear). A move of the view is drawn by this paint. O(1) but for a move:
        O(panels⁵ + the loop's cards)."""
        self.keeper.frame(busy, lambda: panel_boxes(BARS))  # (the layout moving cards nobody moved)
        selection = self.editor.selection
        focus = editing or (selection[0] if len(selection) == 1 else None)
        bare = focus is None and chosen is None and not selection  # (nothing selected: the panel keeps off the cards)
        if busy:
            return
        if focus is None and chosen is None and self._focus is None and not (bare and self._open()):
            if bare:
                self._boxes = []  # (no sheet shown: the next one to open is new)
            return  # (nothing to keep clear: no layout read in this frame)
        boxes = []
        for name in SHEETS:
            sheet = by_id(name)
            if not sheet.hidden:
                r = sheet.getBoundingClientRect()
                boxes.append((float(r.left), float(r.top), float(r.right), float(r.bottom)))
        grew = any(not any(_within(box, old) for old in self._boxes) for box in boxes)
        changed = focus != self._focus
        self._focus, self._boxes = focus, boxes
        if chosen is not None:
            if grew and self._covered(chosen.nodes, boxes):
                show_readably(self.editor, chosen.nodes, panel_boxes())
        elif bare and grew:
            uncover(self.editor, boxes, panel_boxes())
        elif focus is not None and (grew or changed) and (self._narrow.matches or self._covered((focus,), boxes)):
            keep_clear(self.editor, focus, panel_boxes())

    def _open(self) -> bool:
        """Whether a sheet is shown (its ``hidden`` flag: no layout read)."""
        return any(not by_id(name).hidden for name in SHEETS)

    def _covered(self, node_ids: Iterable[str], boxes: list[Rect]) -> bool:
        """Whether a panel of ``boxes`` covers some of a card of ``node_ids``. O(cards)."""
        editor = self.editor
        zoom = editor.plane.camera.zoom
        for node_id in node_ids:
            node = editor.plane.nodes.get(node_id)
            if node is not None:
                x0, y0 = editor.world_to_screen(node.x - node.width / 2, node.y - node.height / 2)
                card = (x0, y0, x0 + node.width * zoom, y0 + node.height * zoom)
                if any(overlaps(card, box) for box in boxes):
                    return True
        return False


class LoopsPanel:
    """The Loops panel (``bend.kappa_view.loops_panel``): the loops of the plane or the selection by
    region, each with its mark (R1, B2). Hovering or focusing a loop shows it on the canvas
    (its edges in its class's colour, the other cards faded); choosing it keeps it shown and
    brings it into a view where its cards can be read, clear of the panels, until chosen again
    or Esc. **Markers** marks every loop listed on the canvas (and in the images), with the
    panel open or not. Built with textContent only; one listener per kind of event on the
    panel (delegation)."""

    def __init__(self, editor: Editor, repaint: Callable[[], None]) -> None:
        self.editor = editor
        self.repaint = repaint
        self.box = by_id("loops-panel")
        self.body = by_id("loops-body")
        self.summary = by_id("loops-summary")
        self.heading = by_id("loops-title")
        self.button = by_id("btn-loops")
        self.report: LoopReport | None = None
        self.expanded: set[int] = set()
        self.all_groups = False
        self.hovered: Loop | None = None
        self.chosen: Loop | None = None
        self.markers_on = False
        self.markers_button = by_id("loops-markers")
        self.view: PanelView | None = None
        self._key: tuple | None = None
        self._dimmed: tuple[Any, set[str]] | None = None
        on(by_id("loops-close"), "click", lambda event: self.close())
        on(self.markers_button, "click", lambda event: self.toggle_markers())
        # hovering follows the pointer's own moves, never a list that moved under a still
        # pointer (a rebuilt list would otherwise show the loop of the row that slid there)
        on(self.body, "pointermove", self._pointer_move)
        on(self.body, "pointerleave", lambda event: self._unhover())
        on(self.body, "focusin", lambda event: self._hover(event, True))
        on(self.body, "focusout", lambda event: self._hover(event, False))
        on(self.body, "click", self._click)
        on(self.box, "keydown", self._key_down)

    @property
    def open(self) -> bool:
        return not self.box.hidden

    def toggle(self) -> None:
        if self.open:
            self.close()
        else:
            self.box.hidden = False
            self.button.setAttribute("aria-pressed", "true")
            self._key = None
            self.repaint()

    def close(self) -> None:
        if not self.open:
            return
        self.box.hidden = True
        self.button.setAttribute("aria-pressed", "false")
        self.hovered = self.chosen = None
        self.repaint()
        by_id("canvas").focus()

    def let_go(self) -> bool:
        """Esc: stop showing the chosen loop; whether there was one."""
        if self.chosen is None:
            return False
        self.chosen = None
        self._key = None
        self.repaint()
        return True

    def shown(self) -> Loop | None:
        return self.hovered or self.chosen

    def on_canvas(self) -> Loop | None:
        """The loop shown on the canvas: :meth:`shown` while the panel is open, else none."""
        return self.shown() if self.open else None

    def toggle_markers(self) -> None:
        """Markers on or off: every loop the panel lists marked on the canvas."""
        self.markers_on = not self.markers_on
        self.markers_button.setAttribute("aria-pressed", "true" if self.markers_on else "false")
        self._key = None
        self.repaint()

    def markers(self) -> tuple[LoopMarker, ...]:
        """The loop markers the canvas draws (none while Markers is off)."""
        if not self.markers_on or self.view is None:
            return ()
        return self.view.markers

    def shown_edges(self) -> tuple[tuple[str, ...], str]:
        """The edges of the loop shown on the canvas and its class (none while the panel is shut)."""
        loop = self.on_canvas()
        return ((), "?") if loop is None else (loop.edges, loop.polarity)

    def shown_nodes(self) -> tuple[str, ...]:
        """The cards of the loop shown on the canvas, whose names are tagged where their text
        cannot be read (none while the panel is shut)."""
        loop = self.on_canvas()
        return () if loop is None else tuple(loop.nodes)

    def dimmed(self) -> set[str]:
        """The cards that fade while a loop is shown: every card not on it. O(n) once per loop."""
        loop = self.on_canvas()
        if loop is None:
            return set()
        key = (loop, self.editor.plane, self.editor.plane.version)
        if self._dimmed is None or self._dimmed[0] != key:
            on_loop = set(loop.nodes)
            self._dimmed = (key, {n for n in self.editor.plane.nodes if n not in on_loop})
        return self._dimmed[1]

    def update(self, report: LoopReport | None, cuts: CutReport | None = None) -> None:
        """Rebuild when the report, the names or what is expanded changed (the view for the
        markers only while the panel is shut); ``cuts``: the fewest edges that break every
        loop of the same scope (None: not known yet)."""
        if not self.open and not self.markers_on:
            return
        if report is not self.report:
            self.report = report
            self.expanded.clear()
            self.all_groups = False
            known = {loop for g in report.groups for loop in g.loops} if report is not None else set()
            if self.chosen not in known:
                self.chosen = None
            if self.hovered not in known:
                self.hovered = None
        key = (id(report), self.editor.version, self.editor.plane.id, frozenset(self.expanded), self.all_groups,
               self.chosen, self.open, id(cuts))  # fmt: skip
        if key == self._key:
            return
        self._key = key
        self.view = panel_view(self.editor, report, self.expanded, self.all_groups, cuts)
        if self.open:
            self._build(self.view)

    def _build(self, view: PanelView) -> None:
        self.heading.textContent = view.heading
        self.summary.textContent = view.summary
        body = self.body
        # the row that had the keyboard focus keeps it in the rebuilt list (else it falls to the page)
        active = js.document.activeElement
        focused = None
        if not is_null(active) and body.contains(active) and active.hasAttribute("data-loop"):
            focused = str(active.getAttribute("data-loop"))
        clear(body)
        for group in view.groups:
            items = []
            for item in group.items:
                g, k = (int(part) for part in item.key.split(":"))
                pressed = self.report is not None and self.report.groups[g].loops[k] == self.chosen
                cls = f"loop-class loop-{'q' if item.polarity == '?' else item.polarity}"
                children = [
                    el("span", text=item.mark, cls=cls,
                       attrs={"title": CLASS_WORDS[item.polarity], "aria-hidden": "true"}),
                    el("span", text=item.text, cls="loop-text"),
                ]  # fmt: skip
                if item.fault_lines:
                    note = {"title": "fault-line edges on this loop", "aria-hidden": "true"}
                    children.append(el("span", text=f"✂{item.fault_lines}", cls="loop-fault", attrs=note))
                button = el("button", cls="loop", attrs={"type": "button", "data-loop": item.key,
                            "aria-pressed": "true" if pressed else "false", "aria-label": item.label},
                            children=children)  # fmt: skip
                items.append(el("li", children=[button]))
            section = [el("h3", text=group.title), el("ol", children=items)]
            if group.more:
                attrs = {"type": "button", "data-more": str(group.index)}
                section.append(el("button", text=group.more, cls="loops-more", attrs=attrs) if group.expandable
                               else el("p", text=group.more, cls="loops-note"))  # fmt: skip
            body.appendChild(el("section", children=section))
        if view.more_groups:
            body.appendChild(el("button", text=f"Show {view.more_groups:,} more regions", cls="loops-more",
                                attrs={"type": "button", "data-more": "all"}))  # fmt: skip
        if focused is not None:
            again = body.querySelector(f'button.loop[data-loop="{focused}"]')
            if not is_null(again):
                again.focus()

    def _loop_of(self, event: Any) -> Loop | None:
        target = event.target
        button = target.closest("button.loop") if hasattr(target, "closest") else None
        if is_null(button) or self.report is None:
            return None
        try:
            g, k = (int(part) for part in str(button.getAttribute("data-loop")).split(":"))
            return self.report.groups[g].loops[k]
        except (ValueError, IndexError):
            return None

    def _pointer_move(self, event: Any) -> None:
        loop = self._loop_of(event)
        if loop != self.hovered:
            self.hovered = loop
            self.repaint()

    def _unhover(self) -> None:
        if self.hovered is not None:
            self.hovered = None
            self.repaint()

    def _hover(self, event: Any, entering: bool) -> None:
        loop = self._loop_of(event)
        if entering and loop is not None and loop != self.hovered:
            self.hovered = loop
            self.repaint()
        elif not entering and loop is not None and self.hovered == loop:
            self.hovered = None
            self.repaint()

    def _click(self, event: Any) -> None:
        target = event.target
        more = target.closest("button.loops-more") if hasattr(target, "closest") else None
        if not is_null(more):
            which = str(more.getAttribute("data-more"))
            if which == "all":
                self.all_groups = True
            else:
                self.expanded.add(int(which))
            self.update(self.report)
            return
        loop = self._loop_of(event)
        if loop is None:
            return
        self.chosen = None if self.chosen == loop else loop
        if self.chosen is not None:
            self._into_view(loop)
        self._key = None
        self.update(self.report)
        self.repaint()

    def _into_view(self, loop: Loop) -> None:
        """Bring the loop into a view where its cards can be read, clear of the panels
        (``bend.editor.viewfit``), unless they can be already."""
        show_readably(self.editor, loop.nodes, panel_boxes())

    def _key_down(self, event: Any) -> None:
        if event.key == "Escape":
            event.preventDefault()
            event.stopPropagation()
            if not self.let_go():
                self.close()

"""HUD pills, inspector, breadcrumbs, legend, toolbar state, toast, dialogs, text overlay."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import js
from pyodide.ffi import create_once_callable

from bendscope.bend.editor.camera import zoom_text
from bendscope.bend.editor.editor import Editor
from bendscope.bend.editor.find import Finder
from bendscope.bend.editor.viewfit import Rect, overlaps, toast_cover
from bendscope.bend.kappa_view.explain import HUD_TITLES, hud_texts, max_kappa_span
from bendscope.bend.kappa_view.inspector import inspector_rows
from bendscope.bend.kappa_view.loop_cuts import CutReport
from bendscope.bend.kappa_view.loop_list import LoopReport
from bendscope.bend.kappa_view.outline import MAX_CARDS, OutlineWriter, outline_of
from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.keys import shortcuts
from bendscope.bend.model.elements import BASE_EDGE_KINDS, MEMORY_EDGE_KINDS
from bendscope.bend.render import theme

from .dom import by_id, clear, coarse_pointer, el, focus_back, is_null, js_obj, on, proxy

#: the least time (ms) between two moves of a message out of a card's way
TOAST_REPLACE_MS = 300.0
#: what a message never covers when it can help it, besides the cards and the panels: the open
#: menus (in ``#menu-root``) and the dialogs (shown while their backdrop is)
MENU_ROOT = "menu-root"
DIALOGS = (("help-backdrop", "help"), ("dialog-backdrop", "dialog"), ("copies-backdrop", "copies"))
#: the longest a large plane's outline waits for its cards to rest (see OutlineView), and how
#: often its timer looks whether they do
MOVING_WAIT_MS = 5000.0
MOVING_POLL_MS = 100.0


class Hud:
    """Bottom-left status pills; DOM is touched only when a value changes."""

    def __init__(self) -> None:
        self._last: dict[str, str] = {}
        self._shown: dict[str, bool] = {}  # the pills shown or hidden as last written
        self._key: tuple[Any, ...] | None = None  # what the pills were last made from
        self._topo: Topology | None = None
        self.mode = by_id("hud-mode")
        for key in ("kappa", "sccs", "depth", "mode"):  # what κ and its neighbours mean: hover (title), Tab, tap
            pill = by_id(f"hud-{key}")
            if key != "mode":
                pill.title = by_id(f"hud-{key}-tip").textContent = HUD_TITLES[key][""]
            on(pill, "focus", lambda event, key=key: self.tip(key, True))
            on(pill, "blur", lambda event, key=key: self.tip(key, False))
            on(pill, "keydown", lambda event, key=key: event.key == "Escape" and self.tip(key, False))
            on(pill, "click", lambda event: event.currentTarget.focus())  # (a tap focuses it: Safari does not)

    def tip(self, key: str, shown: bool) -> None:
        """Show (or hide) what the HUD pill ``key`` means, above it and inside the window (a
        pill's ``title`` shows only on a mouse's hover: a keyboard's focus and a tap show this)."""
        tip = by_id(f"hud-{key}-tip")
        tip.hidden = not shown
        if shown:
            box, width = by_id(f"hud-{key}").getBoundingClientRect(), float(js.window.innerWidth)
            tip.style.bottom = f"{float(js.window.innerHeight) - float(box.top) + 6}px"
            tip.style.left = f"{max(8.0, min(float(box.left), width - 8 - float(tip.offsetWidth)))}px"

    def _set(self, key: str, text: str) -> None:
        if self._last.get(key) != text:
            self._last[key] = text
            by_id(f"hud-{key}").textContent = text

    def update(
        self, editor: Editor, topo: Topology, layout_progress: float | str | None = None, selected: int = 0
    ) -> None:
        """``topo`` is the topology the frame shows; while a newer one is computed
        (``topo.pending``) the κ and SCC pills say so. ``selected`` > 0: ``topo`` is the
        topology of that many selected nodes, and a pill says so. Nothing is made or written
        when what the pills would say has not changed since the last frame (a drag's frames)."""
        s = editor.stats()
        progress = layout_progress
        if progress is not None and not isinstance(progress, str):
            progress = f"layout {round(progress * 100)}%"
        result = topo.result
        # (κ's bounds in the key too: O(regions), in case a result's regions are refined in place)
        spans = None if topo.pending else max_kappa_span(result)
        key = (s["nodes"], s["edges"], s["depth"], s["zoom"], id(topo), id(result), topo.pending, spans,
               result.get("scc_count"), progress, selected)  # fmt: skip
        if key == self._key:
            return
        self._key, self._topo = key, topo  # (the topology kept: its id is not another's meanwhile)
        texts = hud_texts({**s, "zoom": zoom_text(s["zoom"])}, None if topo.pending else result, progress, selected)
        for name in ("selection", "layout"):
            text = texts[name]
            if text is not None:
                self._set(name, text)
            if self._shown.get(name) != (text is not None):
                self._shown[name] = text is not None
                by_id(f"hud-{name}").hidden = text is None
        for name in ("nodes", "edges", "depth", "zoom", "kappa", "sccs"):
            self._set(name, texts[name] or "")
        mode = (texts["mode"] or "").removeprefix("mode: ")
        if self._last.get("mode") != f"mode: {mode}":
            self._set("mode", f"mode: {mode}")
            self.mode.className = "pill mode" if topo.pending else f"pill mode {mode.lower()}"
            self.mode.title = by_id("hud-mode-tip").textContent = HUD_TITLES["mode"][mode]


def outline_lines(editor: Editor, topo: Topology | None = None) -> tuple[str, list[str], list[str]]:
    """What the outline shows of the editor's plane with ``topo``: its summary, its loops' lines
    and its cards' lines (``bend.kappa_view.outline``)."""
    out = outline_of(editor, topo)
    more = [f"…and {out.more_cards:,} more cards (Ctrl+F finds them)."] if out.more_cards else []
    return out.summary, list(out.loops or ("No feedback loop.",)), [*out.cards, *more]


class OutlineView:
    """The graph outline a screen reader reads (``bend.kappa_view.outline``), rebuilt when the plane
    or its exact topology changed, at most once a second (every 5 s on large planes): an
    edit within that time is taken in by a timer of its own, which draws no frame. A change to
    where cards lie (a drag, the layout) words nothing new: no rebuild. On a plane of more than
    ``MAX_CARDS`` cards (an outline of full size, whose lines the page lays out for tens of
    milliseconds) the rebuild waits while the layout moves cards, at most ``MOVING_WAIT_MS``:
    a timer builds it once they rest, between frames, from the state then (as a build at once
    would have). A build writes its lines a few at a time (``OutlineWriter``), one step per
    frame, and its summary last; the section is ``aria-busy`` meanwhile."""

    def __init__(self) -> None:
        self.summary = by_id("outline-summary")
        self.loops = by_id("outline-loops")
        self.cards = by_id("outline-cards")
        self.section = by_id("outline")
        self.writer = OutlineWriter()  # (the page's outline lists start empty)
        self._writing = False  # a task is asked for to write the next lines
        self._key: tuple | None = None
        self._seen: tuple | None = None  # (plane, document version, topology) last looked at
        self._at = -1e9
        self._timer: Any = None
        self._latest: tuple[Editor, Topology] | None = None
        self._since: float | None = None  # when the outline shown became out of date
        self.builds = 0  # rebuilds (diagnostics)
        self.built_moving = 0  # rebuilds while the layout moved cards (diagnostics)

    def update(self, editor: Editor, topo: Topology, *, timer: bool = False) -> None:
        """Rebuild if the outline is out of date and may be now (``timer``: called by its own
        timer, between frames)."""
        if topo.pending:
            return
        seen = (editor.plane.id, editor.version, id(topo))
        if seen == self._seen:
            return
        self._seen = seen
        # what the outline words: the cards, their texts and kinds, the edges, the topology
        plane = editor.plane
        key = (plane.id, plane.version, plane.words_version, topo.max_kappa, topo.scc_count, id(topo))
        if key == self._key:
            self._since = None
            return
        self._latest = (editor, topo)
        now = float(js.performance.now())
        if self._since is None:
            self._since = now
        wait = (5000.0 if len(editor.plane.nodes) > 2000 else 1000.0) - (now - self._at)
        moving = editor.animating and len(plane.nodes) > MAX_CARDS and now - self._since < MOVING_WAIT_MS
        if moving:
            wait = max(wait, MOVING_POLL_MS)
        # rebuilt a moment ago, or cards move: once more when the wait is over (by the timer,
        # between frames, never by a frame while the timer waits)
        if wait > 0 or (self._timer is not None and not timer):
            self._seen = None  # (that update looks again)
            if self._timer is None:
                self._timer = js.setTimeout(create_once_callable(self._woken), wait + 16)
            return
        self._key, self._at, self._since = key, now, None
        self.builds += 1
        self.built_moving += editor.animating
        summary, loops, cards = outline_lines(editor, topo)
        self.writer.aim(summary, tuple(loops), tuple(cards))
        if not self._writing:  # (else the task already asked for writes on, to the new aim)
            self._write()

    def _write(self, *_: Any) -> None:
        """Write the outline's next few lines (``OutlineWriter``); while more are left, the
        page lays these out in the next frame and a task after that frame writes on."""
        self._writing = False
        boxes = {"loops": self.loops, "cards": self.cards}
        for name, index, text in self.writer.next_step():
            if name == "summary":
                self.summary.textContent = text
                continue
            box = boxes[name]
            if text is None:
                while int(box.children.length) > index:
                    box.removeChild(box.lastChild)
            elif index < int(box.children.length):
                box.children[index].textContent = text
            else:
                box.appendChild(el("li", text=text))
        self.section.setAttribute("aria-busy", "false" if self.writer.done else "true")
        if not self.writer.done:
            self._writing = True
            js.requestAnimationFrame(create_once_callable(self._after_frame))

    def _after_frame(self, *_: Any) -> None:
        js.setTimeout(create_once_callable(self._write_on), 0)

    def _write_on(self, *_: Any) -> None:
        try:
            self._write()
        except Exception as exc:  # a timer callback: report, never break the page
            js.console.error(f"outline: {exc}")

    def _woken(self, *_: Any) -> None:
        self._timer = None
        if self._latest is not None:
            try:
                self.update(*self._latest, timer=True)
            except Exception as exc:  # a timer callback: report, never break the page
                js.console.error(f"outline: {exc}")


class Inspector:
    """Top-right panel describing the selected card, edge or cards (``bend.kappa_view.inspector``); a
    row of kind "button <action>" is a button that runs that action (``act``). On a narrow screen,
    where it is a sheet over the bottom of the canvas, it does not come up while a gesture runs
    (``wait``): it comes up when the finger lifts, in the frame that moves the view clear of it."""

    def __init__(self, act: Callable[[str], None] | None = None) -> None:
        self.box = by_id("inspector")
        self._key: tuple | None = None
        self.act = act
        self._narrow = js.window.matchMedia("(max-width: 600px)")  # (its ``matches`` follows the window)
        on(self.box, "click", self._click)  # delegated: the rows are rebuilt, the listener is not

    def update(
        self,
        editor: Editor,
        topo: Topology,
        loops: LoopReport | None = None,
        cuts: CutReport | None = None,
        wait: bool = False,
    ) -> None:
        if wait and self.box.hidden and self._narrow.matches:
            return
        key, rows = inspector_rows(editor, topo, loops, cuts, touch=coarse_pointer())
        if key == self._key and key is not None:
            return
        self._key = key
        focused = js.document.activeElement
        refocus = not is_null(focused) and bool(self.box.contains(focused)) and str(focused.tagName) == "BUTTON"
        clear(self.box)
        for text, cls in rows:
            if cls.startswith("button "):
                action = cls.split()[1]
                button = el(
                    "button", text=text, cls="inspector-action", attrs={"type": "button", "data-action": action}
                )
                self.box.appendChild(button)
                if refocus:
                    button.focus()
            else:
                self.box.appendChild(el("div", text=text, cls=cls))
        self.box.hidden = not rows

    def _click(self, event: Any) -> None:
        target = event.target
        button = target.closest("button[data-action]") if hasattr(target, "closest") else None
        if not is_null(button) and self.act is not None:
            self.act(str(button.getAttribute("data-action")))


class Breadcrumbs:
    def __init__(self, go: Callable[[str], None]) -> None:
        self.box = by_id("breadcrumbs")
        self.go = go
        self._key: tuple | None = None
        on(self.box, "click", self._click)  # delegated: buttons are rebuilt, the listener is not

    def _click(self, event: Any) -> None:
        button = None if is_null(event.target) else event.target.closest("button[data-plane]")
        if not is_null(button) and button.getAttribute("aria-current") != "page":
            self.go(str(button.getAttribute("data-plane")))

    def update(self, editor: Editor) -> None:
        path = editor.doc.path()
        key = tuple((p.id, p.name) for p in path)
        if key == self._key:
            return
        self._key = key
        clear(self.box)
        for i, plane in enumerate(path):
            if i:
                self.box.appendChild(el("span", text="›", cls="crumb-sep"))
            button = el("button", text=plane.name or plane.id, attrs={"type": "button", "data-plane": plane.id})
            if i == len(path) - 1:
                button.setAttribute("aria-current", "page")
            self.box.appendChild(button)


class Legend:
    """Bottom-right key: node types, the editor's edge kinds, and the agent memory's kinds
    only while the plane has edges of them (so editor-only graphs keep a short legend)."""

    def __init__(self) -> None:
        self.box = by_id("legend")
        self.button = by_id("legend-toggle")
        self._kinds: tuple[str, ...] | None = None
        self._seen: tuple[Any, ...] | None = None  # (document, plane, version, marks, cuts shown)
        small = float(js.window.innerWidth) <= 600 or float(js.window.innerHeight) <= 500
        self.show(not small)  # collapsed at first on a phone, where it would cover the graph

    def show(self, shown: bool) -> None:
        self.box.hidden = not shown
        self.button.setAttribute("aria-expanded", "true" if shown else "false")
        self.button.textContent = "Legend ▾" if shown else "Legend ▸"

    def toggle(self) -> None:
        self.show(bool(self.box.hidden))

    def invalidate(self) -> None:
        """Rebuild at the next update (the theme changed its colours)."""
        self._kinds = None
        self._seen = None

    def update(self, editor: Editor, marked: tuple[str, ...] = ()) -> None:
        """``marked``: the classes of the loops the canvas marks (their markers explained)."""
        seen = (id(editor.doc), editor.plane.id, editor.plane.version, marked, editor.cuts_shown)
        if seen == self._seen:
            return
        self._seen = seen
        edges = editor.plane.edges.values()
        present = {e.props.kind for e in edges}
        signs = any(e.props.polarity is not None for e in edges)
        kinds = (*BASE_EDGE_KINDS, *(k for k in MEMORY_EDGE_KINDS if k in present), *(("±",) if signs else ()))
        kinds += tuple(f"loop {c}" for c in ("R", "B", "?") if c in marked)
        kinds += ("cuts",) if editor.cuts_shown else ()
        if kinds != self._kinds:
            self._kinds = kinds
            self._build(kinds)

    def _build(self, kinds: tuple[str, ...]) -> None:
        box = self.box
        clear(box)

        def item(swatch: Any, label: str) -> None:
            box.appendChild(el("div", cls="item", children=[swatch, el("span", text=label)]))

        item(el("span", cls="swatch card"), "node")
        item(el("span", cls="swatch card stargate"), "stargate")
        pin = el("span", cls="swatch card pinned")
        pin.style.setProperty("--pin", theme.PIN_MARK)
        item(pin, "pinned (stays put)")
        for kind in kinds:
            if kind == "cuts":  # the edges K shows
                swatch = el("span", cls="swatch")
                swatch.style.borderTopColor = theme.CUT_COLOR
                swatch.style.borderTopWidth = "3px"
                item(swatch, "fewest edges that break every loop (K)")
                continue
            if kind.startswith("loop "):  # a loop marker's class: its colour, as on the canvas
                mark = kind[-1]
                ring = el("span", text="L" if mark == "?" else mark, cls="swatch sign")
                ring.style.color = theme.LOOP_COLOR[mark]
                ring.style.borderColor = theme.LOOP_COLOR[mark]
                words = {"R": "reinforcing loop (R1…)", "B": "balancing loop (B1…)", "?": "loop without polarity (L1…)"}
                item(ring, words[mark])
                continue
            if kind == "±":  # an edge's polarity, the mark beside its arrowhead
                for sign, label in (("+", "+ same direction"), ("-", "− opposite direction")):
                    mark = el("span", text="+" if sign == "+" else "−", cls="swatch sign")
                    mark.style.color = theme.POLARITY_COLOR[sign]
                    item(mark, label)
                continue
            swatch = el("span", cls="swatch")
            swatch.style.borderTopColor = theme.EDGE_COLOR[kind]
            item(swatch, kind.replace("_", " ") + (" →" if kind in ("causal", "temporal") else ""))
        dashed = el("span", cls="swatch dashed")
        dashed.style.borderTopColor = theme.FAULT_COLOR
        item(dashed, "fault line (weakest cut)")
        for level, label in ((1, "loop κ=1"), (2, "loop κ=2"), (3, "loop κ≥3")):
            halo = el("span", cls="swatch halo")
            halo.style.background = theme.HALO_FILL[level]
            halo.style.border = f"1px solid {theme.HALO_STROKE[level]}"
            item(halo, label)


class Toast:
    """A status message over the canvas. It lets the pointer through, lies where it covers the
    least of the cards in sight, the panels and the open menus and dialogs
    (``bend.editor.viewfit.toast_cover``), and moves when a card comes under it (a card just
    made, or the layout's) or a menu or a dialog opens over its spot (before that frame is
    drawn: a mutation observer)."""

    def __init__(
        self, cards: Callable[[], list[Rect]], under: Callable[[Rect], bool], panels: Callable[[], list[Rect]]
    ) -> None:
        self.box = by_id("toast")
        self.cards, self.under, self.panels = cards, under, panels
        self._timer: Any = None
        self._hide_proxy = proxy(self.hide)
        self._rect: Rect | None = None
        self._placed = 0.0
        self._free = True  # the spot it lies on covered nothing
        self._again = False
        self._again_proxy = proxy(self._look_again)
        watch = js.MutationObserver.new(proxy(lambda records, observer: self._overlays_changed()))
        watch.observe(by_id(MENU_ROOT), js_obj({"childList": True}))
        for backdrop, _box in DIALOGS:
            watch.observe(by_id(backdrop), js_obj({"attributes": True, "attributeFilter": ["hidden"]}))

    def show(self, message: str, error: bool = False, ms: int = 4000) -> None:
        self.box.textContent = message
        self.box.className = "error" if error else ""
        self.box.hidden = False
        self.place()
        if self._timer is not None:
            js.clearTimeout(self._timer)
        self._timer = js.setTimeout(self._hide_proxy, ms)

    def overlays(self) -> list[Rect]:
        """The screen boxes of the panels, the open menus and the open dialogs."""
        boxes = self.panels()
        elements = [*by_id(MENU_ROOT).children]
        elements += [by_id(box) for backdrop, box in DIALOGS if not by_id(backdrop).hidden]
        for element in elements:
            r = element.getBoundingClientRect()
            if float(r.width) > 0 and float(r.height) > 0:
                boxes.append((float(r.left), float(r.top), float(r.right), float(r.bottom)))
        return boxes

    def place(self) -> None:
        """Put the message on the spot that covers the least. O(cards in sight)."""
        style = self.box.style
        style.left, style.top, style.bottom, style.transform = "0px", "0px", "auto", "none"
        size = float(self.box.offsetWidth), float(self.box.offsetHeight)
        width, height = float(js.window.innerWidth), float(js.window.innerHeight)
        covered, left, top = toast_cover(width, height, size, self.cards(), self.overlays())
        style.left, style.top = f"{left}px", f"{top}px"
        self._rect = (left, top, left + size[0], top + size[1])
        self._free = covered == 0.0
        self._placed = float(js.performance.now())

    def _overlays_changed(self) -> None:
        """A menu or a dialog opened or closed: one now over the message moves it at once."""
        rect = self._rect
        if not self.box.hidden and rect is not None and any(overlaps(rect, box) for box in self.overlays()):
            self.place()

    def keep_clear(self) -> None:
        """After a paint: a card, a panel, a menu or a dialog now under the message, or a window
        too small for where it is, moves it. It is looked at at most every ``TOAST_REPLACE_MS``
        (so a layout in motion does not chase it around, and the O(cards) look is not paid in
        every frame of a drag or a layout)."""
        rect = self._rect
        if self.box.hidden or rect is None or not self._free:
            return  # (where no spot was free, it stays: looking again costs O(cards) each time)
        now = float(js.performance.now())
        wait = TOAST_REPLACE_MS - (now - self._placed)
        if wait > 0:
            if not self._again:  # (looked at again then: no paint may follow)
                self._again = True
                js.setTimeout(self._again_proxy, wait + 1)
            return
        self._placed = now
        outside = rect[2] > float(js.window.innerWidth) or rect[3] > float(js.window.innerHeight)  # (a resize)
        if outside or self.under(rect) or any(overlaps(rect, box) for box in self.overlays()):
            self.place()

    def _look_again(self) -> None:
        self._again = False
        self.keep_clear()

    def hide(self) -> None:
        self.box.hidden = True
        self._rect = None


class FindBar:
    """Ctrl/Cmd+F: a search field over the canvas. Typing filters (other cards fade),
    Enter / Shift+Enter step through the matches (selected and centred), Esc closes."""

    def __init__(self, editor: Editor, repaint: Callable[[], None]) -> None:
        self.finder = Finder(editor)
        self.repaint = repaint
        self.bar = by_id("find-bar")
        self.input = by_id("find-input")
        self.status = by_id("find-status")
        on(self.input, "input", lambda event: self._search())
        on(self.input, "keydown", self._key)
        on(by_id("find-next"), "click", lambda event: self._step(1))
        on(by_id("find-prev"), "click", lambda event: self._step(-1))
        on(by_id("find-close"), "click", lambda event: self.close())

    @property
    def open(self) -> bool:
        return not self.bar.hidden

    def show(self) -> None:
        self.bar.hidden = False
        self.input.focus()
        self.input.select()
        self._search()

    def close(self) -> None:
        self.bar.hidden = True
        self.finder.search("")
        self.status.textContent = ""
        self.repaint()
        by_id("canvas").focus()

    def dimmed(self) -> set[str]:
        return self.finder.dimmed() if self.open else set()

    def _search(self) -> None:
        self.finder.search(str(self.input.value))
        self.status.textContent = self.finder.status()
        self.repaint()

    def _step(self, direction: int) -> None:
        if self.finder.query != str(self.input.value):
            self.finder.search(str(self.input.value))
        self.finder.step(direction)
        self.status.textContent = self.finder.status()
        self.repaint()

    def _key(self, event: Any) -> None:
        event.stopPropagation()  # typing here is never a shortcut
        if event.key == "Escape":
            event.preventDefault()
            self.close()
        elif event.key == "Enter":
            event.preventDefault()
            self._step(-1 if event.shiftKey else 1)


class HelpSheet:
    """The keyboard-shortcut sheet (``?``), built from ``bend.keys.shortcuts`` as text nodes.
    Esc, ``?``, Close or a click outside closes it."""

    def __init__(self) -> None:
        self.backdrop = by_id("help-backdrop")
        self.body = by_id("help-body")
        self._built = False
        self._opener: Any = None  # (what had the focus when it opened: it gets it back)
        on(by_id("help-close"), "click", lambda event: self.close())
        on(self.backdrop, "click", lambda event: self.close() if event.target == self.backdrop else None)
        on(self.backdrop, "keydown", self._key)

    @property
    def open(self) -> bool:
        return not self.backdrop.hidden

    def show(self) -> None:
        if not self._built:
            touch = coarse_pointer()
            for title, lines in shortcuts.sheet(touch=touch):
                if not lines:
                    continue
                rows = [
                    el("tr", children=[el("th", text=keys, attrs={"scope": "row"}), el("td", text=what)])
                    for keys, what in lines
                ]
                table = el("table", children=[el("tbody", children=rows)])
                cls = "meaning" if title == "What κ means" else ""  # (words, not keys: across both columns)
                self.body.appendChild(el("section", cls=cls, children=[el("h3", text=title), table]))
            self._built = True
        if not self.open:
            self._opener = js.document.activeElement
        self.backdrop.hidden = False
        by_id("help").focus()  # the sheet itself (focusing Close would scroll it to the end)

    def close(self) -> None:
        if self.open:
            self.backdrop.hidden = True
            focus_back(self._opener)  # (the ? button it was opened from, or the canvas)

    def _key(self, event: Any) -> None:
        if event.key in ("Escape", "?"):
            event.preventDefault()
            event.stopPropagation()
            self.close()


class Dialog:
    """A modal confirm / prompt. ``ask`` calls back with True/False or the text (None = cancelled)."""

    def __init__(self) -> None:
        self.backdrop = by_id("dialog-backdrop")
        self.text = by_id("dialog-text")
        self.input = by_id("dialog-input")
        self.ok = by_id("dialog-ok")
        self.cancel = by_id("dialog-cancel")
        self._callback: Callable[[Any], None] | None = None
        self._prompt = False
        self._opener: Any = None  # (what had the focus when it opened: it gets it back when cancelled)
        on(self.ok, "click", lambda event: self.close(True))
        on(self.cancel, "click", lambda event: self.close(False))
        on(self.backdrop, "keydown", self._key)

    @property
    def open(self) -> bool:
        return not self.backdrop.hidden

    def confirm(self, message: str, callback: Callable[[bool], None], ok_label: str = "Remove") -> None:
        self._show(message, callback, prompt=False, ok_label=ok_label)

    def prompt(
        self, message: str, initial: str, callback: Callable[[str | None], None], ok_label: str = "Save"
    ) -> None:
        self._show(message, callback, prompt=True, ok_label=ok_label, initial=initial)

    def _show(self, message: str, callback: Callable, prompt: bool, ok_label: str, initial: str = "") -> None:
        self._callback = callback
        self._prompt = prompt
        self.text.textContent = message
        self.ok.textContent = ok_label
        self.input.hidden = not prompt
        self.input.value = initial
        if not self.open:
            self._opener = js.document.activeElement
        self.backdrop.hidden = False
        (self.input if prompt else self.ok).focus()

    def _key(self, event: Any) -> None:
        if event.key == "Escape":
            event.preventDefault()
            self.close(False)
        elif event.key == "Enter" and self._prompt:
            event.preventDefault()
            self.close(True)

    def close(self, accepted: bool) -> None:
        if not self.open:
            return
        self.backdrop.hidden = True
        callback, self._callback = self._callback, None
        if callback is not None:
            value = (self.input.value if accepted else None) if self._prompt else accepted
            callback(value)
        if not self.open:  # (unless the answer asked another question): back where it was asked from,
            focus_back(None if accepted else self._opener)  # when cancelled; to the canvas when done


class TextOverlay:
    """The textarea over a node while its text is edited (Ctrl+Enter / blur commit, Esc cancels).

    ``on_done(cancelled)`` runs when it closes. A commit writes the text only when the
    user changed it, so a text set meanwhile by something else is not overwritten."""

    def __init__(self, editor: Editor, on_done: Callable[[bool], None], report: Callable[[str], None]) -> None:
        self.editor = editor
        self.area = by_id("text-editor")
        self.node_id: str | None = None
        self.initial = ""
        self.on_done = on_done
        self.report = report  # shows why a text was refused (the editor stays open)
        on(self.area, "keydown", self._key)
        on(self.area, "blur", lambda event: self.commit())
        on(self.area, "input", self._typed)

    def start(self, node_id: str) -> None:
        node = self.editor.plane.nodes.get(node_id)
        if node is None:
            return
        self.node_id = node_id
        self.initial = node.text
        self.area.value = node.text
        self.area.hidden = False
        self.place()
        self.area.focus()
        self.area.select()
        self.editor.needs_paint = True

    def place(self) -> None:
        if self.node_id is None:
            return
        node = self.editor.plane.nodes.get(self.node_id)
        if node is None:
            self.cancel()
            return
        zoom = self.editor.plane.camera.zoom
        x, y = self.editor.world_to_screen(node.x - node.width / 2, node.y - node.height / 2)
        style = self.area.style
        style.left = f"{x:.1f}px"
        style.top = f"{y:.1f}px"
        # exactly over the card (its border where the card's is, the text where the card's text is);
        # it grows downwards only when the text typed needs more lines than the card has
        style.width = f"{node.width:.1f}px"
        style.height = f"{node.height:.1f}px"
        style.transform = f"scale({zoom:.4f})"
        self._fit(node.height)

    def _fit(self, height: float) -> None:
        """Taller than ``height`` (CSS px before the zoom) when the text needs it."""
        area = self.area
        needed = float(area.scrollHeight) + float(area.offsetHeight) - float(area.clientHeight)
        if needed > height + 0.5:
            area.style.height = f"{needed:.1f}px"

    def _typed(self, event: Any) -> None:
        node = self.editor.plane.nodes.get(self.node_id) if self.node_id is not None else None
        if node is not None:
            self.area.style.height = f"{node.height:.1f}px"
            self._fit(node.height)

    def _key(self, event: Any) -> None:
        event.stopPropagation()
        if event.key == "Escape":
            event.preventDefault()
            self.cancel()
        elif event.key == "Enter" and (event.ctrlKey or event.metaKey):
            event.preventDefault()
            self.commit()

    def commit(self) -> None:
        if self.node_id is None:
            return
        node_id = self.node_id
        text = str(self.area.value)
        if node_id in self.editor.plane.nodes and text != self.initial:
            try:
                self.editor.set_text(node_id, text)
            except ValueError as exc:  # too long, or not valid Unicode: keep the text to fix
                self.report(str(exc))
                return
        self._close(cancelled=False)

    def cancel(self) -> None:
        if self.node_id is not None:
            self._close(cancelled=True)

    def _close(self, cancelled: bool) -> None:
        self.node_id = None
        self.area.hidden = True
        self.editor.needs_paint = True
        self.on_done(cancelled)
        js.document.getElementById("canvas").focus()

"""The live page's time control: a slider over the memory's own history (its change dates
marked), a date field, either axis (recorded time: what the memory knew then; valid time:
what held then), a diff of two moments, and when a chosen loop closed and who wrote the edge
that closed it. While it shows another moment than now, editing is off (moving and pinning
cards stay: they are the page's layout) and a banner says so.

What to show and say is ``bend.time_travel``; this module moves bytes and sets words. The
live driver (``app.live``) fetches the graph at the moment shown (:attr:`TimeControl.shown`).
"""

from __future__ import annotations

import json
import math
from typing import Any

import js
from pyodide.ffi import create_once_callable

from bendscope.bend.kappa_view.explain import loop_item_text
from bendscope.bend.live.ended import GHOST_ALPHA, Box, Ghosts, cross, ended_of, place, with_ghosts
from bendscope.bend.live.sync import scoped_path
from bendscope.bend.live.time_travel import (
    AXES,
    Row,
    Scale,
    Shown,
    closure_words,
    diff_rows,
    edit_refusal,
    highlighted,
    read_time,
    say_time,
)
from bendscope.bend.render import theme

from .dom import by_id, clear, el, js_obj, on

#: how long listing the loops may compute κ at once (ms); the rest runs in the page's slices
LOOPS_BUDGET_MS = 20.0


class TimeControl:
    """The time panel and banner of one live page (module's words)."""

    def __init__(self, live: Any) -> None:
        self.live = live
        self.app = live.app
        self.editor = live.editor
        self.shown = Shown()
        self.scale = Scale("recorded")
        self.rows: list[Row] = []
        self.closure = ""
        self.message = ""
        self.button = by_id("btn-time")
        self.panel = by_id("time-panel")
        self.slider = by_id("time-slider")
        self.marks = by_id("time-marks")
        self.field = by_id("time-field")
        self.status = by_id("time-status")
        self.banner = by_id("time-banner")
        self.banner_text = by_id("time-banner-text")
        self.since = by_id("time-since")
        self.until = by_id("time-until")
        self.diff_list = by_id("time-diff")
        self.loop_list = by_id("time-loops")
        self.closure_text = by_id("time-closure")
        self.ended_box = by_id("time-show-ended")
        self.show_ended = False
        self.ended: tuple[dict[str, str], dict[str, tuple[str, str, str]]] = ({}, {})
        self.last_xy: dict[str, tuple[float, float]] | None = None  # where the page last had each card
        self.ended_drawn = 0

    # ------------------------------------------------------------ wiring
    def start(self) -> None:
        self.button.hidden = False
        on(self.button, "click", lambda e: self.toggle())
        on(by_id("time-close"), "click", lambda e: self.toggle(False))
        on(self.panel, "keydown", self._key)
        on(self.slider, "input", self._slid)
        on(by_id("time-date"), "submit", self._dated)
        on(by_id("time-now"), "click", lambda e: self.travel(Shown(self.shown.axis)))
        on(by_id("time-banner-now"), "click", lambda e: self.travel(Shown(self.shown.axis)))
        on(by_id("time-compare"), "submit", self._compare)
        on(self.ended_box, "change", lambda e: self.set_show_ended(bool(self.ended_box.checked)))
        for axis in AXES:
            on(by_id(f"time-axis-{axis}"), "change", self._axis)

    def toggle(self, open_it: bool | None = None) -> None:
        opening = bool(self.panel.hidden) if open_it is None else open_it
        self.panel.hidden = not opening
        self.button.setAttribute("aria-pressed", "true" if opening else "false")
        if opening:
            self.app.spawn(self.load_scale())
            self.show_loops()
            self.slider.focus()
        else:
            self.button.focus()

    def _key(self, event: Any) -> None:
        if event.key == "Escape":
            event.preventDefault()
            event.stopPropagation()
            self.toggle(False)

    # ------------------------------------------------------------ moving in time
    @property
    def away(self) -> bool:
        return not self.shown.live

    def travel(self, shown: Shown) -> None:
        """Show ``shown``: the driver fetches the memory's graph at that moment; editing is off
        while it is not now."""
        if self.app.overlay.node_id is not None:
            self.say("Finish editing the card's text first (Ctrl+Enter, or Esc).")
            self.slider.value = str(self.scale.index_of(self.shown.at))
            return
        self.shown = shown
        self.editor.edit_guard = None if shown.live else lambda label: edit_refusal(self.shown, label)
        self.slider.value = str(self.scale.index_of(shown.at))
        self._slider_words()
        self.field.value = shown.at or "now"
        if not shown.live:
            self.since.value = self.field.value
        self.banner.hidden = shown.live
        self.banner_text.textContent = shown.banner()
        self.say(f"Showing {shown.words()}…")
        self.live.sync.changed()
        self.live.wake.set()
        self.live.show()

    def _slid(self, event: Any) -> None:
        self.travel(self.scale.shown(int(float(self.slider.value))))

    def _dated(self, event: Any) -> None:
        event.preventDefault()
        try:
            at = read_time(str(self.field.value or ""))
        except ValueError as exc:
            self.say(str(exc))
            return
        self.travel(Shown(self.shown.axis, at))

    def _axis(self, event: Any) -> None:
        axis = str(event.target.value)
        if axis in AXES and axis != self.shown.axis:
            self.shown = Shown(axis, self.shown.at)
            self.scale = Scale(axis)  # (until the axis's scale is read, the slider has only now)
            self.slider.max = "0"
            self.app.spawn(self.load_scale(travel=True))

    def _slider_words(self) -> None:
        index = int(float(self.slider.value))
        self.slider.setAttribute("aria-valuetext", self.scale.label(index))
        by_id("time-slider-value").textContent = self.scale.label(index)

    async def load_scale(self, travel: bool = False) -> None:
        """Read when the memory changed (``GET /api/history``) and set the slider's stops."""
        status, answer = await self._request("api/history")
        if status != 200:
            self.say(f"The memory's history could not be read: {answer.get('error', status)}")
            return
        self.scale = Scale.of(answer, self.shown.axis)
        self.slider.max = str(self.scale.last)
        self.slider.disabled = self.scale.last == 0
        clear(self.marks)
        for index in self.scale.marks():
            self.marks.appendChild(el("option", attrs={"value": str(index)}))
        if travel:
            self.travel(self.shown)
        else:
            self.slider.value = str(self.scale.index_of(self.shown.at))
            self._slider_words()
        more = " (earlier changes not listed)" if self.scale.more else ""
        what = "changes" if self.shown.axis == "recorded" else "validity bounds"
        by_id("time-scale").textContent = f"{len(self.scale.stops):,} {what}{more}, then now"

    # ------------------------------------------------------------ after each fetch
    def fetched(self, answer: dict[str, Any], added: list[str], ended: Any = None) -> None:
        """A graph the driver brought in: say what is shown, list its loops. Cards that come
        back (another moment) stand where the page last kept them. ``ended``: the ended cards
        and edges when the driver knows them (a delta), else read from the answer's document."""
        if added:
            self._put_back(added)
        document = answer.get("document")
        if ended is not None:
            self.ended = ended
        else:
            self.ended = ended_of(document) if isinstance(document, dict) else ({}, {})
        if self.last_xy is None:  # (cards that ended before the page opened: where it kept them)
            kept = self.live._kept()
            self.last_xy = {i: (float(v[0]), float(v[1])) for i, v in kept.items() if _point(v)}
        self.last_xy.update({i: (n.x, n.y) for i, n in self.editor.plane.nodes.items()})
        view = answer.get("view") or {}
        ended = int(view.get("ended") or 0)
        how = "drawn faded, not counted" if self.show_ended else "not drawn"
        left_out = f" · {ended:,} ended item{'' if ended == 1 else 's'} {how}" if ended else ""
        self.say(f"Showing {self.shown.words()}{left_out}.")
        if not self.panel.hidden:
            self.show_loops()
            if self.shown.live:
                self.app.spawn(self.load_scale())

    def _put_back(self, added: list[str]) -> None:
        kept = self.live._kept()
        plane = self.editor.plane
        places = {n: kept[n] for n in added if n in plane.nodes and isinstance(kept.get(n), list) and len(kept[n]) == 2}
        if not places:
            return
        with self.editor.remote_change():
            for node_id, (x, y) in places.items():
                if isinstance(x, (int, float)) and isinstance(y, (int, float)) and math.isfinite(x + y):
                    plane.update_node(node_id, x=float(x), y=float(y))

    def show_loops(self) -> None:
        """The loops of the graph shown, each a button: highlight it and say when it closed.
        κ of a large graph is computed in slices between frames: until it is ready, the list
        says so and is made again shortly."""
        topology = self.editor.shown_topology(LOOPS_BUDGET_MS)
        clear(self.loop_list)
        if topology.pending:
            self.loop_list.appendChild(el("li", text="Computing the loops…"))
            js.setTimeout(create_once_callable(lambda: None if self.panel.hidden else self.show_loops()), 300)
            return
        texts = {i: n.text for i, n in self.editor.plane.nodes.items()}
        sccs = [s for s in topology.result["sccs"] if len(s["nodes"]) > 1]
        if not sccs:
            self.loop_list.appendChild(el("li", text="No loop at this moment."))
        for scc in sccs[:50]:
            members = [str(n) for n in scc["nodes"]]
            button = el("button", text=loop_item_text(scc, texts), cls="time-item",
                        attrs={"type": "button", "title": "Highlight this loop and say when it closed"})  # fmt: skip
            on(button, "click", lambda e, m=members: self.app.spawn(self.loop(m, self.shown)))
            self.loop_list.appendChild(el("li", children=[button]))

    # ------------------------------------------------------------ diff and loops
    def _compare(self, event: Any) -> None:
        event.preventDefault()
        try:
            since = read_time(str(self.since.value or ""))
            until = read_time(str(self.until.value or ""))
        except ValueError as exc:
            self.say(str(exc))
            return
        self.app.spawn(self.compare(Shown(self.shown.axis, since), Shown(self.shown.axis, until)))

    async def compare(self, since: Shown, until: Shown) -> None:
        """List what changed from ``since`` to ``until`` and highlight the cards it names."""
        body = {"since": since.query(), "until": until.query()}
        status, answer = await self._request("api/diff", body)
        if status != 200:
            self.say(f"No diff: {answer.get('error', status)}")
            return
        plane = self.editor.plane
        texts = {**self.ended[0], **{i: n.text for i, n in plane.nodes.items()}}
        ends = {i: (a, b) for i, (a, b, _) in self.ended[1].items()} | {i: (e.a, e.b) for i, e in plane.edges.items()}
        self.rows = diff_rows(answer, texts, ends)
        clear(self.diff_list)
        for row in self.rows:
            if row.nodes:
                at = until if row.kind == "closed" else since
                button = el("button", text=row.text, cls=f"time-item {row.kind}", attrs={"type": "button"})
                on(button, "click", lambda e, r=row, m=at: self._row(r, m))
                self.diff_list.appendChild(el("li", children=[button]))
            else:
                self.diff_list.appendChild(el("li", text=row.text, cls=row.kind))
        self._highlight(highlighted(self.rows))
        self.say(f"From {say_time(since.at)} to {say_time(until.at)}: {len(self.rows)} line(s) of changes.")

    def _row(self, row: Row, at: Shown) -> None:
        self._highlight(list(row.nodes))
        if row.loop:
            self.app.spawn(self.loop(list(row.loop), at))

    async def loop(self, members: list[str], at: Shown) -> None:
        """Highlight a loop's cards and say when it closed and who wrote the closing edge."""
        self._highlight(members)
        status, answer = await self._request("api/loop", {"node_ids": members, "at": at.query()})
        texts = {i: n.text for i, n in self.editor.plane.nodes.items()}
        if status != 200:
            self.closure = f"When it closed is not known: {answer.get('error', status)}"
        else:
            self.closure = closure_words(answer, texts)
        self.closure_text.textContent = self.closure

    def _highlight(self, node_ids: list[str]) -> None:
        shown = [n for n in node_ids if n in self.editor.plane.nodes]
        self.editor.select(shown)
        self.app.request_frame()

    # ------------------------------------------------------------ what ended, drawn as ended
    def set_show_ended(self, show: bool) -> None:
        """Draw the memory's ended cards and edges (faded, dashed, struck through) or not; never
        counted either way."""
        self.show_ended = show
        self.ended_box.checked = show
        self.app.painter.after = self.ended_hook()
        self.editor.needs_paint = True
        self.app.request_frame()

    def ended_hook(self) -> Any:
        """What a painter draws over the graph: the ended marks when shown, else None."""
        return self.draw_ended if self.show_ended else None

    def ghosts(self) -> Ghosts:
        cards, edges = self.ended
        if not cards and not edges:
            return Ghosts()
        plane = self.editor.plane
        ends = {end for a, b, _ in edges.values() for end in (a, b)}
        boxes: dict[str, Box] = {
            i: (n.x, n.y, n.width, n.height) for i in ends if (n := plane.nodes.get(i)) is not None
        }
        return place(boxes, cards, edges, self.last_xy or {})

    def with_ended(self, svg: str) -> str:
        """An exported SVG with the ended marks, when they are shown."""
        return with_ghosts(svg, self.ghosts()) if self.show_ended else svg

    def draw_ended(self, ctx: Any, zoom: float) -> None:
        """The ended marks on a canvas whose transform is the world's."""
        ghosts = self.ghosts()
        self.ended_drawn = len(ghosts)
        if not ghosts:
            return
        ctx.save()
        ctx.globalAlpha = GHOST_ALPHA
        ctx.lineWidth = 1.5
        for edge in ghosts.edges:
            ctx.strokeStyle = theme.EDGE_COLOR.get(edge.kind, theme.CARD_BORDER)
            ctx.setLineDash(js_obj([6, 4]))
            ctx.beginPath()
            ctx.moveTo(edge.x1, edge.y1)
            ctx.lineTo(edge.x2, edge.y2)
            ctx.stroke()
            ctx.setLineDash(js_obj([]))
            c = cross(edge)
            ctx.beginPath()
            for k in (0, 4):
                ctx.moveTo(c[k], c[k + 1])
                ctx.lineTo(c[k + 2], c[k + 3])
            ctx.stroke()
        ctx.font = "12px Inter, sans-serif"
        ctx.textBaseline = "middle"
        ctx.textAlign = "left"
        for card in ghosts.cards:
            ctx.beginPath()
            ctx.roundRect(card.x, card.y, card.w, card.h, theme.CARD_RADIUS)
            ctx.fillStyle = theme.CARD_FILL
            ctx.fill()
            ctx.setLineDash(js_obj([5, 3]))
            ctx.strokeStyle = theme.CARD_BORDER
            ctx.lineWidth = 1
            ctx.stroke()
            ctx.setLineDash(js_obj([]))
            middle = card.y + card.h / 2
            ctx.fillStyle = theme.TEXT["body"]
            ctx.fillText(card.text, card.x + 10, middle)
            ctx.strokeStyle = theme.TEXT["body"]
            ctx.beginPath()
            ctx.moveTo(card.x + 8, middle)
            ctx.lineTo(card.x + card.w - 8, middle)
            ctx.stroke()
        ctx.restore()

    # ------------------------------------------------------------ plumbing
    def say(self, text: str) -> None:
        self.message = text
        self.status.textContent = text

    async def _request(self, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        options: dict[str, Any] = {"cache": "no-store", "credentials": "same-origin"}
        if body is not None:
            options |= {"method": "POST", "body": json.dumps(body), "headers": {"content-type": "application/json"}}
        try:
            search = str(js.window.location.search or "")  # (?namespace=: the page's namespace)
            response = await js.fetch(scoped_path(path, search), js_obj(options))
            status, text = int(response.status), str(await response.text())
        except Exception as exc:  # (the network, or the server gone)
            return 0, {"error": str(exc) or type(exc).__name__}
        try:
            answer = json.loads(text)
        except ValueError:
            answer = {"error": text[:200]}
        return status, answer if isinstance(answer, dict) else {}

    def state(self) -> dict[str, Any]:
        """For the automation API and the tests."""
        plan = getattr(self.app.painter, "plan", None)
        return {
            "shown": {"axis": self.shown.axis, "at": self.shown.at},
            "away": self.away,
            "query": self.shown.query(),
            "stops": len(self.scale.stops),
            "index": int(float(self.slider.value or 0)),
            "open": not self.panel.hidden,
            "message": self.message,
            "diff": [row.text for row in self.rows],
            "closure": self.closure,
            "halos": 0 if plan is None else int(plan.halos.length),
            "show_ended": self.show_ended,
            "ended": {"cards": sorted(self.ended[0]), "edges": sorted(self.ended[1])},
            "ended_drawn": self.ended_drawn,
        }


def _point(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, (int, float)) and math.isfinite(v) for v in value)
    )

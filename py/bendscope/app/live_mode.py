"""Live mode: the page served by the memory server (``serve --http PORT --editor``) shows
the agent's memory and writes the person's edits to it. The page knows it is served so by
the ``<meta name="bendscope-live">`` element that server adds (its content: the memory's
key); any other server serves the plain offline editor.

This module only moves bytes and shows words; what to send and how to apply what comes is
``bend.live.sync.LiveSync``. One driver task runs the sync's steps one at a time:

- a change event (``/api/events``, Server-Sent Events over the page's cookie) marks the
  memory changed; the driver then fetches ``/api/graph`` (or the query's subgraph) and
  brings it in — not while the person types in a card; after the whole memory, only what
  changed since the version the page has (``?since=``, ``bend.live.delta``);
- after each edit of the person's (seen by the document's version), the driver posts the
  operations to ``/api/write``; a refusal (409: the memory changed meanwhile; 400: a check
  of the memory's) is shown, and the memory's state is fetched over the page's;
- a memory larger than the page opens (no document in the answer) shows a search box:
  retrieval, then the neighbourhood; one that outgrows the page while open keeps its cards.

Card positions are kept per memory in this browser's ``localStorage``
(``bendscope.live.KEY``), saved every few seconds while they change; reopening the memory
shows the same picture. Autosave, New, Demo, Import and shared links are off in live mode:
the memory is the document.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import urllib.parse
from typing import Any

import js

from bendscope.bend.live.delta import Reads, Remote, apply_to, holding_changes
from bendscope.bend.live.ended import ended_after
from bendscope.bend.live.sync import Known, LiveSync, positions_to_keep, scoped_path
from bendscope.bend.live.time_travel import holding_only
from bendscope.bend.model.document import DocumentError

from .dom import by_id, is_null, js_obj, on, proxy
from .timecontrol import TimeControl

IDLE_S = 0.1  # how often an idle driver looks for the person's edits
RETRY_S = (0.5, 1.0, 2.0, 5.0)  # waits after failed requests, one after another
KEEP_POSITIONS_S = 3.0  # how often changed positions are written to localStorage
MAX_KEPT = 20_000  # positions kept per memory (the oldest dropped first)
#: above BIG cards, fetches start at least FETCH_GAP_MS apart (three frames): the changes that
#: arrive meanwhile, or while a fetch is answered, are brought in by the next one, in one
#: application (each costs the page O(changes), and the server O(n) to answer)
BIG = 500
FETCH_GAP_MS = 50.0


def live_key() -> str | None:
    """The memory's key when the page is served by the memory server, else None."""
    meta = js.document.querySelector('meta[name="bendscope-live"]')
    if is_null(meta):  # (JavaScript's null: the page was not served by the memory server)
        return None
    key = str(meta.getAttribute("content") or "")
    return key if key.isalnum() and len(key) <= 64 else None


class LiveMode:
    """The page's live connection to the memory (module's words)."""

    def __init__(self, app: Any, key: str) -> None:
        self.app = app
        self.key = key
        self.editor = app.editor
        self.sync = LiveSync(self.editor)
        self.editor.id_tag = secrets.token_hex(3) + "-"  # (this page's ids cannot meet another's)
        self.status = "connecting"
        self.query: str | None = None
        self.pending_query: str | None = None  # a search asked for, opened once the edits are written
        self.keep_view = False  # fetch the view (a query's, or the cards shown), not the whole memory
        self.view: dict[str, Any] = {}
        self.needs_query = False
        self.last_error: str | None = None
        self.events_seen = 0
        self.failures = 0
        self.arrivals: dict[str, float] = {}  # card id → when it first arrived (ms since the epoch)
        self.applied: list[tuple[float, str]] = []  # (when, what changed) of the last changes brought in
        self.timings: list[tuple[float, float]] = []  # ms of the last fetches: (JSON read, brought in)
        self.asked: list[tuple[float, float]] = []  # the last fetches: (when asked, ms until answered), page's clock
        self.served: Remote | None = None  # the memory's view as served at the version the page has
        self.wake = asyncio.Event()
        self.source: Any = None
        self._kept_at = -1
        self._kept_cache: dict[str, Any] | None = None  # (see _kept)
        self._fetched_at = -1e9
        self._kept_time = 0.0
        self.chip = by_id("live-status")
        self.search = by_id("live-search")
        self.search_input = by_id("live-query")
        self.view_text = by_id("live-view")
        self.time = TimeControl(self)  # the moment shown (now, unless the person travels)

    # ------------------------------------------------------------ start
    def start(self) -> None:
        """Show the live controls, listen to the memory's events, run the driver."""
        # (Copy link too: its link, to this origin without the token, would open nothing)
        for button in ("btn-new", "btn-demo", "btn-import", "btn-link"):
            by_id(button).hidden = True
        self.chip.hidden = False
        self.search.hidden = False
        on(self.search, "submit", self._search)
        self.time.start()
        self._relisten = proxy(self._listen)  # (made once: proxies are never freed)
        self._on_event = proxy(self._event)
        self._on_error = proxy(self._event_error)
        self._listen()
        on(js.window, "beforeunload", self._leaving)
        self.show()
        self.app.spawn(self.run())

    def _event(self, event: Any) -> None:
        self.events_seen += 1
        if self.status != "live" and self.sync.base is not None:
            self.status = "live"
            self.show()
        self.sync.changed()
        self.wake.set()

    def _listen(self) -> None:
        self.source = js.EventSource.new(scoped_path("api/events", _search()))
        self.source.addEventListener("change", self._on_event)
        self.source.onerror = self._on_error

    def _event_error(self, event: Any) -> None:
        self.status = "reconnecting"
        self.show()
        if int(self.source.readyState) == 2:  # CLOSED: an answer that was not a stream (503, 401): no retry of its own
            self.source.close()
            js.setTimeout(self._relisten, 3000)

    def _leaving(self, event: Any) -> None:
        """Leaving with edits the memory does not hold yet: the browser asks first."""
        self.keep_positions(force=True)
        if self.sync.base is not None and self.sync.local_ops():
            event.preventDefault()
            event.returnValue = ""

    def _search(self, event: Any) -> None:
        event.preventDefault()
        self.pending_query = str(self.search_input.value or "").strip()
        self.wake.set()

    def _switch_view(self) -> None:
        """Open the view searched for, once the person's edits are written (an empty search:
        the whole memory, if it is small enough)."""
        if self.pending_query is None or self.sync.busy or (self.sync.base is not None and self.sync.local_ops()):
            return
        text, self.pending_query = self.pending_query, None
        self.keep_positions(force=True)  # (the cards shown now are opened where they stand next time)
        self.query = text or None
        self.keep_view = self.query is not None
        self.needs_query = False
        self.sync.base = None  # (another view: opened afresh)
        self.sync.refused = False
        self.sync.force = set()
        self.sync.remote_dirty = True

    # ------------------------------------------------------------ the driver
    async def run(self) -> None:
        while True:
            self._switch_view()
            step = self.sync.next_step(hold_remote=self.app.overlay.node_id is not None)
            if step is None:
                self.keep_positions()
                self.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), IDLE_S)
                continue
            kind, ops = step
            try:
                if kind == "write":
                    await self._write(ops)
                else:
                    await self._fetch()
                self.failures = 0
            except Exception as exc:  # (the network or the server: tried again after a pause)
                self.sync.failed(kind)
                self.failures += 1
                self.status = "offline"
                self.last_error = str(exc) or type(exc).__name__
                self.show()
                await asyncio.sleep(RETRY_S[min(self.failures, len(RETRY_S)) - 1])

    async def _fetch(self) -> None:
        if self.sync.base is not None and len(self.sync.base.nodes) > BIG:  # (a burst of writes: fewer applications)
            wait = self._fetched_at + FETCH_GAP_MS - float(js.performance.now())
            if wait > 0:
                await asyncio.sleep(wait / 1000)
        self._fetched_at = float(js.performance.now())
        if self.keep_view:  # (a query's view, or the cards shown when the memory outgrew the page)
            kept = sorted(self.sync.base.nodes) if self.sync.base is not None else []
            view = {"query": self.query, "node_ids": kept, **self.time.shown.query()}
            asked = {"method": "POST", "body": json.dumps(view),
                     "headers": {"content-type": "application/json"}}  # fmt: skip
            response = await js.fetch(
                scoped_path("api/view", _search()), js_obj({**asked, "cache": "no-store", "credentials": "same-origin"})
            )
        else:  # (now, after the first: only what changed since the version the page has, bend.live.delta)
            moment = urllib.parse.urlencode(self.time.shown.query())
            since = None if moment else self.sync.since()
            url = f"api/graph?{moment}" if moment else "api/graph" if since is None else f"api/graph?since={since}"
            url = scoped_path(url, _search())
            response = await js.fetch(url, js_obj({"cache": "no-store", "credentials": "same-origin"}))
        status = int(response.status)
        text = str(await response.text())
        began = float(js.performance.now())
        self.asked.append((self._fetched_at, began - self._fetched_at))
        del self.asked[:-200]
        if self.sync.base is None:  # (the whole memory comes in: no collection until its layout rests)
            self.app.ahead.loading()
        answer = _json(text)
        parsed = float(js.performance.now())
        if status == 200 and answer.get("document") is None and "changes" not in answer:  # (too large to open whole)
            self.sync.failed("fetch")
            total = int((answer.get("view") or {}).get("total", 0))
            self.view = {"query": None, "shown": 0 if self.sync.base is None else len(self.sync.base.nodes),
                         "total": total}  # fmt: skip
            if self.sync.base is None:  # nothing shown yet: the person searches (or adds cards)
                self.sync.remote_dirty = False
                self.needs_query = True
                self.keep_view = True  # (the view: the cards the person adds, until a search)
                self.sync.base = Known()
                self.sync.seen_at = answer.get("at")
                self.status = "search"
                self.app.toast.show(
                    str(answer.get("error", "This memory is too large to open whole: search.")), ms=9000
                )
                self.search_input.focus()
            else:  # the memory outgrew the page: it keeps what it shows, and its changes
                self.keep_view = True
                self.app.toast.show(
                    f"The memory now holds {total:,} cards, more than the page opens at once: "
                    "it keeps showing these; search to open others.",
                    ms=9000,
                )
            self.show()
            return
        if status != 200:
            raise RuntimeError(f"the memory answered {status}: {answer.get('error', text[:200])}")
        first = self.sync.base is None
        if not first and self.app.overlay.node_id is not None:  # (the person is typing: applied after)
            self.sync.failed("fetch")
            return
        merged, ended = 0.0, None
        try:
            version = answer.get("version")
            version = version if isinstance(version, int) and not self.keep_view else None
            served, remote = self.served, self.sync.remote
            if "changes" in answer and version is not None and not first and served is not None and remote is not None:
                # the memory's whole view kept too (what ended included: the time control lists it)
                reads = Reads()  # (each record of the delta read once for both views)
                self.served = apply_to(served, answer["changes"], version, reads)
                after = {"nodes": self.served.nodes, "edges": self.served.edges}
                ended = ended_after(self.time.ended, after, answer["changes"])
                changes = holding_changes(answer["changes"], remote)  # (ended ones go, as below)
                merging = float(js.performance.now())
                brought = self.sync.fetched_changes(changes, version, answer.get("at"), reads)
                merged = float(js.performance.now()) - merging
            else:
                shown, _ = holding_only(answer["document"])  # (ended cards and edges are not drawn nor counted)
                brought = self.sync.fetched(shown, self._kept() if first else None, answer.get("at"), version)
                self.served = None if version is None else Remote.of_document(answer["document"], version)
        except DocumentError as exc:
            self.sync.remote = None  # (the next fetch asks for the whole memory, as sync's own refusal does)
            raise RuntimeError(f"the memory's document cannot be shown: {exc}") from None
        done = float(js.performance.now())
        self.app.applied_since.append(done - parsed)
        now = float(js.Date.now())
        for node_id in brought.added:
            self.arrivals.setdefault(node_id, now)
        if brought:
            self.applied = [*self.applied[-49:], (now, brought.words())]
        self.view = dict(answer.get("view") or {})
        self.status = "live" if self.events_seen else "connecting"
        if first:
            self.editor.opening_view()
        self.app.request_frame()
        self.show()
        self.time.fetched(answer, [] if first else brought.added, ended)
        self.app.log_task(began, f"fetch +{len(brought.added)}")
        # ms: reading the JSON, bringing it in (all), of which the editor's merge, then the time control's look
        self.timings = [*self.timings[-199:], (parsed - began, done - parsed, merged, js.performance.now() - done)]

    async def _write(self, ops: list[dict[str, Any]]) -> None:
        body = json.dumps({"ops": ops, "seen_at": self.sync.seen_at}, ensure_ascii=False)
        options = {
            "method": "POST",
            "body": body,
            "headers": {"content-type": "application/json"},
            "credentials": "same-origin",
            "cache": "no-store",
        }
        response = await js.fetch(scoped_path("api/write", _search()), js_obj(options))
        status = int(response.status)
        text = str(await response.text())
        if status == 200:
            self.sync.wrote(ops, accepted=True)
            return
        answer = _json(text)
        read_only = status == 503 and "read-only" in str(answer.get("error", ""))
        if status in (400, 409, 413) or read_only:  # (refused: nothing was written; retrying cannot help)
            message = str(answer.get("error") or text[:300])
            self.sync.wrote(ops, accepted=False, stale=status == 409)
            self.last_error = message
            self.app.toast.show(f"Not saved to the memory: {message}", error=True, ms=10_000)
            return
        if status == 401:
            self.app.toast.show(
                "The memory server no longer knows this page (restarted with another token?): open the URL it "
                "printed. Your edits since are not saved.",
                error=True,
                ms=15_000,
            )
        raise RuntimeError(f"the memory answered {status}: {text[:200]}")

    # ------------------------------------------------------------ what is shown
    def show(self) -> None:
        words = {
            "connecting": "memory: connecting…",
            "live": "memory: live",
            "offline": "memory: offline, retrying…",
            "reconnecting": "memory: reconnecting…",
            "search": "memory: search to open",
        }
        self.chip.textContent = words.get(self.status, self.status)
        if self.time.away:
            self.chip.textContent = "memory: in the past (editing off)"
        self.chip.title = self.last_error or "The agent's memory, live: its changes show here, your edits are stored"
        view = self.view
        if view.get("query"):
            self.view_text.textContent = (
                f"showing {view.get('shown', 0):,} of {view.get('total', 0):,} cards: “{view['query']}” and neighbours"
            )
        elif view.get("total") is not None and self.needs_query:
            self.view_text.textContent = f"{view['total']:,} cards: too many to open at once"
        elif self.keep_view and view:
            self.view_text.textContent = (
                f"showing {view.get('shown', 0):,} of {view.get('total', 0):,} cards (more than the page opens "
                "at once): search to open others"
            )
        else:
            self.view_text.textContent = f"all {view.get('shown', 0):,} cards" if view else ""

    def state(self) -> dict[str, Any]:
        """For the automation API and the tests."""
        sync = self.sync
        return {
            "live": True,
            "key": self.key,
            "status": self.status,
            "view": self.view,
            "needs_query": self.needs_query,
            "writes": sync.writes,
            "refusals": sync.refusals,
            "fetches": sync.fetches,
            "events": self.events_seen,
            "pending_ops": len(sync.local_ops()),
            "busy": sync.busy,
            "last_error": self.last_error,
            "applied": self.applied[-5:],
            "timings": self.timings[-50:],
            "asked": self.asked[-50:],
            "time": self.time.state(),
        }

    # ------------------------------------------------------------ positions
    def _storage_key(self) -> str:
        return f"bendscope.live.{self.key}"

    def _kept(self, fresh: bool = False) -> dict[str, Any]:
        """The positions kept for this memory (id → [x, y]): as last read or written by this page
        (read again every KEEP_POSITIONS_S at most, when positions are kept), or ``fresh`` from
        storage — not parsed again for every batch of cards that arrives."""
        if self._kept_cache is not None and not fresh:
            return self._kept_cache
        try:
            text = js.localStorage.getItem(self._storage_key())
            kept = json.loads(str(text)) if not is_null(text) else {}
        except Exception:  # (storage refused, or damaged: laid out afresh)
            kept = {}
        self._kept_cache = kept if isinstance(kept, dict) else {}
        return self._kept_cache

    def keep_positions(self, force: bool = False) -> None:
        """Write the cards' positions (merged with those kept of cards not shown now) every
        KEEP_POSITIONS_S while the layout or the person moves them."""
        now = float(js.performance.now())
        if self.sync.base is None or (not force and now - self._kept_time < KEEP_POSITIONS_S * 1000):
            return
        moved = self.editor.animating or self.editor.version != self._kept_at
        if not moved and not force:
            return
        self._kept_time = now
        self._kept_at = self.editor.version
        kept = self._kept(fresh=True)
        kept.update(positions_to_keep(self.editor.doc))
        if len(kept) > MAX_KEPT:
            kept = self._kept_cache = dict(list(kept.items())[-MAX_KEPT:])
        with contextlib.suppress(Exception):  # (storage full or refused: laid out again next time)
            js.localStorage.setItem(self._storage_key(), json.dumps(kept))


def _search() -> str:
    """The page's own query string (``?namespace=…`` opens one namespace of the memory)."""
    return str(js.window.location.search or "")


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}

"""Loading a document in slices: read, checked, its cards' text laid out and its size
counted a few milliseconds at a time, so that a page keeps its frames while a large
document comes in (the way κ is computed: ``kappa.steps``).

Nothing of the new document is seen before it is whole: the editor keeps showing, saving
and exporting the document it has, refuses edits meanwhile, and installs the new one in one
step when the last slice is done (``Editor.start_load``, ``Editor.compute_load``). The
document is the same however the work is sliced.

>>> from bendscope.bend.render.textlayout import approx_measure
>>> job = LoadJob('{"nodes": ["a", "b"], "edges": [{"source": "a", "target": "b"}]}', approx_measure)
>>> job.advance(0.0), job.error
(True, None)
>>> while job.advance(0.0):
...     pass
>>> job.loaded.capacity.nodes, sorted(job.loaded.cards), job.progress
(2, ['a', 'b'], 1.0)
>>> LoadJob("[1, 2, 3]", approx_measure).advance(1e9)
False
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bendscope.bend.model.capacity import Capacity
from bendscope.bend.model.document import DocumentError, document_from_data_steps, parse_document_steps
from bendscope.bend.model.elements import Document
from bendscope.bend.persist.filenames import remember_source
from bendscope.bend.render.textlayout import PLACEHOLDER, CardLayout, Measure, layout_card
from bendscope.kappa.steps import Steps, advance
from bendscope.shared.graphformats import format_of, read_graph_steps

#: what the waiter of a load dropped for a later one is told
REPLACED = "Another load replaced this one."
#: cards whose text is laid out between two pauses (a card of :data:`LONG_TEXT` characters or
#: more counts as half of them: its lines are split and wrapped up to the most a card shows)
CARDS_CHUNK = 16
LONG_TEXT = 2_000
#: the items of a graph read from a file let go of between two pauses, once it is checked
LET_GO = 2_048
#: a page reads a document in slices between its frames from this much work on, in units of
#: some 0.2 µs of CPython (a character of verbose JSON, read, checked and laid out): some 3 ms,
#: under 10 ms in Pyodide; a smaller document (at most some 100 cards in any format) loads at
#: once, within a frame
SLICED_FROM = 15_000
#: a character's cost in those units, by format (measured on the most compact files: short
#: ids and texts, 0.5 µs a character of JSON, 0.75 of CSV, 0.17 of GraphML, 0.95 of DOT, 1.1
#: of Mermaid)
COST = {"json": 2.5, "graphml": 1.0, "csv": 4.0, "dot": 5.0, "mermaid": 6.0}


def sliced(text: str | bytes, name: str = "") -> bool:
    """Whether a page reads ``text`` (a file called ``name``) in slices between its frames.

    >>> csv = "source,target\\n" + "a,b\\n" * 1_000  # (4,014 characters)
    >>> sliced(csv), sliced('["' + "a" * 5_000 + '"]'), sliced(csv[:3_000])
    (True, False, False)
    """
    head = text[:4_096] if isinstance(text, str) else text[:4_096].decode("utf-8", "replace")
    return len(text) * COST.get(format_of(head, name), 1.0) >= SLICED_FROM


@dataclass(slots=True)
class Loaded:
    """A document read whole: the cards' text layouts (by node id, with the text they are
    for) and its capacity, ready to be installed at once."""

    doc: Document
    cards: dict[str, tuple[str, CardLayout]]
    capacity: Capacity


class LoadJob:
    """One document coming in, in slices (:meth:`advance`); ``loaded`` when done, or
    ``error``: the message a person reads (then nothing of it is kept)."""

    def __init__(
        self,
        text: str | bytes,
        measure: Measure,
        *,
        label: str | None = "Import",
        name: str = "",
        clock: Callable[[], float] = time.perf_counter,
        prepare: Callable[[Document], Steps[None]] | None = None,
        then: Callable[[], Steps[None]] | None = None,
        done: Callable[[str | None], None] | None = None,
        placeholder: str = PLACEHOLDER,
    ) -> None:
        self.label = label
        #: the words an empty card shows (the editor's: they name the gesture that edits it)
        self.placeholder = placeholder
        #: more steps on the document read whole, before it is installed (the page makes its
        #: first frame's edges ahead: ``ScenePlanner.prepare_edges``)
        self.prepare = prepare
        #: more steps once the document is installed, up to the first pause in the install's
        #: slice and the rest in slices of their own, before ``done`` is told (the page sends
        #: its first frame's scene plan there: ``app.ahead``)
        self.then = then
        self.after: Steps[None] | None = None  # those steps, once installed (see ``follow``)
        #: told once how the load ended: None (installed), the error, or :data:`REPLACED`
        self.done = done
        #: the document is read and waits to be installed in a slice of its own
        self.ready = False
        self.measure = measure
        self.clock = clock
        self.loaded: Loaded | None = None
        self.error: str | None = None
        self.progress = 0.0  # 0 → 1, for a person's eye only
        self.slices = 0
        self._steps = self._run(text, name)

    @property
    def pending(self) -> bool:
        return self.loaded is None and self.error is None

    def advance(self, budget_ms: float) -> bool:
        """Work on for up to ``budget_ms`` (at least one step); whether it is still pending."""
        if not self.pending:
            return False
        start = self.clock()
        self.slices += 1
        try:
            ended, loaded = advance(self._steps, lambda: (self.clock() - start) * 1000.0 >= budget_ms)
        except UnicodeDecodeError:
            self.error = "The file is not UTF-8 text."
            return False
        except DocumentError as exc:
            self.error = str(exc)
            return False
        if ended:
            self.loaded = loaded
            self.progress = 1.0
        return not ended

    def installed(self) -> bool:
        """The document was just installed: begin the steps after it (up to their first pause,
        in this slice); whether any are left for slices of their own."""
        if self.then is None:
            return False
        self.after = self.then()
        return self.follow(0.0)

    def follow(self, budget_ms: float) -> bool:
        """Work on the steps after the install for up to ``budget_ms`` (at least one step);
        whether some are left."""
        if self.after is None:
            return False
        start = self.clock()
        ended, _ = advance(self.after, lambda: (self.clock() - start) * 1000.0 >= budget_ms)
        if ended:
            self.after = None
        return not ended

    def cancel(self) -> None:
        """Stop here: nothing more is read, nothing of it is kept (its ``done`` is told
        :data:`REPLACED`) — unless it was installed: then the steps after it stop and ``done``
        is told None."""
        if self.after is not None:
            self.after.close()
            self.after = None
        else:
            self._steps.close()
            self.loaded, self.error = None, REPLACED
        self.tell()

    def tell(self) -> None:
        """Tell ``done`` (once) how the load ended: its ``error``, or None."""
        done, self.done = self.done, None
        if done is not None:
            done(self.error)

    def _run(self, text: str | bytes, name: str) -> Steps[Loaded]:
        head = text if isinstance(text, str) else text[:4_096].decode("utf-8", "replace")
        fmt = format_of(head, name)
        if fmt == "json":
            try:
                doc = yield from parse_document_steps(text)
            except DocumentError as exc:
                if head.lstrip("\ufeff \t\r\n")[:1] in ("{", "["):
                    raise
                said = str(exc)  # (a text that is none of the formats: read as JSON, the last guess)
                raise DocumentError(f"{READS} — read as JSON: {said[:1].lower()}{said[1:]}") from None
        else:
            if isinstance(text, bytes):
                text = text.decode("utf-8")
            data = yield from read_graph_steps(text, fmt)
            yield
            doc = yield from document_from_data_steps(data)
            yield from _let_go(data)
        if name:
            remember_source(doc, name)  # (its files are named after it: ``bend.persist.filenames``)
        self.progress = 0.5
        total = max(1, sum(len(p.nodes) for p in doc.planes.values()))
        cards: dict[str, tuple[str, CardLayout]] = {}
        spent = 0
        for plane in doc.planes.values():
            for node in plane.nodes.values():
                layout = layout_card(node.text, self.measure, self.placeholder)
                cards[node.id] = (node.text, layout)
                node.width, node.height = layout.width, layout.height
                spent += 1 + min(len(node.text), LONG_TEXT) * CARDS_CHUNK // (LONG_TEXT * 2)
                if spent >= CARDS_CHUNK:
                    spent = 0
                    self.progress = 0.5 + 0.4 * len(cards) / total
                    yield
        capacity = yield from Capacity.steps(doc)
        if self.prepare is not None:
            self.progress = 0.95
            yield
            yield from self.prepare(doc)
        return Loaded(doc, cards, capacity)


#: what a file must be, said when it is none of it
READS = (
    "Not a graph file Import… reads: a Bendscope or {nodes, edges} JSON, a CSV with source and target "
    "columns, GraphML, DOT or Mermaid"
)


def _let_go(data: dict[str, Any]) -> Steps[None]:
    """Empty the lists of a graph read from a file a piece at a time, a pause after each:
    freed at once, tens of thousands of dicts are one long step. O(size)."""
    for key in ("edges", "nodes"):
        items = data.get(key)
        while isinstance(items, list) and items:
            del items[-LET_GO:]
            yield


def run_to_end(job: LoadJob) -> LoadJob:
    """``job`` done in one go (what a caller without frames to keep does)."""
    job.advance(math.inf)
    return job

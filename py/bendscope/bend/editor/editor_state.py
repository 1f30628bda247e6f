"""What the editor holds, declared once for ``Editor`` and its parts (``selection``,
``camera``, ``hit_testing``, ``kappa_driver``, ``layout_driver``): each part is a class in
this chain, ``Editor`` the last, so every part reads the same state. ``Editor.__init__``
sets it."""

from __future__ import annotations

from collections.abc import Callable

from bendscope.bend.kappa_view.loop_cuts import CutFinder
from bendscope.bend.kappa_view.loop_list import LoopFinder
from bendscope.bend.kappa_view.topology_cache import TopologyCache
from bendscope.bend.layout.simulation import LayoutEngine, LayoutFactory
from bendscope.bend.model.capacity import Capacity
from bendscope.bend.model.elements import Document, Plane
from bendscope.bend.model.history import Entry, History, Transaction
from bendscope.bend.render.textlayout import CardLayout, Measure


class EditorState:
    """The editor's state: the document, the selection, the history, the view settings,
    the layout engines and the κ computations (see ``Editor.__init__``)."""

    doc: Document
    measure: Measure
    #: the words an empty card shows (they name the gesture that edits it)
    placeholder: str
    #: makes each plane's layout engine
    layout_factory: LayoutFactory
    history: History
    topology_cache: TopologyCache
    loop_finder: LoopFinder
    cut_finder: CutFinder
    cuts_shown: bool
    viewport: tuple[float, float]
    selection: list[str]
    selected_edge: str | None
    edge_anchor: str | None
    exact_limit_override: int | None
    seed_override: int | None
    version: int
    edited: bool
    needs_paint: bool
    layout_frozen: bool
    connect_kind: str
    id_tag: str
    undo_guard: Callable[[Entry, int], str | None] | None
    edit_guard: Callable[[str], str | None] | None
    capacity: Capacity
    _cards: dict[str, tuple[str, CardLayout]]
    _sims: dict[str, LayoutEngine]
    _ticked: LayoutEngine | None
    #: raised each time the cards come to rest after moving a lot (a layout run, Arrange)
    rests: int
    _moved: bool
    _tx: Transaction | None
    _used_ids: set[str]

    @property
    def seed(self) -> int:
        return self.doc.settings.seed if self.seed_override is None else self.seed_override

    @property
    def exact_limit(self) -> int | None:
        return self.exact_limit_override if self.exact_limit_override is not None else self.doc.settings.exact_limit

    @property
    def plane(self) -> Plane:
        return self.doc.active

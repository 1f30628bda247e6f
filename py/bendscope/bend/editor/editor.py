"""The editor front object: the one place the UI, keyboard and automation go through.

It owns the document, the selection, the history, one layout simulation per
plane, card sizes and the topology cache. Every edit is one transaction, so every
edit is undoable; navigation, camera moves and layout motion are not edits.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Mapping

from bendscope.bend.editor.camera import clamp_coord
from bendscope.bend.editor.layout_driver import LayoutDriver
from bendscope.bend.editor.loading import Loaded, LoadJob, run_to_end
from bendscope.bend.kappa_view.loop_cuts import CutFinder
from bendscope.bend.kappa_view.loop_list import LoopFinder
from bendscope.bend.kappa_view.topology_cache import TopologyCache
from bendscope.bend.layout.arrange import DIRECTIONS, ArrangeJob, PreparedArrangement, arrange_job, prepare
from bendscope.bend.layout.simulation import LayoutFactory, Simulation
from bendscope.bend.model.capacity import Capacity
from bendscope.bend.model.document import serialize_document
from bendscope.bend.model.elements import (
    DEFAULT_KIND,
    EDGE_KINDS,
    MAX_LABEL,
    MAX_TEXT,
    NODE_TYPES,
    POLAR_KINDS,
    Document,
    Edge,
    EdgeProps,
    Node,
    Plane,
    empty_document,
)
from bendscope.bend.model.history import Entry, History, Transaction, apply, merged
from bendscope.bend.render.halos import keep_trees
from bendscope.bend.render.textlayout import PLACEHOLDER, Measure, approx_measure
from bendscope.kappa.steps import Steps, finish
from bendscope.shared.graphformats import write_graph

#: set_edge's polarity argument when the polarity stays as it is
KEEP = "keep"
#: what an edit, undo or redo is told while a document comes in (``start_load``)
LOADING = "The graph is still loading; try again in a moment."
CARD_LOG = 64  # document changes whose touched cards are kept (see Editor.cards_touched_since)


class Editor(LayoutDriver):
    """Document + selection + history + layout + topology, behind one API.

    The front object: edits, the document and undo are here; its parts are the classes it
    extends, one module each — ``selection``, ``camera``, ``hit_testing``, ``kappa_driver``
    (κ in slices), ``layout_driver`` — over the state declared in ``editor_state``."""

    def __init__(
        self,
        doc: Document | None = None,
        *,
        measure: Measure = approx_measure,
        seed: int | None = None,
        layout: LayoutFactory | None = None,
    ):
        self.measure = measure
        self.placeholder = PLACEHOLDER
        #: makes each plane's layout engine: the pure-Python Simulation unless given (the page
        #: passes its d3-force kernel)
        self.layout_factory = layout or (lambda plane, seed: Simulation(plane, seed=seed))
        self.history = History()
        self.topology_cache = TopologyCache()
        self.loop_finder = LoopFinder()
        self.cut_finder = CutFinder()
        #: a view setting: the fewest edges that break every loop are drawn on the canvas (K)
        self.cuts_shown = False
        self.viewport = (1280.0, 800.0)
        self.selection = []
        self.selected_edge = None
        #: the card whose edges E / Shift+E step through while one of them is selected
        self.edge_anchor = None
        self.exact_limit_override = None
        self.seed_override = seed
        self.version = 0  # bumped by every document change (autosave watches it)
        self.remote_versions = 0  # of those, the bumps of someone else's changes (``remote_change``)
        #: (version, the cards of the plane shown that change touched; None: maybe any) of the last changes
        self.card_log: list[tuple[int, frozenset[str] | None]] = []
        self.edited = False  # whether this session changed the document at all
        self.needs_paint = True
        self.layout_frozen = False  # a view setting (not in the document): the layout stands still
        self.rests = 0
        self._moved = False  # the layout moved cards since it last came to rest
        #: the kind a new connection gets (Connect to… and dragging from a handle): a tool
        #: setting, not part of the document
        self.connect_kind = "causal"
        self._cards = {}
        self._sims = {}
        self._tx = None
        self._used_ids = set()
        #: put into every new id after its prefix (the live editor: several pages and an agent
        #: make ids for one memory, so each page's own carry a random tag)
        self.id_tag = ""
        #: asked before an undo (side 0) or redo (side 1): a message refuses it (ValueError),
        #: None lets it run (the live editor: a step on something someone else changed since)
        self.undo_guard = None
        #: asked before every edit, undo and redo with its label: a message refuses it
        #: (ValueError), None lets it run (the live editor showing another moment: layout only)
        self.edit_guard = None
        #: a document coming in, in slices (``start_load``); the document shown stays whole
        self.loading: LoadJob | None = None
        self.doc = empty_document()
        self._install(doc or empty_document(), alpha=1.0)

    # ------------------------------------------------------------------ document
    def _install(self, doc: Document, alpha: float, loaded: Loaded | None = None) -> None:
        """Show ``doc`` (its cards' sizes and capacity from ``loaded`` when it was read in
        slices with the current measure, else computed here)."""
        doc.recorder = None
        doc.guarded = True  # from now on every change goes through a transaction
        self.doc = doc
        for old in self._sims.values():
            old.close()
        self._sims = {}
        self._ticked = None  # the engine the last tick moved
        self.rests += 1
        self._cards = dict(loaded.cards) if loaded is not None else {}
        # ids only ever join this set: an id that any reachable state (undo, redo, a
        # swapped-out document) holds is never issued again
        self._used_ids |= doc.all_ids()
        self.capacity = loaded.capacity if loaded is not None else Capacity(doc)
        self.selection = []
        self.selected_edge = None
        self.topology_cache.invalidate()
        for plane in doc.planes.values():
            self.refresh_sizes(plane)
            self.sim(plane).alpha = alpha
            plane.layout_dirty = False
        self.needs_paint = True

    def load(self, text: str | bytes, label: str | None = "Import", name: str = "") -> str | None:
        """Replace the document with ``text`` — a Bendscope document, or a graph in another
        format (``graphformats``: by the file's ``name``, else by its first words); returns
        None, or the error message (and then nothing changes). With a ``label`` the
        replacement is one undoable step; with None the history is cleared instead (a fresh
        start, as the automation API does). A load in slices that is still running is
        dropped (the latest load wins)."""
        self.cancel_load()
        return self._take(run_to_end(LoadJob(text, self.measure, label=label, name=name, placeholder=self.placeholder)))

    def start_load(
        self,
        text: str | bytes,
        label: str | None = "Import",
        name: str = "",
        prepare: Callable[[Document], Steps[None]] | None = None,
        done: Callable[[str | None], None] | None = None,
        then: Callable[[], Steps[None]] | None = None,
    ) -> LoadJob:
        """:meth:`load` in slices: the job is read by :meth:`compute_load`, a slice at a time,
        and installed whole (in a slice of its own) when done; meanwhile the document shown
        stays as it is (saved, exported and shared whole) and edits, undo and redo are refused
        with a message. ``prepare``: more steps on the document read whole before it is
        installed; ``then``: steps after the install (up to their first pause in the install's
        slice, the rest in slices of their own, edits still refused); ``done``: told how it
        ended, after those (see ``LoadJob``). A running load is dropped (the latest load wins)."""
        self.cancel_load()
        self.loading = LoadJob(
            text, self.measure, label=label, name=name, prepare=prepare, then=then, done=done,
            placeholder=self.placeholder,
        )  # fmt: skip
        self.needs_paint = True
        return self.loading

    def compute_load(self, budget_ms: float) -> bool:
        """A slice of the running load (at least one step); whether it is still running. When
        it is read the document is installed (or, refused, nothing changes: the job's
        ``error``), then its steps after the install run (``start_load``'s ``then``)."""
        job = self.loading
        if job is None:
            return False
        installed = job.after is not None
        try:
            if job.after is not None:  # (installed: the steps after it)
                if job.follow(budget_ms):
                    return True
            elif job.advance(budget_ms):
                return True
            elif job.loaded is not None and not job.ready:
                job.ready = True  # (installed in the next slice, not after this one's work)
                return True
            else:
                self.loading = None
                installed = self._take(job) is None
                if installed and job.installed():
                    self.loading = job  # (its steps after the install go on in slices of their own)
                    return True
        except Exception as exc:  # (a step failed: the load ends, its waiter is told, the error goes on)
            if job.after is not None:
                job.after.close()
                job.after = None
            if not installed and job.error is None:
                job.error = f"The graph could not be loaded: {exc}"
            self.loading = None
            job.tell()
            raise
        self.loading = None
        job.tell()
        return False

    def cancel_load(self) -> None:
        """Drop the running load, if any: nothing of it is kept — unless it was installed
        already (its steps after the install stop; the document stays)."""
        if self.loading is not None:
            self.loading.cancel()
            self.loading = None
            self.needs_paint = True

    def _take(self, job: LoadJob) -> str | None:
        """Install what ``job`` read (as :meth:`load` says), or return its error."""
        loaded = job.loaded
        if loaded is None:
            return job.error
        if job.measure is not self.measure:  # the font changed meanwhile: measure the cards again
            loaded.cards.clear()
        doc = loaded.doc
        if job.label is None:
            self._install(doc, alpha=1.0 if doc.needs_layout else 0.0, loaded=loaded)
            self.history.clear()
            self.edited = True
            self._changed()
        else:
            self.replace_with(doc, job.label, loaded)
        return None

    def replace_with(self, doc: Document, label: str = "Replace graph", loaded: Loaded | None = None) -> None:
        """Install ``doc`` in place of the current document as one undoable step."""
        if self._tx is not None:
            raise RuntimeError("cannot replace the document inside a transaction")
        entry = Entry(label, swap=(self.doc, doc))
        # a document with positions is shown as it was saved; one without is laid out
        self._install(doc, alpha=1.0 if doc.needs_layout else 0.0, loaded=loaded)
        self.history.push(entry)
        self._changed()

    def replace_document(self, doc: Document, *, alpha: float = 1.0, edited: bool = False) -> None:
        """Install ``doc`` (restore from storage, demo) without an undo step; a running load
        is dropped."""
        self.cancel_load()
        self._install(doc, alpha)
        self.history.clear()
        self.edited = edited

    def export(self, indent: int | None = 2) -> str:
        return serialize_document(self.doc, indent=indent)

    def export_as(self, fmt: str) -> str:
        """The current plane in another format (``graphformats``: csv, graphml, dot, mermaid)."""
        plane = self.plane
        nodes = [{"id": n.id, "text": n.text, "x": n.x, "y": n.y} for n in plane.nodes.values()]
        edges = [{"id": e.id, "a": e.a, "b": e.b, "props": e.props.to_dict()} for e in plane.edges.values()]
        return write_graph(nodes, edges, fmt)

    def new_id(self, prefix: str) -> str:
        k = len(self._used_ids)
        while True:
            candidate = f"{prefix}-{self.id_tag}{k:x}"
            if candidate not in self._used_ids:
                self._used_ids.add(candidate)
                return candidate
            k += 1

    # ------------------------------------------------------------------ history
    def edit_refusal(self, label: str) -> str | None:
        """Why an edit named ``label`` is refused now (``edit_guard``'s message), or None."""
        if self.loading is not None:
            return LOADING
        return None if self.edit_guard is None else self.edit_guard(label)

    @contextlib.contextmanager
    def transaction(self, label: str) -> Iterator[Transaction]:
        """Group edits into one undo step (nested calls join the outer one).

        The transaction is the document's recorder while open. If the body raises,
        everything it changed is put back and nothing reaches the history.
        """
        if self._tx is not None:
            yield self._tx
            return
        refusal = self.edit_refusal(label)
        if refusal is not None:
            raise ValueError(refusal)
        tx = self._tx = Transaction(self.doc, label)
        self.doc.recorder = tx
        try:
            yield tx
        except BaseException:
            self._tx = None
            self.doc.recorder = None
            tx.rollback()
            for plane_id in {key[1] for key in tx.before}:
                plane = self.doc.planes.get(plane_id)
                if plane is not None:
                    self.refresh_sizes(plane)
            self._prune_selection()
            raise
        self._tx = None
        self.doc.recorder = None
        entry = tx.entry()
        if entry is None:
            return
        problem = self.capacity.problem(self.doc, entry)
        if problem is not None:  # more than a document may hold: undo it, say why
            apply(self.doc, entry, 0)
            for plane_id in entry.planes():
                plane = self.doc.planes.get(plane_id)
                if plane is not None:
                    self.refresh_sizes(plane)
            self._prune_selection()
            raise ValueError(problem)
        self.capacity.apply(self.doc, entry, 1)
        self.history.push(entry)
        self._after_change(entry)

    @contextlib.contextmanager
    def remote_change(self) -> Iterator[None]:
        """Changes someone else made (the memory's agent, seen by the live editor), written
        through the model's mutators like any change — sizes, layout near what changed,
        capacity, the version — but not a step of this person's undo history. If the body
        raises, everything it changed is put back."""
        if self._tx is not None:
            raise RuntimeError("a remote change cannot join a transaction")
        tx = self._tx = Transaction(self.doc, "Remote change")
        self.doc.recorder = tx
        try:
            yield
        except BaseException:
            tx.rollback()
            raise
        finally:
            self._tx = None
            self.doc.recorder = None
        entry = tx.entry()
        if entry is None:
            return
        self.capacity.apply(self.doc, entry, 1)
        self._prune_selection()
        version = self.version
        self._after_change(entry)
        self.remote_versions += self.version - version

    def _after_change(self, entry: Entry) -> None:
        self._close_gone_sims()
        for plane_id in entry.planes():
            plane = self.doc.planes.get(plane_id)
            if plane is not None:
                self._refresh_touched(plane, entry)
                if plane.layout_dirty:  # not for changes that move nothing (type, portal, name)
                    plane.layout_dirty = False
                    if not self.layout_frozen:  # frozen: nothing moves, now or when unfrozen
                        # local: only what is near the change moves (never a reshuffle); a run
                        # over the whole plane under way moves it too and keeps cooling as it was
                        # (raised on every change, a stream of changes kept every card moving)
                        sim = self.sim(plane)
                        whole = sim.active and sim.free is None
                        sim.reheat(alpha=0.0 if whole else None, around=entry.touched_nodes(plane_id))
        shown = self.plane.id
        whole = entry.swap is not None or any(kind == "plane" and where == shown for kind, where, _ in entry.changes)
        self._changed(None if whole else frozenset(entry.touched_nodes(shown)))

    def _refresh_touched(self, plane: Plane, entry: Entry) -> None:
        """The sizes of the cards ``entry`` touched on ``plane`` (every card's when it touched
        the plane itself). O(changes)."""
        if any(kind == "plane" and where == plane.id for kind, where, _ in entry.changes):
            self.refresh_sizes(plane)
            return
        for (kind, plane_id, node_id), (_, after) in entry.changes.items():
            node = plane.nodes.get(node_id) if kind == "node" and plane_id == plane.id else None
            if node is not None and (after is None or "text" in after):  # (a place alone keeps the size)
                self.card(node)

    def _changed(self, touched: frozenset[str] | None = None) -> None:
        """A document change: ``touched`` the cards of the plane shown it touched (None: maybe any)."""
        self.version += 1
        self.edited = True
        self.needs_paint = True
        self.card_log = [*self.card_log[-(CARD_LOG - 1) :], (self.version, touched)]

    def cards_touched_since(self, version: int) -> set[str] | None:
        """The cards of the plane shown that the document changes after ``version`` touched
        (added, removed, changed or an edge of theirs), or None when that is not known (one
        touched the plane, or changed which plane is shown, or is too far back). O(changes).

        >>> from bendscope.bend.model.elements import Node
        >>> editor = Editor()
        >>> before = editor.version
        >>> with editor.remote_change():
        ...     editor.plane.add_node(Node("a", "A"))
        >>> editor.cards_touched_since(before), editor.cards_touched_since(before - 1)
        ({'a'}, None)
        """
        if version == self.version:
            return set()
        log = self.card_log
        if not log or log[0][0] > version + 1:
            return None
        found: set[str] = set()
        for at, touched in log:
            if at > version:
                if touched is None:
                    return None
                found |= touched
        return found

    def undo(self) -> bool:
        return self._travel(self.history.undo_stack, self.history.redo_stack, 0)

    def redo(self) -> bool:
        return self._travel(self.history.redo_stack, self.history.undo_stack, 1)

    def _travel(self, source: list[Entry], target: list[Entry], side: int) -> bool:
        if not source or self._tx is not None:
            return False
        refusal = self.edit_refusal(source[-1].label)
        if refusal is not None:
            raise ValueError(refusal)
        if self.undo_guard is not None:
            problem = self.undo_guard(source[-1], side)
            if problem is not None:
                raise ValueError(problem)
        entry = source.pop()
        target.append(entry)
        if entry.swap is not None:
            self._install(entry.swap[side], alpha=0.0)
            self._changed()
            return True
        path = [p.id for p in self.doc.path()]
        was = self.doc.active_plane_id
        apply(self.doc, entry, side)
        self.capacity.apply(self.doc, entry, side)
        if self.doc.active_plane_id not in self.doc.planes:
            # the plane we were on was removed: go to its nearest remaining ancestor
            self.doc.active_plane_id = next((p for p in reversed(path) if p in self.doc.planes), self.doc.root_plane_id)
        touched = [p for p in entry.planes() if p in self.doc.planes]
        if touched and self.doc.active_plane_id not in touched:
            # show what was undone: go to the plane it happened on
            self.doc.active_plane_id = touched[0]
        for _kind, plane_id, item_id in entry.changes:
            self._used_ids.add(item_id or plane_id)
        if self.doc.active_plane_id != was:
            sim = self._sims.get(was)
            if sim is not None:
                sim.pause()
        self._prune_selection()
        self._after_change(entry)
        return True

    # ------------------------------------------------------------------ selection

    # ------------------------------------------------------------------ node commands
    def add_node(self, x: float, y: float, text: str = "", node_type: str = "normal", pinned: bool = False) -> str:
        """A new node at (x, y); ``pinned``: placed by the user, so it stays there."""
        if node_type not in NODE_TYPES:
            raise ValueError(f"unknown node type {node_type!r}")
        _check_text(text)
        plane = self.plane
        node = Node(self.new_id("node"), text, node_type, clamp_coord(x), clamp_coord(y), pinned=pinned)
        with self.transaction("Add node"):
            plane.add_node(node)
        self.select([node.id])
        return node.id

    def discard_new_node(self, node_id: str) -> bool:
        """Take back the node the last step created (Esc in a new node's text editor):
        the step is undone and forgotten, so redo cannot bring the node back. Returns
        False, changing nothing, when the last step is anything else. O(the step)."""
        stack = self.history.undo_stack
        if self._tx is not None or not stack or node_id not in self.plane.nodes:
            return False
        entry = stack[-1]
        if entry.label != "Add node" or ("node", self.plane.id, node_id) not in entry.changes:
            return False
        self.undo()
        self.history.redo_stack.pop()
        return True

    def fold_into_creation(self, node_id: str) -> bool:
        """Make the text just typed into a new node part of the step that created it, so
        one undo takes the new card away (not first its text, then an empty card). Only
        when the last two steps are that node's creation and then its text; else False,
        changing nothing. O(the two steps)."""
        stack = self.history.undo_stack
        if self._tx is not None or len(stack) < 2 or node_id not in self.plane.nodes:
            return False
        created, typed = stack[-2], stack[-1]
        key = ("node", self.plane.id, node_id)
        if created.label != "Add node" or created.changes.get(key, (1, None))[0] is not None:
            return False
        if typed.label != "Edit text" or key not in typed.changes:
            return False
        stack[-2:] = [merged(created, typed)]
        return True

    def set_text(self, node_id: str, text: str) -> None:
        """Change a node's text (a stargate's plane is renamed with it)."""
        _check_text(text)
        plane = self.plane
        node = plane.nodes[node_id]
        if node.text == text:
            return
        with self.transaction("Edit text"):
            plane.update_node(node_id, text=text)
            portal = node.portal_plane_id
            if node.type == "stargate" and portal is not None and portal in self.doc.planes:
                self.doc.planes[portal].set_header(name=_plane_name(text))

    def move_node(self, node_id: str, x: float, y: float, *, from_xy: tuple[float, float] | None = None) -> None:
        """Record a move (drag end): the node is pinned where it was dropped (d3's fx/fy),
        so the layout leaves it there until Unpin. ``from_xy`` is where the drag started,
        so undo goes back there (and to the pin it had)."""
        self.move_nodes({node_id: (x, y)}, None if from_xy is None else {node_id: from_xy})

    def move_nodes(
        self, moves: Mapping[str, tuple[float, float]], starts: Mapping[str, tuple[float, float]] | None = None
    ) -> None:
        """Record a move of several nodes as one step (a group drag), each pinned where it
        was dropped; ``starts`` are where the drag began, so undo goes back there. O(k)."""
        plane = self.plane
        moved = {n: (clamp_coord(x), clamp_coord(y)) for n, (x, y) in moves.items() if n in plane.nodes}
        for node_id, start in (starts or {}).items():
            if node_id in moved:
                node = plane.nodes[node_id]
                node.x, node.y = start  # positions are not guarded: the drag moved them live
        with self.transaction("Move node" if len(moved) == 1 else "Move nodes"):
            for node_id, (x, y) in moved.items():
                plane.update_node(node_id, x=x, y=y, pinned=True)
        for node_id, (x, y) in moved.items():
            node = plane.nodes[node_id]
            node.x, node.y = x, y
            node.vx = node.vy = 0.0

    def arrange_job(self, direction: str) -> ArrangeJob:
        """What the layered arrangement of the active plane needs (bend.layout.arrange). O(n + m)."""
        return arrange_job(self.plane, self.topology(), direction)

    def prepare_arrangement(self, job: ArrangeJob, xy: list[float]) -> Steps[PreparedArrangement]:
        """What applying ``xy`` will need, as steps the page runs between frames (``arrange.prepare``)."""
        return prepare(self.plane, self.version, self.topology(), job, xy)

    def apply_arrangement(self, job: ArrangeJob, xy: list[float], prepared: PreparedArrangement | None = None) -> None:
        """Move every card of the plane to the centres ``xy`` the arrangement gave and pin it
        there, as one undoable step; the layout stops and the view fits the result. Raises
        ValueError (nothing changes) if the plane changed since ``job`` was made or ``xy`` is
        not a position per card. ``prepared``: made ahead (``prepare_arrangement``), used if the
        document has not changed since. O(n) (and the preparation's when none holds)."""
        plane = self.plane
        if prepared is None or prepared.plane is not plane or prepared.version != self.version:
            prepared = finish(self.prepare_arrangement(job, xy))
        with self.transaction(DIRECTIONS[job.direction]):
            plane.place_nodes(prepared.places, pinned=True)  # (the step holds the cards' places alone)
            plane.layout_dirty = False  # (every card moved and pinned: no neighbourhood to find, below)
        sim = self.sim(plane)
        sim.reheat(alpha=0.0)  # the layout's copy of every card is stale (the worker's is sent whole when it runs)
        sim.stop()  # every card is pinned: nothing would move
        self.rests += 1
        keep_trees(plane, prepared.result, self.rests, prepared.trees)  # (the next frame's halos: made ahead)
        self.fit_view()

    def set_pinned_many(self, node_ids: list[str], pinned: bool) -> None:
        """Pin or unpin several nodes as one step."""
        plane = self.plane
        with self.transaction("Pin" if pinned else "Unpin"):
            for node_id in node_ids:
                if node_id in plane.nodes:
                    plane.update_node(node_id, pinned=pinned)

    def set_pinned(self, node_id: str, pinned: bool) -> None:
        plane = self.plane
        with self.transaction("Pin" if pinned else "Unpin"):
            plane.update_node(node_id, pinned=pinned)

    def set_type(self, node_id: str, node_type: str) -> None:
        if node_type not in NODE_TYPES:
            raise ValueError(f"unknown node type {node_type!r}")
        plane = self.plane
        node = plane.nodes[node_id]
        if node_type != "stargate" and node.portal_plane_id is not None:
            raise ValueError("This stargate has a plane; delete the node to remove it.")
        with self.transaction("Convert node"):
            plane.update_node(node_id, type=node_type)

    def delete_nodes(self, node_ids: list[str]) -> None:
        """Delete nodes, their edges and (for stargates) their planes, nested ones included."""
        plane = self.plane
        doomed = [n for n in node_ids if n in plane.nodes]
        if not doomed:
            return
        with self.transaction("Delete"):
            for node_id in doomed:
                for edge in plane.edges_of(node_id):
                    plane.remove_edge(edge.id)
                portal = plane.nodes[node_id].portal_plane_id
                if portal is not None and portal in self.doc.planes:
                    self._delete_plane_tree(portal)
                plane.remove_node(node_id)
        self.selection = [n for n in self.selection if n in plane.nodes]

    def _delete_plane_tree(self, plane_id: str) -> None:
        """Remove a plane and every plane below it, deepest first. Iterative: O(size of the tree)."""
        order: list[str] = []
        seen = {plane_id}
        stack = [plane_id]
        while stack:
            current = stack.pop()
            order.append(current)
            for node in self.doc.planes[current].nodes.values():
                child = node.portal_plane_id
                if child is not None and child in self.doc.planes and child not in seen:
                    seen.add(child)
                    stack.append(child)
        for current in reversed(order):
            plane = self.doc.planes[current]
            for edge_id in list(plane.edges):
                plane.remove_edge(edge_id)
            for node_id in list(plane.nodes):
                plane.remove_node(node_id)
            self.doc.remove_plane(current)

    def fork(self, node_id: str) -> str:
        """A copy of the node beside it, linked from it by a context edge."""
        plane = self.plane
        node = plane.nodes[node_id]
        with self.transaction("Fork"):
            new_id = self.add_node(node.x + node.width + 80.0, node.y + 30.0, node.text)
            self.add_edge(node_id, new_id, kind="context", label="fork")
        self.select([new_id])
        return new_id

    def merge(self, keep_id: str, other_id: str) -> None:
        """Fold ``other`` into ``keep``: texts joined, edges re-pointed, other removed."""
        plane = self.plane
        keep, other = plane.nodes[keep_id], plane.nodes[other_id]
        if keep_id == other_id:
            return
        if other.portal_plane_id and keep.portal_plane_id:
            raise ValueError("Both nodes are stargates with planes; merge one of their planes first.")
        text = keep.text
        if other.text.strip():
            text = f"{keep.text}\n\n{other.text}" if keep.text.strip() else other.text
        if len(text) > MAX_TEXT:
            raise ValueError(f"The merged text would have {len(text):,} characters; the limit is {MAX_TEXT:,}.")
        with self.transaction("Merge"):
            plane.update_node(keep_id, text=text)
            if other.portal_plane_id:
                child = self.doc.planes[other.portal_plane_id]
                child.set_header(parent_node_id=keep_id, name=_plane_name(text))
                plane.update_node(other_id, portal_plane_id=None)
                plane.update_node(keep_id, portal_plane_id=child.id, type="stargate")
            seen = {(e.a, e.b, e.props.kind) for e in plane.edges.values() if other_id not in (e.a, e.b)}
            for edge in plane.edges_of(other_id):
                a = keep_id if edge.a == other_id else edge.a
                b = keep_id if edge.b == other_id else edge.b
                if a == b or (a, b, edge.props.kind) in seen:
                    plane.remove_edge(edge.id)
                    continue
                seen.add((a, b, edge.props.kind))
                plane.replace_edge(Edge(edge.id, a, b, edge.props))
            plane.remove_node(other_id)
        self.select([keep_id])

    # ------------------------------------------------------------------ edge commands
    def set_connect_kind(self, kind: str) -> None:
        """The kind the next connections get (an unknown kind is refused, nothing changes)."""
        if kind not in EDGE_KINDS:
            raise ValueError(f"unknown edge kind {kind!r}")
        self.connect_kind = kind

    def add_edge(self, a: str, b: str, kind: str = DEFAULT_KIND, label: str = "", strength: int = 2) -> str | None:
        """Add a → b; returns its id, or None for a self-loop or an identical edge."""
        plane = self.plane
        if kind not in EDGE_KINDS:
            raise ValueError(f"unknown edge kind {kind!r}")
        _check_edge_props(label, strength)
        if a == b or a not in plane.nodes or b not in plane.nodes:
            return None
        if any(e.a == a and e.b == b and e.props.kind == kind for e in plane.edges.values()):
            return None
        edge = Edge(self.new_id("edge"), a, b, EdgeProps(label, kind, strength))
        with self.transaction("Connect"):
            plane.add_edge(edge)
        return edge.id

    def set_edge(
        self,
        edge_id: str,
        *,
        kind: str | None = None,
        label: str | None = None,
        strength: int | None = None,
        polarity: str | None = KEEP,
    ) -> None:
        """Change an edge's kind, label, strength or polarity ("+", "-", None for none; a kind
        that takes none drops it). Its data is kept."""
        plane = self.plane
        old = plane.edges[edge_id]
        new_kind = old.props.kind if kind is None else kind
        sign = old.props.polarity if polarity == KEEP else polarity
        if new_kind not in POLAR_KINDS:
            if polarity not in (KEEP, None):
                raise ValueError(f"a {new_kind} edge has no polarity (only causal and temporal edges do)")
            sign = None
        if sign not in (None, "+", "-"):
            raise ValueError(f"polarity must be '+', '-' or None, got {sign!r}")
        props = EdgeProps(
            old.props.label if label is None else label,
            new_kind,
            old.props.strength if strength is None else strength,
            sign,
        )
        if props.kind not in EDGE_KINDS:
            raise ValueError(f"unknown edge kind {props.kind!r}")
        _check_edge_props(props.label, props.strength)
        with self.transaction("Edit edge"):
            plane.replace_edge(Edge(edge_id, old.a, old.b, props, old.data))

    def reverse_edge(self, edge_id: str) -> None:
        plane = self.plane
        old = plane.edges[edge_id]
        with self.transaction("Reverse edge"):
            plane.replace_edge(Edge(edge_id, old.b, old.a, old.props, old.data))

    def delete_edge(self, edge_id: str) -> None:
        plane = self.plane
        with self.transaction("Delete edge"):
            plane.remove_edge(edge_id)
        if self.selected_edge == edge_id:
            self.selected_edge = None

    # ------------------------------------------------------------------ planes
    def enter_stargate(self, node_id: str) -> str:
        """Open the stargate's child plane (created on first visit, an undoable step); returns its id."""
        plane = self.plane
        node = plane.nodes[node_id]
        if node.type != "stargate" and node.portal_plane_id not in self.doc.planes:
            raise ValueError("only stargate nodes lead to a plane")
        child_id = node.portal_plane_id
        if child_id is None or child_id not in self.doc.planes:
            child_id = self.new_id("plane")
            with self.transaction("Open stargate"):
                self.doc.add_plane(Plane(child_id, _plane_name(node.text), plane.id, node.id))
                plane.update_node(node_id, portal_plane_id=child_id)
        self.go_to_plane(child_id)
        return child_id

    def go_to_plane(self, plane_id: str) -> None:
        if plane_id not in self.doc.planes:
            raise ValueError(f"no plane {plane_id!r}")
        if plane_id != self.doc.active_plane_id:
            self._leaving()
        self.doc.active_plane_id = plane_id
        self.selection = []
        self.selected_edge = None
        self.refresh_sizes(self.plane)
        self.needs_paint = True
        self.version += 1  # the active plane is saved with the document
        self.card_log.append((self.version, None))


def _check_text(text: str) -> None:
    if not isinstance(text, str):
        raise ValueError("node text must be a string")
    if len(text) > MAX_TEXT:
        raise ValueError(f"The text has {len(text):,} characters; the limit is {MAX_TEXT:,}.")
    if _SURROGATE.search(text):
        raise ValueError("The text is not valid Unicode (it holds an unpaired surrogate).")


def _check_edge_props(label: str, strength: int) -> None:
    if not isinstance(label, str) or len(label) > MAX_LABEL:
        raise ValueError(f"An edge label is a string of at most {MAX_LABEL} characters.")
    if _SURROGATE.search(label):
        raise ValueError("The label is not valid Unicode (it holds an unpaired surrogate).")
    if type(strength) is not int or strength not in (1, 2, 3, 4, 5):
        raise ValueError("strength must be a whole number from 1 to 5")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _plane_name(text: str) -> str:
    first = text.strip().split("\n", 1)[0].lstrip("#").strip()
    return first[:60] or "Stargate"

"""The loop index: every feedback loop of the memory — each nontrivial strongly connected
component (SCC) of its causal and temporal edges — with its κ, kept in the store and
brought up to date by each write inside the write's own transaction.

A write's answer says what it did to the loops around the nodes it touches
(``write_effect``), and consolidation must never change a loop; both need the loops of a
few nodes, at a cost set by those loops rather than by the store. The index gives them
from a table lookup, and an update costs what the touched loops cost:

* **watch** (before the write): the loops of the nodes the write will touch.
* **settle** (after it, same transaction). Two phases, then the index is rewritten for the
  loops that changed only:

  A. *Removals* (an arc or a node gone): each watched loop is split again by Tarjan's
     algorithm over the arcs now among its own members. O(its size).
  B. *Insertions* (arc u → v): nothing to do when u and v are in one loop already (a chord:
     only κ may change); otherwise the SCC of u is found by a forward and a backward search
     run side by side (one ``Store.neighbours_both`` query per level, both directions), which stops when the
     smaller side is exhausted and jumps a whole indexed loop at once.

  Why this is exact: after phase A every set the index holds is strongly connected in the
  new graph (a loop no removal touched kept all its arcs). Let C be an SCC of the new
  graph. If C holds an inserted arc u → v, it holds u, and phase B computes it exactly. If
  not, every arc of C existed before, so C lay inside one old SCC O; if O lost no arc,
  O is still strongly connected and C = O; if O lost one, O was watched and phase A, run on
  O's members, finds the SCCs of the new graph inside O — C among them.

* κ is recomputed (``kappa`` engine, on the loop's own arcs) only for a loop whose arcs
  changed or that merged; a loop that kept its members and arcs keeps its stored κ.

**Time.** Facts can be valid for a time (``valid_from`` / ``valid_until``, on edges and on
nodes): the index holds the loops of the arcs that hold *now* — the edge valid, and both its
ends. It keeps the earliest validity bound still to come (``loops_valid_until``, in the
store's state); once it has passed, the index is made anew.

**Staleness.** The store counts every change to its causal and temporal edges and to
validity (the *arc version*: a trigger, or the backend's own code, whoever writes), and the
index records the arc version it was made for. ``ready`` (at the start of every write through
``Memory``) rebuilds the index when they differ — a write that went round ``Memory``, a store
made by an earlier version — or when a validity bound has passed: from all arcs at once,
O(V + E) plus κ of every loop, logged.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from bendscope.kappa import DEFAULT_EXACT_LIMIT
from bendscope.kappa.analyze import scc_kappa
from bendscope.kappa.digraph import digraph_of_arcs
from bendscope.kappa.scc import strongly_connected_components

from ..store.base import Store
from .records import LoopRecord, utc_now

logger = logging.getLogger(__name__)

#: nodes one update may reach in its phase-B searches before it rebuilds the whole index
#: instead (one query for every arc beats a level-by-level search of most of the store)
SEARCH_BUDGET = 50_000
#: inserted arcs an update searches from one by one; more (a batch) are searched together
PER_ARC = 8
#: the state key of the moment the index must be made anew (a validity bound passes then)
VALID_UNTIL = "loops_valid_until"
NEVER = "9999-12-31T23:59:59.999Z"


@dataclass
class Watch:
    """The loops of the nodes a write is about to touch, as they were."""

    touched: set[str]
    loops: dict[str, LoopRecord]
    version: int  # the arc version before the write


@dataclass
class Change:
    """What a write did to the loops: those it changed (or touched) as they were, and as
    they are now. Both sides cover the same nodes' loops (see ``write_effect``)."""

    before: list[LoopRecord]
    after: list[LoopRecord]
    rebuilt: bool = False

    @property
    def changed(self) -> bool:
        return sorted(self.before, key=_key) != sorted(self.after, key=_key)


def _key(loop: LoopRecord) -> tuple[tuple[str, ...], int]:
    return loop.nodes, loop.kappa


def kappa_of(members: Iterable[str], arcs: Iterable[tuple[str, str]], exact_limit: int) -> tuple[int, bool]:
    """κ (and whether it is the spec's approximation) of a strongly connected set of nodes
    with the arcs among them. O(κ's cut on the loop: see ``kappa.mincut``)."""
    graph = digraph_of_arcs(members, arcs)
    kappa, approximate, _ = scc_kappa(graph, list(range(len(graph.ids))), exact_limit)
    return kappa, approximate


def loops_in(arcs: list[tuple[str, str]], exact_limit: int) -> list[LoopRecord]:
    """The loops (nontrivial SCCs with their κ) of a graph given by its arcs, by id.
    O(V + E) plus κ of each loop."""
    graph = digraph_of_arcs({n for arc in arcs for n in arc}, arcs)
    loops = []
    for members in strongly_connected_components(graph.out):
        if len(members) > 1:
            members.sort()
            kappa, approximate, _ = scc_kappa(graph, members, exact_limit)
            ids = tuple(graph.ids[v] for v in members)
            loops.append(LoopRecord(ids[0], ids, kappa, approximate))
    return sorted(loops, key=lambda loop: loop.id)


@dataclass
class _Groups:
    """The new strongly connected sets an update builds (phase A's pieces, grown by phase B)."""

    members: dict[int, set[str]] = field(default_factory=dict)
    of: dict[str, int] = field(default_factory=dict)
    dirty: set[int] = field(default_factory=set)  # arcs changed inside, or merged: κ to compute
    arcs: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # a piece's arcs, as read
    next_id: int = 0

    def add(self, nodes: Iterable[str], dirty: bool, arcs: list[tuple[str, str]] | None = None) -> int:
        gid = self.next_id
        self.next_id += 1
        self.members[gid] = set(nodes)
        for node in self.members[gid]:
            self.of[node] = gid
        if dirty:
            self.dirty.add(gid)
        if arcs is not None:
            self.arcs[gid] = arcs
        return gid

    def merge(self, nodes: set[str]) -> None:
        """Make ``nodes`` one set (with every set any of them is in)."""
        gids = {self.of[n] for n in nodes if n in self.of}
        union = set(nodes)
        for gid in gids:
            union |= self.members.pop(gid)
            self.dirty.discard(gid)
            self.arcs.pop(gid, None)
        self.add(union, dirty=True)


class _Search:
    """Phase B's searches over the graph as the write left it, where reaching a node of a
    strongly connected set (a group of this update, or an indexed loop the update did not
    supersede) reaches the whole set at once; ``reached`` counts the nodes reached."""

    def __init__(self, store: Store, groups: _Groups, old_members: set[str], superseded: set[str], at: str) -> None:
        self.store = store
        self.at = at
        self.groups = groups
        self.old_members = old_members
        self.superseded = superseded
        self.loops_seen: dict[str, LoopRecord] = {}
        self.reached = 0

    def whole(self, node: str, label: str | None) -> set[str]:
        """The strongly connected set ``node`` (indexed in ``label``) is in."""
        groups = self.groups
        if node in groups.of:
            return groups.members[groups.of[node]]
        if node in self.old_members or label is None or label in self.superseded:
            return {node}
        if label not in self.loops_seen:
            self.loops_seen.update(self.store.get_loops([label]))
        loop = self.loops_seen.get(label)
        return set(loop.nodes) if loop is not None and node in loop.nodes else {node}

    def start(self, node: str) -> set[str]:
        return self.whole(node, self.store.node_loops([node]).get(node))

    def closure(self, starts: set[str], forward: bool, within: set[str] | None = None) -> set[str]:
        """What ``starts`` reach (``forward``) or what reaches them, level by level (one
        query a level), inside ``within`` if given."""
        seen = set(starts)
        front = set(starts)
        while front:
            ahead: set[str] = set()
            for node, label in self.store.neighbours(front, forward, self.at):
                if node not in seen and (within is None or node in within):
                    for member in self.whole(node, label):
                        if member not in seen:
                            seen.add(member)
                            ahead.add(member)
            front = ahead
        self.reached += len(seen)
        return seen

    def scc_of(self, start: str, budget: int) -> set[str] | None:
        """The SCC of ``start`` (None past ``budget`` nodes reached): the nodes it reaches
        that reach it. A forward and a backward search run level by level side by side;
        when one ends, the SCC is what the other direction reaches within the finished
        one's nodes — so the cost is about twice the smaller of "what it reaches" and "what
        reaches it", however large the other side is."""
        first = self.start(start)
        reached = {True: set(first), False: set(first)}
        front = {True: set(first), False: set(first)}
        while front[True] and front[False]:
            found = self.store.neighbours_both(front[True], front[False], self.at)  # (one round trip)
            for forward, near in zip((True, False), found, strict=True):
                ahead: set[str] = set()
                for node, label in near:
                    if node not in reached[forward]:
                        for member in self.whole(node, label):
                            if member not in reached[forward]:
                                reached[forward].add(member)
                                ahead.add(member)
                front[forward] = ahead
            if self.reached + len(reached[True]) + len(reached[False]) > budget:
                return None
        self.reached += len(reached[True]) + len(reached[False])
        done = not front[True]  # the direction whose search ended (True: forward)
        return self.closure(first, not done, within=reached[done])

    def sccs_through(self, arcs: list[tuple[str, str]], budget: int) -> list[set[str]] | None:
        """The SCCs holding any of the inserted ``arcs`` (None past ``budget`` nodes
        reached): each lies within F ∩ B, where F is what the arcs' targets reach and B
        what reaches their sources, and is an SCC of the subgraph F ∩ B induces (a larger
        one there would be strongly connected in the whole graph). Two searches and one
        Tarjan, however many arcs. O(|F| + |B| + the arcs among F ∩ B)."""
        targets = set().union(*(self.start(v) for _, v in arcs))
        ahead = self.closure(targets, True)
        if self.reached > budget:
            return None
        sources = set().union(*(self.start(u) for u, _ in arcs))
        behind = self.closure(sources, False)
        if self.reached > budget:
            return None
        candidates = ahead & behind
        inner = [(a, b) for a, b in self.store.arcs_from(candidates, at=self.at) if b in candidates]
        found = [set(loop.nodes) for loop in loops_in(inner, 0)]
        return [c for c in found if any(u in c and v in c for u, v in arcs)]


class LoopIndex:
    """The loop index of one store (see the module's docstring)."""

    def __init__(
        self,
        store: Store,
        exact_limit: int = DEFAULT_EXACT_LIMIT,
        search_budget: int = SEARCH_BUDGET,
        clock: Callable[[], str] = utc_now,
    ) -> None:
        self.store = store
        self.exact_limit = exact_limit
        self.search_budget = search_budget
        self.clock = clock
        #: the moment the index describes (the arcs that hold then): set by ready()
        self.now = clock()

    def current(self) -> bool:
        """Whether the index holds today's loops (read-only: one or two queries)."""
        arcs, loops = self.store.arc_versions()
        until = self.store.get_state(VALID_UNTIL)
        return arcs == loops and (until is None or self.clock() < until)

    def ready(self) -> bool:
        """Inside a write transaction, first: rebuild the index if it is not current — the
        arcs changed round it, or a validity bound of an arc or a node has passed since it was
        made; returns whether it was rebuilt."""
        self.now = self.clock()
        arcs, loops = self.store.arc_versions()
        until = self.store.get_state(VALID_UNTIL)
        if arcs == loops and (until is None or self.now < until):
            return False
        self.rebuild(arcs)
        return True

    def bounds(self, moments: Iterable[str | None]) -> None:
        """A write set these validity bounds (of arcs or nodes): the index must be made anew
        once the earliest of those still to come has passed."""
        ahead = [m for m in moments if m is not None and m > self.now]
        if ahead:
            until = self.store.get_state(VALID_UNTIL)
            if until is None or min(ahead) < until:
                self.store.set_state(VALID_UNTIL, min(ahead))

    def rebuild(self, version: int | None = None) -> tuple[dict[str, LoopRecord], dict[str, LoopRecord]]:
        """Make the index anew from every arc (inside a write transaction), writing only the
        loops that differ; returns the loops as they were and as they are, by id. O(V + E)
        plus κ of each loop."""
        start = time.perf_counter()
        if version is None:  # (called on its own, not from ready: the index describes this moment)
            self.now = self.clock()
            version = self.store.arc_versions()[0]
        arcs = self.store.all_arcs(at=self.now)
        new = {loop.id: loop for loop in loops_in(arcs, self.exact_limit)}
        old = {loop.id: loop for loop in self.store.all_loops()}
        remove = [i for i, loop in old.items() if new.get(i) != loop]
        add = [loop for i, loop in new.items() if old.get(i) != loop]
        self.store.replace_loops(remove, add)
        self.store.set_loops_version(version)
        self.store.set_state(VALID_UNTIL, self.store.next_change(self.now) or NEVER)
        logger.info(
            "loop index rebuilt from %d arcs: %d loops (%d removed, %d added) in %.0f ms",
            len(arcs),
            len(new),
            len(remove),
            len(add),
            (time.perf_counter() - start) * 1000,
        )
        return old, new

    def loops_of(self, node_ids: Iterable[str]) -> list[LoopRecord]:
        """The loops the nodes are in, by id."""
        labels = self.store.node_loops(node_ids)
        return list(self.store.get_loops(set(labels.values())).values())

    def watch(self, touched: Iterable[str]) -> Watch:
        """Before a write (index current): the loops of the nodes it will touch."""
        nodes = set(touched)
        loops = {loop.id: loop for loop in self.loops_of(nodes)}
        return Watch(nodes, loops, self.store.arc_versions()[0])

    def extend(self, watch: Watch, touched: Iterable[str]) -> None:
        """Before a further write of the same transaction (a batch): watch these nodes too.
        The index still holds the loops as they were before the batch, which is what an
        update needs of every loop a removal may have touched."""
        more = set(touched) - watch.touched
        if more:
            watch.touched |= more
            watch.loops.update((loop.id, loop) for loop in self.loops_of(more))

    def settle(self, watch: Watch, inserted: Iterable[tuple[str, str]] = (), removed: bool = False) -> Change:
        """After the write, in its transaction: bring the index up to date and say what the
        write did to the loops. ``inserted``: the causal and temporal arcs the write added
        (or re-pointed); ``removed``: whether it removed any such arc or a node."""
        version = self.store.arc_versions()[0]
        arcs = [(a, b) for a, b in inserted if a != b]
        if version == watch.version and not arcs and not removed:
            loops = sorted(watch.loops.values(), key=lambda loop: loop.id)
            return Change(loops, loops)
        groups = _Groups()
        superseded = set(watch.loops)  # their members' labels in the store no longer hold
        old_members = {n for loop in watch.loops.values() for n in loop.nodes}
        for loop in sorted(watch.loops.values(), key=lambda loop: loop.id):
            if removed:
                for piece, inner in self._split(loop.nodes):
                    groups.add(piece, dirty=True, arcs=inner)
            else:
                groups.add(loop.nodes, dirty=False)
        search = _Search(self.store, groups, old_members, superseded, self.now)
        crossing = []
        for u, v in arcs:
            gu, gv = self._set_of(u, groups, old_members), self._set_of(v, groups, old_members)
            if isinstance(gu, int) and gu == gv:
                groups.dirty.add(gu)  # a chord: only κ may change
            else:
                crossing.append((u, v))
        if len(crossing) <= PER_ARC:
            for u, _ in crossing:
                found = search.scc_of(u, self.search_budget)
                if found is None:
                    return self._rebuilt_change(watch, *self.rebuild(version))
                if len(found) > 1:
                    groups.merge(found)
        else:
            components = search.sccs_through(crossing, self.search_budget)
            if components is None:
                return self._rebuilt_change(watch, *self.rebuild(version))
            for found in components:
                groups.merge(found)
        absorbed = {i: loop for i, loop in search.loops_seen.items() if loop.nodes and loop.nodes[0] in groups.of}
        return self._write(watch, groups, absorbed, version)

    # ------------------------------------------------------------ the phases
    def _split(self, members: Iterable[str]) -> list[tuple[list[str], list[tuple[str, str]]]]:
        """Phase A: the nontrivial SCCs of the nodes with the arcs now among them, each with
        its own arcs (κ is computed later, once, from them)."""
        arcs = self._arcs_among(members)
        pieces = []
        for loop in loops_in(arcs, 0):
            nodes = set(loop.nodes)
            pieces.append((list(loop.nodes), [(a, b) for a, b in arcs if a in nodes and b in nodes]))
        return pieces

    def _arcs_among(self, members: Iterable[str]) -> list[tuple[str, str]]:
        """The causal and temporal arcs among the nodes (self-loops left out)."""
        inside = set(members)
        return [(a, b) for a, b in self.store.arcs_from(inside, at=self.now) if b in inside]

    def _set_of(self, node: str, groups: _Groups, old_members: set[str]) -> str | int | None:
        """The strongly connected set ``node`` is in now: a group of this update, an indexed
        loop the update did not supersede, or None (on its own)."""
        if node in groups.of:
            return groups.of[node]
        if node in old_members:
            return None  # (its old loop was split and it is in no piece)
        return self.store.node_loops([node]).get(node)

    def _write(self, watch: Watch, groups: _Groups, absorbed: dict[str, LoopRecord], version: int) -> Change:
        """Compute κ where it may have changed, rewrite the loops that did, and say what changed."""
        previous = {**watch.loops, **absorbed}
        by_members = {loop.nodes: loop for loop in previous.values()}
        after: list[LoopRecord] = []
        for gid, nodes in groups.members.items():
            if len(nodes) < 2:
                continue
            members = tuple(sorted(nodes))
            same = by_members.get(members)
            if same is not None and gid not in groups.dirty:
                after.append(same)
                continue
            arcs = groups.arcs.get(gid)
            if arcs is None:
                arcs = self._arcs_among(members)
            kappa, approximate = kappa_of(members, arcs, self.exact_limit)
            after.append(LoopRecord(members[0], members, kappa, approximate))
        after.sort(key=lambda loop: loop.id)
        kept = set(previous.values()) & set(after)
        self.store.replace_loops(
            [loop.id for loop in previous.values() if loop not in kept], [loop for loop in after if loop not in kept]
        )
        self.store.set_loops_version(version)
        return Change(sorted(previous.values(), key=lambda loop: loop.id), after)

    def _rebuilt_change(self, watch: Watch, old: dict[str, LoopRecord], new: dict[str, LoopRecord]) -> Change:
        """The change an update would have reported, from a rebuild's loops before and after:
        after, the loops holding a touched node or lying within the watched loops; before,
        the watched loops and those lying within the loops after that hold a touched node."""
        old_members = {n for loop in watch.loops.values() for n in loop.nodes}
        after = [loop for loop in new.values() if watch.touched & set(loop.nodes) or set(loop.nodes) <= old_members]
        grown = {n for loop in after if watch.touched & set(loop.nodes) for n in loop.nodes}
        before = [loop for loop in old.values() if loop.id in watch.loops or set(loop.nodes) <= grown]
        return Change(sorted(before, key=lambda loop: loop.id), sorted(after, key=lambda loop: loop.id), rebuilt=True)

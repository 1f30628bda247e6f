"""The canonical topology kept up to date edit by edit, equal to ``analyze`` after each one.

:class:`IncrementalTopology` holds a graph's SCCs and each loop region's κ, and takes edits
one at a time (a node or an arc added or removed). What an edit does, and what it costs:

* a new node is a new SCC of its own: O(1);
* an arc between two SCCs where the target cannot reach the source leaves every SCC and
  κ as they are: one search forward from the target, O(what it reaches);
* an arc that closes a cycle across SCCs merges those on it (the nodes both reached
  from the target and reaching the source): only the merged SCC's κ is computed again;
* an arc inside one SCC changes that SCC's κ only: only it is computed again;
* a removed arc or node inside an SCC may split it: only that SCC's nodes are searched
  again (Tarjan), and only the SCCs it splits into get their κ again.

κ of an SCC depends only on its sorted node ids and the arcs between them (``kappa.mincut``:
every choice it makes, the fault line included, is made on that graph alone), so
computing one SCC on its own gives the bytes the whole graph's ``analyze`` gives for it. A
:class:`~bendscope.kappa.analyze.KappaCache` shared with full computations serves regions
seen before. :meth:`IncrementalTopology.result_steps` computes the κ still owed, pausing on
the meter as ``analyze_steps`` does, and assembles the canonical result (SCCs numbered by
their smallest node id, node lists and ``dag_nodes`` sorted).

Arcs are counted: parallel arcs count once, self-loops and arcs with an end outside the
node set take no part (as in ``analyze``), and an arc whose end comes later takes part then.

>>> from bendscope.kappa.steps import finish
>>> t = IncrementalTopology()
>>> for node in "abc":
...     t.add_node(node)
>>> t.add_arc("a", "b"); t.add_arc("b", "c")
>>> finish(t.result_steps(Meter()))["scc_count"]
0
>>> t.add_arc("c", "a")  # closes a|b|c into one region
>>> r = finish(t.result_steps(Meter()))
>>> r["sccs"][0]["nodes"], r["sccs"][0]["kappa"], r["sccs"][0]["fault_line_edges"]
(['a', 'b', 'c'], 1, [{'source': 'b', 'target': 'c'}])
>>> t.remove_arc("b", "c")
>>> finish(t.result_steps(Meter()))["dag_nodes"]
['a', 'b', 'c']
"""

from __future__ import annotations

import bisect
from typing import Any

from .analyze import DEFAULT_EXACT_LIMIT, DEFAULT_WORK_BUDGET, KappaCache, SccKappa, local_kappa_steps, scc_object
from .digraph import digraph_of_arcs
from .scc import strongly_connected_components
from .steps import Meter, Steps

__all__ = ["IncrementalTopology"]


class IncrementalTopology:
    """A graph's SCCs and κ per loop region, updated edit by edit (module doc).

    ``exact_limit``, ``work_budget`` and ``cache`` mean what they mean for ``analyze``.
    """

    def __init__(
        self,
        *,
        exact_limit: int = DEFAULT_EXACT_LIMIT,
        work_budget: int = DEFAULT_WORK_BUDGET,
        cache: KappaCache | None = None,
    ) -> None:
        self.exact_limit = exact_limit
        self.work_budget = work_budget
        self.cache = cache
        self._nodes: set[str] = set()
        self._count: dict[tuple[str, str], int] = {}  # arcs as given, with their multiplicity
        self._touching: dict[str, set[tuple[str, str]]] = {}  # counted arcs by end (present or not)
        self.succ: dict[str, set[str]] = {}  # the arcs that take part
        self.pred: dict[str, set[str]] = {}
        self._comp_of: dict[str, int] = {}
        self._members: dict[int, list[str]] = {}  # SCC number → its sorted nodes
        self._kappa: dict[int, SccKappa] = {}  # loop regions whose κ is known
        self._owed: set[int] = set()  # loop regions whose κ must be computed
        self._broken: set[int] = set()  # SCCs that lost an arc or a node: they may split
        self._local: dict[int, tuple[dict[str, int], list[list[int]]]] = {}  # a region's own digraph
        self._next = 0
        #: nodes searched by the edits so far (a caller may compare it with a whole computation's cost)
        self.work = 0
        self._shape: tuple[list[tuple[str, int]], list[str]] | None = None  # regions in order, DAG nodes
        self._ordered: list[str] | None = None  # the nodes, sorted
        self.recomputed: list[list[str]] = []  # the regions whose κ the last result computed

    # -- bulk start --
    @classmethod
    def of_graph(
        cls,
        nodes: list[str],
        arcs: list[tuple[str, str]],
        *,
        exact_limit: int = DEFAULT_EXACT_LIMIT,
        work_budget: int = DEFAULT_WORK_BUDGET,
        cache: KappaCache | None = None,
    ) -> IncrementalTopology:
        """The structure of a whole graph at once (one Tarjan, O(n + m)); κ is owed for every
        loop region until :meth:`result_steps` computes it."""
        t = cls(exact_limit=exact_limit, work_budget=work_budget, cache=cache)
        t._nodes = set(nodes)
        t.succ = {n: set() for n in t._nodes}
        t.pred = {n: set() for n in t._nodes}
        for u, v in arcs:
            if t._count_arc((u, v), 1):
                t.succ[u].add(v)
                t.pred[v].add(u)
        graph = digraph_of_arcs(t._nodes, [(u, v) for u in t.succ for v in t.succ[u]])
        for component in strongly_connected_components(graph.out):
            t._new_component([graph.ids[i] for i in component])
        return t

    @classmethod
    def of_result_steps(
        cls,
        nodes: list[str],
        arcs: list[tuple[str, str]],
        result: dict[str, Any],
        *,
        exact_limit: int = DEFAULT_EXACT_LIMIT,
        work_budget: int = DEFAULT_WORK_BUDGET,
        cache: KappaCache | None = None,
    ) -> Steps[IncrementalTopology]:
        """The state of a graph whose ``analyze`` result (with these options) is ``result``:
        its SCCs and κ are taken from it, none is computed. Pauses every 1,024 arcs and before
        the SCCs are taken. O(n + m)."""
        t = cls(exact_limit=exact_limit, work_budget=work_budget, cache=cache)
        t._nodes = set(nodes)
        t.succ = {n: set() for n in t._nodes}
        t.pred = {n: set() for n in t._nodes}
        yield
        for k, (u, v) in enumerate(arcs):
            if k and not k % 1024:
                yield
            if t._count_arc((u, v), 1):
                t.succ[u].add(v)
                t.pred[v].add(u)
        yield
        for scc in result["sccs"]:
            number = t._new_component(list(scc["nodes"]))
            t._owed.discard(number)
            lower = scc["kappa_range"][0] if scc["approximate"] else scc["kappa"]
            t._kappa[number] = SccKappa(scc["kappa"], lower, [dict(arc) for arc in scc["fault_line_edges"]])
        for node in result["dag_nodes"]:
            t._new_component([node])
        return t

    # -- edits --
    def add_node(self, node: str) -> None:
        """A node (a new SCC of its own); arcs already counted at it take part now. O(its arcs)."""
        if node in self._nodes:
            raise ValueError(f"node {node!r} is already there")
        self._nodes.add(node)
        if self._ordered is not None:  # (kept sorted: O(n) moves in C, not a sort)
            bisect.insort(self._ordered, node)
        self.succ[node] = set()
        self.pred[node] = set()
        shape = self._shape
        self._new_component([node])
        if shape is not None:  # a new SCC of its own: one more DAG node, the regions as they were
            bisect.insort(shape[1], node)
            self._shape = shape
        for u, v in sorted(self._touching.get(node, ())):
            self._link(u, v)

    def remove_node(self, node: str) -> None:
        """Remove a node (its counted arcs stay counted). O(its arcs) plus, later, a search of its SCC."""
        if node not in self._nodes:
            raise KeyError(node)
        number = self._comp_of[node]
        if len(self._members[number]) > 1:
            self._broken.add(number)  # searched again before the next arc or result
        for v in list(self.succ[node]):
            self._unlink(node, v)
        for u in list(self.pred[node]):
            self._unlink(u, node)
        self._nodes.discard(node)
        self._ordered = None
        del self.succ[node], self.pred[node], self._comp_of[node]
        if number in self._broken:
            self._members[number] = [n for n in self._members[number] if n != node]
            self._local.pop(number, None)
            self._shape = None
        else:
            self._drop(number)

    def add_arc(self, source: str, target: str) -> None:
        """Count one arc source → target (module doc for what it costs)."""
        if self._count_arc((source, target), 1):
            self._link(source, target)

    def remove_arc(self, source: str, target: str) -> None:
        """Count one arc source → target less (it must be counted)."""
        arc = (source, target)
        if arc not in self._count:
            raise KeyError(arc)
        if self._count_arc(arc, -1):
            self._unlink(source, target)

    # -- the result --
    def result_steps(self, meter: Meter) -> Steps[dict[str, Any]]:
        """The canonical topology (``analyze``'s, byte for byte), computing only the κ still owed."""
        self._settle()
        self.recomputed = []
        for number in sorted(self._owed, key=lambda k: self._members[k][0]):
            members = self._members[number]
            _, out = self._local_of(number)
            found = yield from local_kappa_steps(
                members, out, self.exact_limit, self.cache, meter, work_budget=self.work_budget
            )
            self._kappa[number] = found
            self._owed.discard(number)
            self.recomputed.append(list(members))
        if self._shape is None:  # the SCCs changed: their order and the DAG nodes again, O(n log n)
            self._shape = (
                sorted((self._members[k][0], k) for k in self._kappa),
                [n for n in self._sorted_nodes() if len(self._members[self._comp_of[n]]) == 1],
            )
        regions, dag = self._shape
        sccs = []
        max_kappa = 0
        for i, (_, number) in enumerate(regions):
            found = self._kappa[number]
            max_kappa = max(max_kappa, found.kappa)
            fault = [dict(arc) for arc in found.fault_line_edges]
            sccs.append(scc_object(i, list(self._members[number]), SccKappa(found.kappa, found.lower, fault)))
        return {
            "sccs": sccs,
            "dag_nodes": list(dag),
            "routing": "deliberate" if max_kappa > 0 else "fast",
            "max_kappa": max_kappa,
            "scc_count": len(sccs),
        }

    # -- inside --
    def _count_arc(self, arc: tuple[str, str], step: int) -> bool:
        """Change an arc's count; whether it took part or stopped taking part."""
        count = self._count.get(arc, 0) + step
        if count:
            self._count[arc] = count
        else:
            del self._count[arc]
            for end in set(arc):
                touching = self._touching[end]
                touching.discard(arc)
                if not touching:
                    del self._touching[end]
        if count == 1 and step == 1:
            for end in arc:
                self._touching.setdefault(end, set()).add(arc)
        u, v = arc
        return (count == 1 if step == 1 else count == 0) and u != v and u in self._nodes and v in self._nodes

    def _sorted_nodes(self) -> list[str]:
        if self._ordered is None:
            self._ordered = sorted(self._nodes)
        return self._ordered

    def _local_of(self, number: int) -> tuple[dict[str, int], list[list[int]]]:
        """A region's own digraph (its sorted ids numbered, sorted adjacency lists), kept
        while the region lasts. O(its size) the first time."""
        local = self._local.get(number)
        if local is None:
            members = self._members[number]
            index = {node: i for i, node in enumerate(members)}
            out = [sorted([index[w] for w in self.succ[u] if w in index]) for u in members]
            local = self._local[number] = (index, out)
        return local

    def _new_component(self, members: list[str]) -> int:
        number = self._next
        self._next += 1
        self._shape = None
        self._members[number] = members
        for node in members:
            self._comp_of[node] = number
        if len(members) > 1:
            self._owed.add(number)
        return number

    def _drop(self, number: int) -> None:
        self._shape = None
        self._local.pop(number, None)
        del self._members[number]
        self._kappa.pop(number, None)
        self._owed.discard(number)
        self._broken.discard(number)

    def _link(self, u: str, v: str) -> None:
        """Arc u → v now takes part."""
        if u == v or u not in self._nodes or v not in self._nodes:
            return
        self._settle()
        self.succ[u].add(v)
        self.pred[v].add(u)
        cu, cv = self._comp_of[u], self._comp_of[v]
        if cu == cv:
            self._kappa.pop(cu, None)  # (the regions' order stays: their nodes are the same)
            self._owed.add(cu)
            local = self._local.get(cu)
            if local is not None:
                row = local[1][local[0][u]]
                row.append(local[0][v])
                row.sort()
            return
        if not self.pred[u] or len(self.succ[v]) == 0:  # nothing enters u, or nothing leaves v
            return
        reached = {v}  # forward from v: does it reach u?
        front = [v]
        while front and u not in reached:
            x = front.pop()
            for y in self.succ[x]:
                if y not in reached:
                    reached.add(y)
                    front.append(y)
        self.work += len(reached)
        if u not in reached:
            return
        while front:  # the rest of v's reach (the merged SCC lies inside it)
            x = front.pop()
            for y in self.succ[x]:
                if y not in reached:
                    reached.add(y)
                    front.append(y)
        merged = {u}
        front = [u]
        while front:
            x = front.pop()
            for y in self.pred[x]:
                if y in reached and y not in merged:
                    merged.add(y)
                    front.append(y)
        self.work += len(reached) + len(merged)
        for number in {self._comp_of[x] for x in merged}:
            self._drop(number)
        self._new_component(sorted(merged))

    def _unlink(self, u: str, v: str) -> None:
        """Arc u → v no longer takes part."""
        if u == v or u not in self._nodes or v not in self._nodes:
            return
        self.succ[u].discard(v)
        self.pred[v].discard(u)
        number = self._comp_of[u]
        if number != self._comp_of[v]:
            return
        local = self._local.get(number)  # (kept through a split: the pieces are searched on it)
        if local is not None:
            local[1][local[0][u]].remove(local[0][v])
        if number in self._broken:
            return
        self._kappa.pop(number, None)
        self._owed.add(number)
        if not self._reaches(u, v, number):  # u → v was its only way from u to v: it splits
            self._broken.add(number)

    def _reaches(self, u: str, v: str, number: int) -> bool:
        """Whether u still reaches v inside SCC ``number``. O(what it searches)."""
        comp_of = self._comp_of
        if not any(comp_of[y] == number for y in self.succ[u]) or not any(comp_of[x] == number for x in self.pred[v]):
            return False  # nothing of the SCC leaves u, or enters v, any more
        seen = {u}
        front = [u]
        while front:
            x = front.pop()
            for y in self.succ[x]:
                if y == v:
                    self.work += len(seen)
                    return True
                if y not in seen and comp_of[y] == number:
                    seen.add(y)
                    front.append(y)
        self.work += len(seen)
        return False

    def _settle(self) -> None:
        """Search each SCC that lost an arc or a node again (it may split), on its own digraph
        when it is kept (the pieces keep theirs). O(its size)."""
        for number in sorted(self._broken):
            members = self._members[number]
            self.work += len(members)
            local = self._local.get(number)
            self._drop(number)
            if local is None:
                graph = digraph_of_arcs(members, [(u, w) for u in members for w in self.succ[u]])
                for component in strongly_connected_components(graph.out):
                    self._new_component([graph.ids[i] for i in component])
                continue
            out = local[1]
            for component in strongly_connected_components(out):  # sorted local indices: sorted ids
                piece = self._new_component([members[i] for i in component])
                if len(component) > 1:
                    index = {i: k for k, i in enumerate(component)}
                    self._local[piece] = (
                        {members[i]: k for k, i in enumerate(component)},
                        [[index[w] for w in out[i] if w in index] for i in component],
                    )

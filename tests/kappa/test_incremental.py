"""The incremental topology equals ``analyze`` of the whole graph after every edit: SCC ids,
node lists, κ, bounds and fault lines, byte for byte."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from bendscope.kappa import KappaCache, analyze
from bendscope.kappa.incremental import IncrementalTopology
from bendscope.kappa.steps import Meter, finish

NAMES = [f"v{i}" for i in range(6)] + ["a", "b10", "z"]


def full(nodes: set[str], arcs: list[tuple[str, str]], **options: int) -> str:
    edges = [{"source": u, "target": v, "kind": "causal"} for u, v in arcs]
    return json.dumps(analyze(sorted(nodes), edges, **options))  # type: ignore[arg-type]


def now(t: IncrementalTopology) -> str:
    return json.dumps(finish(t.result_steps(Meter())))


#: an edit: ("+n", node), ("-n", node), ("+a", u, v), ("-a", index into the arcs)
edit = st.one_of(
    st.tuples(st.just("+n"), st.sampled_from(NAMES)),
    st.tuples(st.just("-n"), st.sampled_from(NAMES)),
    st.tuples(st.just("+a"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(st.just("+a"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(st.just("-a"), st.integers(0, 200)),
)


def apply(t: IncrementalTopology, nodes: set[str], arcs: list[tuple[str, str]], step: tuple) -> None:
    """One edit on both the incremental topology and the plain lists."""
    if step[0] == "+n" and step[1] not in nodes:
        nodes.add(step[1])
        t.add_node(step[1])
    elif step[0] == "-n" and step[1] in nodes:
        nodes.discard(step[1])
        t.remove_node(step[1])
    elif step[0] == "+a":
        arcs.append((step[1], step[2]))
        t.add_arc(step[1], step[2])
    elif step[0] == "-a" and arcs:
        u, v = arcs.pop(step[1] % len(arcs))
        t.remove_arc(u, v)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), min_size=4, max_size=30),
    present=st.sets(st.sampled_from(NAMES), min_size=3),
    edits=st.lists(edit, min_size=1, max_size=25),
    budget=st.sampled_from([0, 40, 10**9]),
    limit=st.sampled_from([3, 10**9]),
    restored=st.booleans(),
)
def test_every_edit_gives_the_full_computation(start, present, edits, budget, limit, restored) -> None:
    nodes, arcs = set(present), list(start)
    options = {"exact_limit": limit, "work_budget": budget}
    if restored:  # from a full computation's result
        result = json.loads(full(nodes, arcs, **options))
        t = finish(IncrementalTopology.of_result_steps(sorted(nodes), arcs, result, cache=KappaCache(), **options))
    else:
        t = IncrementalTopology.of_graph(sorted(nodes), arcs, cache=KappaCache(), **options)
    assert now(t) == full(nodes, arcs, exact_limit=limit, work_budget=budget)
    for step in edits:
        apply(t, nodes, arcs, step)
        assert now(t) == full(nodes, arcs, exact_limit=limit, work_budget=budget)


@settings(max_examples=100, deadline=None)
@given(edits=st.lists(edit, min_size=1, max_size=30))
def test_several_edits_between_results(edits) -> None:
    """Edits may pile up between two results (a live burst): the result is still the full one."""
    nodes: set[str] = set()
    arcs: list[tuple[str, str]] = []
    t = IncrementalTopology()
    for k, step in enumerate(edits):
        apply(t, nodes, arcs, step)
        if k % 4 == 3:
            assert now(t) == full(nodes, arcs)
    assert now(t) == full(nodes, arcs)


def test_an_arc_between_regions_that_closes_no_cycle_computes_no_kappa() -> None:
    ring = [(f"a{i}", f"a{(i + 1) % 5}") for i in range(5)] + [(f"b{i}", f"b{(i + 1) % 5}") for i in range(5)]
    t = IncrementalTopology.of_graph([f"{s}{i}" for s in "ab" for i in range(5)], ring)
    now(t)
    assert len(t.recomputed) == 2
    t.add_arc("a0", "b0")
    now(t)
    assert t.recomputed == []
    t.add_node("c")
    t.add_arc("c", "a1")
    now(t)
    assert t.recomputed == []
    t.add_arc("b2", "a3")  # closes a cycle: the two rings merge
    now(t)
    assert t.recomputed == [sorted(f"{s}{i}" for s in "ab" for i in range(5))]


def test_an_arc_inside_a_region_computes_that_region_only() -> None:
    ring = [(f"a{i}", f"a{(i + 1) % 5}") for i in range(5)] + [(f"b{i}", f"b{(i + 1) % 5}") for i in range(5)]
    t = IncrementalTopology.of_graph([f"{s}{i}" for s in "ab" for i in range(5)], ring)
    now(t)
    t.add_arc("b0", "b3")
    t.remove_arc("a1", "a2")  # the ring a opens: a0…a4 become DAG nodes
    result = json.loads(now(t))
    assert t.recomputed == [[f"b{i}" for i in range(5)]]
    assert [scc["id"] for scc in result["sccs"]] == ["scc-0"]
    assert result["dag_nodes"] == [f"a{i}" for i in range(5)]


def test_bad_edits_are_refused() -> None:
    t = IncrementalTopology()
    t.add_node("a")
    with pytest.raises(ValueError, match="already"):
        t.add_node("a")
    with pytest.raises(KeyError):
        t.remove_node("b")
    with pytest.raises(KeyError):
        t.remove_arc("a", "b")


class IncrementalMachine(RuleBasedStateMachine):
    """Random edit sequences, the result compared with the full computation after each."""

    @initialize()
    def start(self) -> None:
        self.nodes: set[str] = set()
        self.arcs: list[tuple[str, str]] = []
        self.t = IncrementalTopology(cache=KappaCache())

    @rule(node=st.sampled_from(NAMES))
    def add_node(self, node: str) -> None:
        apply(self.t, self.nodes, self.arcs, ("+n", node))

    @rule(node=st.sampled_from(NAMES))
    def remove_node(self, node: str) -> None:
        apply(self.t, self.nodes, self.arcs, ("-n", node))

    @rule(u=st.sampled_from(NAMES), v=st.sampled_from(NAMES))
    def add_arc(self, u: str, v: str) -> None:
        apply(self.t, self.nodes, self.arcs, ("+a", u, v))

    @precondition(lambda self: bool(self.arcs))
    @rule(k=st.integers(0, 200))
    def remove_arc(self, k: int) -> None:
        apply(self.t, self.nodes, self.arcs, ("-a", k))

    @invariant()
    def equals_the_full_computation(self) -> None:
        assert now(self.t) == full(self.nodes, self.arcs)


IncrementalMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
TestIncrementalMachine = IncrementalMachine.TestCase


def test_a_state_taken_from_a_result_pauses_every_1024_arcs_and_is_the_same_however_sliced() -> None:
    """(A page takes it in slices after a whole computation: no slice walks every arc.)"""
    n = 1500
    nodes = [f"n{i}" for i in range(n)]
    arcs = [(f"n{i}", f"n{(i + 1) % n}") for i in range(n)] + [(f"n{i}", f"n{(i * 7) % n}") for i in range(0, n, 2)]
    result = json.loads(full(set(nodes), arcs))
    steps = IncrementalTopology.of_result_steps(sorted(nodes), arcs, result, cache=KappaCache())
    pauses = 0
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            sliced = stop.value
            break
        pauses += 1
    assert pauses >= len(arcs) // 1024 + 2
    whole = finish(IncrementalTopology.of_result_steps(sorted(nodes), arcs, result, cache=KappaCache()))
    assert now(sliced) == now(whole) == full(set(nodes), arcs)

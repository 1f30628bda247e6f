"""The engine in steps (kappa.steps): however an analysis is sliced, it ends where the
one-go analysis ends, byte for byte; bad input fails the same way; pauses really happen."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.kappa import KappaCache, analyze
from bendscope.kappa.analyze import analyze_steps
from bendscope.kappa.mincut import arc_strong_connectivity, arc_strong_connectivity_steps
from bendscope.kappa.steps import Meter, advance, finish


def random_graph(n: int, m: int, seed: int) -> tuple[list[str], list[dict[str, str]]]:
    rng = random.Random(seed)
    kinds = ["causal", "temporal", "associative", None]
    edges = []
    for _ in range(m):
        edge = {"source": f"v{rng.randrange(n)}", "target": f"v{rng.randrange(n)}"}
        kind = rng.choice(kinds)
        if kind:
            edge["kind"] = kind
        edges.append(edge)
    return [f"v{i}" for i in range(n)], edges


def sliced(nodes, edges, quantum: int, seed: int, cache: KappaCache | None = None) -> tuple[dict, int]:
    """Run analyze_steps in slices that end at random pauses; returns (result, slices)."""
    rng = random.Random(seed)
    job = analyze_steps(nodes, edges, meter=Meter(quantum=quantum), cache=cache)
    slices = 1
    while True:
        done, result = advance(job, lambda: rng.random() < 0.5)
        if done:
            return result, slices
        slices += 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(min_value=0, max_value=60),
    density=st.floats(min_value=0.0, max_value=6.0),
    seed=st.integers(min_value=0, max_value=10**6),
    quantum=st.integers(min_value=1, max_value=300),
)
def test_any_slicing_ends_where_one_go_ends(n, density, seed, quantum):
    nodes, edges = random_graph(n, int(n * density), seed)
    expected = json.dumps(analyze(nodes, edges))
    result, _ = sliced(nodes, edges, quantum, seed)
    assert json.dumps(result) == expected


def test_large_analyses_pause_often_and_agree():
    nodes, edges = random_graph(1500, 6000, 4)
    expected = analyze(nodes, edges)
    result, slices = sliced(nodes, edges, 256, 9)
    assert result == expected
    assert slices > 10


def test_dense_component_pauses_inside_the_cut_search():
    rng = random.Random(3)
    n = 120
    arcs = {(u, (u + 1) % n) for u in range(n)} | {(rng.randrange(n), rng.randrange(n)) for _ in range(4000)}
    out = [sorted({v for u2, v in arcs if u2 == u and v != u}) for u in range(n)]
    job = arc_strong_connectivity_steps(out, Meter(quantum=64))
    pauses = 0
    while True:
        done, result = advance(job, lambda: True)
        if done:
            break
        pauses += 1
    assert result == arc_strong_connectivity(out)
    assert pauses > 100


def test_interleaved_jobs_sharing_one_cache_are_both_right():
    cache = KappaCache()
    a = random_graph(200, 700, 1)
    b = random_graph(200, 700, 2)
    jobs = [analyze_steps(*a, cache=cache, meter=Meter(quantum=50)), analyze_steps(*b, cache=cache, meter=Meter(50))]
    results: list[dict | None] = [None, None]
    while any(r is None for r in results):
        for i, job in enumerate(jobs):
            if results[i] is None:
                done, value = advance(job, lambda: True)
                if done:
                    results[i] = value
    assert results == [analyze(*a), analyze(*b)]


def test_bad_input_fails_the_same_way_in_steps():
    for nodes, edges in [
        (["a"], [{"source": "a"}]),
        ("ab", []),
        (["a", 1], []),
        (["a"], [{"source": "a", "target": 2}]),
    ]:
        with pytest.raises((TypeError, ValueError)) as one_go:
            analyze(nodes, edges)
        with pytest.raises(type(one_go.value)) as in_steps:
            finish(analyze_steps(nodes, edges, meter=Meter(quantum=1)))
        assert str(in_steps.value) == str(one_go.value)
    with pytest.raises(ValueError, match="exact_limit"):
        finish(analyze_steps(["a"], [], exact_limit=-1))


def test_meter():
    assert Meter().quantum > 10**15
    meter = Meter(quantum=3)
    assert [meter.spend(1) for _ in range(7)] == [False, False, True, False, False, True, False]
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError):
            Meter(quantum=bad)  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(
    n=st.integers(min_value=0, max_value=40),
    density=st.floats(min_value=0.0, max_value=5.0),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_trusted_input_gives_the_validated_answer(n, density, seed):
    """The editor's path skips validation of its own (valid) data: same result."""
    nodes, edges = random_graph(n, int(n * density), seed)
    rng = random.Random(seed)
    rng.shuffle(nodes)  # any order: the engine sorts
    trusted = finish(analyze_steps(nodes, edges, trusted=True, meter=Meter(7)))
    assert json.dumps(trusted) == json.dumps(analyze(nodes, edges))

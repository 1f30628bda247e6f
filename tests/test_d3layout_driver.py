"""The page's layout driver (app.d3layout) under CPython, with a stand-in for the browser:
a fake ``js`` module whose kernel cools like d3 (alpha × (1 − decay) per tick) and moves
every free card by one unit per tick. What is tested is the driver's bookkeeping: rest,
empty planes, slices, separation calls, positions and held cards, graph rebuilds.
"""

from __future__ import annotations

import importlib
import sys
import types
from array import array
from typing import Any

import pytest

from bend.model import Edge, Node, Plane


class FakeKernel:
    """Stands in for window.bendscopeLayout (static/layout.js): same calls, same arrays."""

    def __init__(self, separation_calls: int = 2) -> None:
        self.created = 0
        self.runs: list[tuple[int, float]] = []
        self.separation_calls = separation_calls

    def create(self, seed: int, params: dict[str, float]) -> dict[str, Any]:
        self.created += 1
        return {"params": params, "n": 0, "separating": 0}

    def setGraph(self, h, state, pairs, rest, k) -> None:  # the JS name
        h["n"] = len(state) // 7

    def run(self, h, state, alpha, target, max_ticks, budget_ms):
        self.runs.append((max_ticks, budget_ms))
        p = h["params"]
        n = h["n"]
        xs = [state[7 * i] for i in range(n)]
        ys = [state[7 * i + 1] for i in range(n)]
        held = [state[7 * i + 6] for i in range(n)]
        ticks = 0
        if alpha >= p["alphaMin"]:
            h["separating"] = self.separation_calls
        while ticks < max_ticks and alpha >= p["alphaMin"]:
            alpha *= 1 - p["alphaDecay"]
            ticks += 1
            for i in range(n):
                if not held[i]:
                    xs[i] += 1.0
            if budget_ms > 0 and ticks >= 10:  # a budget buys ten ticks here
                break
        settled = 0.0
        if alpha < p["alphaMin"] and (budget_ms <= 0 or ticks < 10):
            h["separating"] = 0 if budget_ms <= 0 else h["separating"] - 1
            settled = 1.0 if h["separating"] <= 0 else 0.0
        out = array("d", [alpha, float(ticks), settled])
        for i in range(n):
            out.extend((xs[i], ys[i], 0.5, 0.0))
        return types.SimpleNamespace(to_py=lambda: out)


@pytest.fixture
def d3layout(monkeypatch):
    kernel = FakeKernel()
    clock = iter(range(10**9))
    fake_js = types.ModuleType("js")
    fake_js.window = types.SimpleNamespace(bendscopeLayout=kernel)
    fake_js.performance = types.SimpleNamespace(now=lambda: float(next(clock)))
    fake_js.Object = types.SimpleNamespace(fromEntries=dict)
    fake_js.console = types.SimpleNamespace(warn=print)
    ffi = types.ModuleType("pyodide.ffi")
    ffi.to_js = lambda value, **_: value
    ffi.create_proxy = ffi.create_once_callable = lambda f: f
    ffi.jsnull = None
    pyodide = types.ModuleType("pyodide")
    pyodide.ffi = ffi
    monkeypatch.setitem(sys.modules, "js", fake_js)
    monkeypatch.setitem(sys.modules, "pyodide", pyodide)
    monkeypatch.setitem(sys.modules, "pyodide.ffi", ffi)
    for name in ("app.d3layout", "app.dom"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    module = importlib.import_module("app.d3layout")
    module.kernel = kernel
    yield module
    for name in ("app.d3layout", "app.dom"):
        sys.modules.pop(name, None)


def plane_of(n: int, edges: list[tuple[int, int]] = ()) -> Plane:
    plane = Plane("p", "P")
    for i in range(n):
        plane.add_node(Node(f"n{i}", f"n{i}", x=10.0 * i, y=0.0))
    for k, (a, b) in enumerate(edges):
        plane.add_edge(Edge(f"e{k}", f"n{a}", f"n{b}"))
    return plane


def test_an_empty_plane_is_at_rest_at_once(d3layout):
    """Regression: an empty plane's layout stayed 'active' and the page repainted forever."""
    sim = d3layout.D3Simulation(Plane("p", "P"), seed=1)
    assert sim.active  # alpha 1 as made, like every new plane
    assert sim.step(8.0) is False
    assert not sim.active
    sim.reheat()
    assert sim.step(8.0) is False and not sim.active
    assert sim.settle() == 0 and not sim.active


def test_slices_run_to_rest_then_separation_then_stop(d3layout):
    plane = plane_of(3, [(0, 1), (1, 2)])
    sim = d3layout.D3Simulation(plane, seed=1)
    slices = 0
    while sim.step(8.0):
        slices += 1
        assert 0.0 <= sim.progress <= 1.0
    # 170 ticks at ten per slice, then the separation calls, then rest
    assert slices >= 17 + 1
    assert not sim.active and sim.alpha == 0.0 and sim.progress == 1.0
    assert all(n.vx == 0.0 and n.vy == 0.0 for n in plane.nodes.values())
    assert plane.nodes["n0"].x == 170.0  # every tick's move came back to the node
    assert d3layout.kernel.created == 1  # one kernel graph for the whole run


def test_positions_come_back_and_held_cards_stay(d3layout):
    plane = plane_of(3)
    plane.update_node("n1", pinned=True)
    sim = d3layout.D3Simulation(plane, seed=1)
    sim.fixed.add("n2")
    sim.step(8.0)
    assert plane.nodes["n0"].x == 10.0  # ten ticks, one unit each
    assert plane.nodes["n0"].vx == 0.5
    assert plane.nodes["n1"].x == 10.0 and plane.nodes["n2"].x == 20.0  # held: unmoved


def test_the_kernel_graph_is_rebuilt_on_structure_and_size_changes_only(d3layout):
    plane = plane_of(3, [(0, 1)])
    sim = d3layout.D3Simulation(plane, seed=1)
    sim.step(8.0)
    sim.step(8.0)
    plane.update_node("n0", x=500.0)
    sim.step(8.0)
    assert d3layout.kernel.created == 1
    plane.add_edge(Edge("x", "n1", "n2"))
    sim.step(8.0)
    assert d3layout.kernel.created == 2
    plane.nodes["n2"].width += 5
    sim.step(8.0)
    assert d3layout.kernel.created == 3


def test_settle_runs_to_rest_in_one_call_without_a_budget(d3layout):
    plane = plane_of(4, [(0, 1)])
    sim = d3layout.D3Simulation(plane, seed=1)
    ticks = sim.settle()
    assert 160 <= ticks <= 180 and not sim.active
    assert d3layout.kernel.runs[-1][1] == 0.0

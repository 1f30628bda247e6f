"""The page's layout drivers (app.d3layout) under CPython, with a stand-in for the browser:
a fake ``js`` module whose kernel cools like d3 (alpha × (1 − decay) per tick) and moves
every free card by one unit per tick, and a fake layout worker that runs that kernel when
asked. What is tested is the drivers' bookkeeping: rest, empty planes, slices, separation
calls, positions and held cards, graph rebuilds; for the worker, which frames are taken
(stale gens and epochs never), held cards, pause and resume, and what is sent when.
"""

from __future__ import annotations

import importlib
import sys
import types
from array import array
from typing import Any

import pytest

from bendscope.bend.model.elements import Edge, Node, Plane


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

    def overlaps(self, h) -> int:
        return 0

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


class Positions(list):
    """A frame's Float64Array as the driver sees it (to_py, item assignment)."""

    def to_py(self) -> array:
        return array("d", self)

    def slice(self) -> Positions:
        return Positions(self)


class FakeHost:
    """Stands in for window.bendscopeLayoutHost and the worker behind it: messages are kept;
    ``work(sim)`` runs one slice of the fake kernel for a running sim and leaves its frame."""

    def __init__(self, kernel: FakeKernel) -> None:
        self.kernel = kernel
        self.sent: list[dict[str, Any]] = []
        self.sims: dict[int, dict[str, Any]] = {}
        self.latest: dict[int, Any] = {}
        self.seq = 0
        self.frames: dict[int, list[float]] = {}  # seq → the frame's positions (a patch's base)
        self.patches: list[tuple[list[float], list[float]]] = []  # (state made from a patch, the check)

    def send(self, message, transfer=None) -> None:
        m = dict(message)
        self.sent.append(m)
        sim = self.sims.get(m["sim"])
        if m["type"] == "graph":
            self.sims[m["sim"]] = {"h": self.kernel.create(0, m["params"]), "gen": m["gen"], "epoch": m["epoch"],
                                   "state": list(m["state"]), "given": list(m["state"]), "alpha": 0.0,
                                   "running": False}  # fmt: skip
            self.latest.pop(m["sim"], None)
            self.kernel.setGraph(self.sims[m["sim"]]["h"], m["state"], m["pairs"], m["rest"], m["k"])
        elif sim is None:
            return
        elif m["type"] == "grow":
            sim["h"]["n"] += len(m["state"]) // 7
            sim["state"] += list(m["state"])
            sim["given"] += list(m["state"])
            sim.update(gen=m["gen"], epoch=m["epoch"])
        elif m["type"] == "run":
            state = m.get("state")
            if m.get("patch") is not None:  # (as static/layout.js makes the whole state of a patch)
                patch = m["patch"]
                state = list(sim["given"])
                for i, xy in enumerate(zip(*[iter(self.frames.get(patch["base"], []))] * 2, strict=True)):
                    state[7 * i], state[7 * i + 1] = xy
                if patch.get("outside") is not None:  # (every card not held takes that flag)
                    state[6::7] = [v if v == 1.0 else patch["outside"] for v in state[6::7]]
                for k, index in enumerate(patch["index"]):
                    state[7 * index : 7 * index + 7] = patch["state"][7 * k : 7 * k + 7]
                if "check" in patch:
                    self.patches.append((state, list(patch["check"])))
            if state is not None:
                sim["state"] = list(state)
                sim["given"] = list(state)
            sim.update(epoch=m["epoch"], alpha=m["alpha"], running=True)
        elif m["type"] == "hold":
            for i, k in enumerate(m["index"]):
                sim["state"][7 * k], sim["state"][7 * k + 1] = m["xy"][2 * i], m["xy"][2 * i + 1]
        elif m["type"] == "heat":
            if "held" in m:
                for k, flag in enumerate(m["held"]):
                    sim["state"][7 * k + 6] = flag
                for i, k in enumerate(m["index"]):
                    sim["state"][7 * k], sim["state"][7 * k + 1] = m["xy"][2 * i], m["xy"][2 * i + 1]
            sim.update(alpha=max(sim["alpha"], m["alpha"]), running=True)
        elif m["type"] in ("stop", "drop"):
            sim.update(running=False, epoch=m.get("epoch", sim["epoch"]))
            self.latest.pop(m["sim"], None)

    def work(self, sim_id: int) -> None:
        sim = self.sims[sim_id]
        if not sim["running"]:
            return
        out = self.kernel.run(sim["h"], sim["state"], sim["alpha"], 0.0, 10_000, 8.0).to_py()
        n = (len(out) - 3) // 4
        for i in range(n):
            sim["state"][7 * i], sim["state"][7 * i + 1] = out[3 + 4 * i], out[4 + 4 * i]
        sim["alpha"] = out[0]
        if out[2]:
            sim["running"] = False
        xy = Positions(v for i in range(n) for v in (out[3 + 4 * i], out[4 + 4 * i]))
        self.seq += 1
        self.frames[self.seq] = list(xy)
        self.latest[sim_id] = types.SimpleNamespace(
            gen=sim["gen"],
            epoch=sim["epoch"],
            seq=self.seq,
            alpha=out[0],
            ticks=out[1],
            settled=out[2],
            overlaps=0,
            xy=xy,
        )

    def take(self, sim_id: int):
        return self.latest.pop(sim_id, None)

    def changed(self, prev, next, also):  # (static/layout-host.js)
        out, mark = array("d"), set(also)
        for i in range(len(next) // 2):
            if i in mark or prev[2 * i] != next[2 * i] or prev[2 * i + 1] != next[2 * i + 1]:
                out.extend((i, next[2 * i], next[2 * i + 1]))
        return types.SimpleNamespace(to_py=lambda: out)

    def stats(self):
        return types.SimpleNamespace(received=0, failure=self.failure)

    def resend(self, sim_id: int) -> bool:
        return False

    failure = None


@pytest.fixture
def d3layout(monkeypatch):
    kernel = FakeKernel()
    clock = iter(range(10**9))
    fake_js = types.ModuleType("js")
    host = FakeHost(kernel)
    fake_js.window = types.SimpleNamespace(bendscopeLayout=kernel, bendscopeLayoutHost=host)
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
    for name in ("bendscope.app.d3layout", "bendscope.app.dom"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    module = importlib.import_module("bendscope.app.d3layout")
    module.kernel = kernel
    module.host = host
    yield module
    for name in ("bendscope.app.d3layout", "bendscope.app.dom"):
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
    sim = d3layout.KernelSimulation(Plane("p", "P"), seed=1)
    assert sim.active  # alpha 1 as made, like every new plane
    assert sim.step(8.0) is False
    assert not sim.active
    sim.reheat()
    assert sim.step(8.0) is False and not sim.active
    assert sim.settle() == 0 and not sim.active


def test_slices_run_to_rest_then_separation_then_stop(d3layout):
    plane = plane_of(3, [(0, 1), (1, 2)])
    sim = d3layout.KernelSimulation(plane, seed=1)
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
    sim = d3layout.KernelSimulation(plane, seed=1)
    sim.fixed.add("n2")
    sim.step(8.0)
    assert plane.nodes["n0"].x == 10.0  # ten ticks, one unit each
    assert plane.nodes["n0"].vx == 0.5
    assert plane.nodes["n1"].x == 10.0 and plane.nodes["n2"].x == 20.0  # held: unmoved


def test_the_kernel_graph_is_rebuilt_on_structure_and_size_changes_only(d3layout):
    plane = plane_of(3, [(0, 1)])
    sim = d3layout.KernelSimulation(plane, seed=1)
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
    sim = d3layout.KernelSimulation(plane, seed=1)
    ticks = sim.settle()
    assert 160 <= ticks <= 180 and not sim.active
    assert d3layout.kernel.runs[-1][1] == 0.0


def types_sent(host: FakeHost) -> list[str]:
    return [m["type"] for m in host.sent]


def test_the_worker_runs_to_rest_and_its_frames_come_back(d3layout):
    plane = plane_of(3, [(0, 1), (1, 2)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    host = d3layout.host
    assert sim.background and sim.active
    assert sim.step() is False  # the worker was given the graph and asked to run; no frame yet
    assert types_sent(host) == ["graph", "run"]
    steps = 0
    while sim.active:
        host.work(sim.id)
        assert sim.step() is True
        steps += 1
    assert steps >= 17 and plane.nodes["n0"].x == 170.0  # every tick's move came back
    assert types_sent(host) == ["graph", "run"]  # nothing more was needed while it ran
    assert sim.step() is False and not sim.active


def test_frames_of_an_older_state_are_never_taken(d3layout):
    """A frame computed before Python changed positions (an undo, a drop) would put the
    old positions back: it is dropped, and the worker is given the new state."""
    plane = plane_of(3, [(0, 1)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    host = d3layout.host
    sim.step()
    host.work(sim.id)  # a frame from epoch 1 waits
    plane.update_node("n2", x=-500.0)
    sim.reheat(around=["n2"])  # what the editor does after an edit
    assert sim.step() is False  # the waiting frame was stale: not applied
    assert plane.nodes["n2"].x == -500.0
    run = host.sent[-1]
    assert run["type"] == "run" and run["patch"] is not None and run["epoch"] == 2  # (what changed)
    state = host.sims[sim.id]["given"]  # the whole state the worker made of it
    assert state[7 * 2] == -500.0 and state[7 * 2 + 6] == 0.0  # n2 is free, where Python put it
    assert state[6] == 0.0 and state[7 + 6] == 0.0  # the first layout was still running: it stays whole
    host.work(sim.id)
    assert sim.step() is True and plane.nodes["n2"].x == -490.0


def test_a_local_reheat_holds_what_is_far_from_the_change(d3layout):
    plane = plane_of(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    sim.step()  # the first layout: the whole plane
    assert list(d3layout.host.sent[0]["state"][6::7]) == [0.0] * 6
    sim.stop()
    sim.reheat(around=["n0"])
    sim.step()
    assert "patch" in d3layout.host.sent[-1]  # (the region and the flag of the rest: not every card)
    state = d3layout.host.sims[sim.id]["given"]  # what the worker makes of it
    assert [state[7 * i + 6] for i in range(6)] == [0.0, 0.0, 0.0, 2.0, 2.0, 2.0]  # outside the region


def test_held_cards_follow_the_pointer_not_the_worker(d3layout):
    plane = plane_of(3, [(0, 1), (1, 2)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    host = d3layout.host
    sim.step()
    sim.fixed.add("n1")  # a drag starts: the held flags go to the worker (no new epoch)
    sim.step()
    heat = next(m for m in reversed(host.sent) if m["type"] == "heat")
    assert list(heat["held"]) == [0.0, 1.0, 0.0] and heat["index"] == []
    assert all(m["type"] != "run" for m in host.sent[2:])
    plane.nodes["n1"].x = 999.0  # the pointer moved it
    sim.step()
    assert host.sent[-1] == {"sim": sim.id, "type": "hold", "index": [1], "xy": [999.0, 0.0]}
    host.work(sim.id)
    plane.nodes["n1"].x = 1010.0  # moved again before the frame was taken
    assert sim.step() is True
    assert plane.nodes["n1"].x == 1010.0  # the frame did not move it back
    assert plane.nodes["n0"].x == 10.0  # the free ones moved with the worker


def test_a_continuous_drag_keeps_taking_the_worker_s_frames(d3layout):
    """Review finding: every pointer move reheated with a new epoch, so each frame the worker
    had computed was thrown away and the dragged card's neighbours stood still while the
    pointer moved. A drag now only raises the alpha: a frame is taken on every step."""
    plane = plane_of(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    host = d3layout.host
    sim.stop()  # settled
    sim.fixed.add("n2")
    sim.reheat(around=["n2"], moved=False)
    taken = 0
    for _ in range(30):
        plane.nodes["n2"].x += 3.0  # the pointer moves every frame
        sim.reheat(around=["n2"], moved=False)
        sim.step()
        host.work(sim.id)
        taken += sim.step()
    assert taken == 30
    assert plane.nodes["n0"].x > 0.0  # a neighbour followed (one unit per tick in the fake)
    assert [m["type"] for m in host.sent].count("run") <= 1  # the state went once, at the start
    released = plane.nodes["n2"].x
    sim.fixed.clear()  # the drop: the card leaves the held set where Python has it
    sim.step()
    heat = next(m for m in reversed(host.sent) if m["type"] == "heat")
    assert heat["index"] == [2] and heat["xy"] == [released, 0.0]


def test_pause_stops_the_worker_and_the_next_step_resumes_from_the_plane(d3layout):
    plane = plane_of(2, [(0, 1)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    host = d3layout.host
    sim.step()
    host.work(sim.id)
    sim.pause()
    assert host.sent[-1]["type"] == "stop" and sim.active  # alpha kept: it goes on later
    assert sim.step() is False  # the waiting frame is from before the pause
    assert host.sent[-1]["type"] == "run" and host.sent[-1]["state"] is not None
    sim.close()
    assert host.sent[-1]["type"] == "drop"


def test_a_structure_change_grows_the_graph_or_sends_a_new_one(d3layout):
    """An edge appended grows the worker's graph (``grow``); one taken away sends a new graph."""
    plane = plane_of(3, [(0, 1)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    host = d3layout.host
    sim.step()
    host.work(sim.id)
    plane.add_edge(Edge("x", "n1", "n2"))
    assert sim.step() is False  # the frame was of the old graph
    assert types_sent(host)[-2:] == ["grow", "run"] and host.sent[-2]["gen"] == 2
    host.work(sim.id)
    plane.remove_edge("x")
    sim.step()
    assert "graph" in types_sent(host)[-2:]


def test_settle_runs_on_the_main_thread_and_stops_the_worker(d3layout):
    plane = plane_of(4, [(0, 1)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    sim.step()
    ticks = sim.settle()
    assert 160 <= ticks <= 180 and not sim.active
    assert d3layout.host.sent[-1]["type"] == "stop"
    assert sim.step() is False


def test_the_frame_s_positions_are_drawn_as_they_came_while_nothing_else_moved(d3layout):
    plane = plane_of(3, [(0, 1), (1, 2)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    host = d3layout.host
    sim.step()
    assert sim.positions_js(5) is None  # no frame yet: the painter reads the plane
    host.work(sim.id)
    sim.step()
    xy = sim.positions_js(5)
    assert list(xy) == [plane.nodes[f"n{i}"].x if k % 2 == 0 else 0.0 for i in range(3) for k in range(2)]
    assert sim.positions_js(5) is xy  # the same frame, the same document
    assert sim.positions_js(6) is None  # an edit since: Python's positions may differ
    host.work(sim.id)
    sim.step()
    sim.fixed.add("n1")
    plane.nodes["n1"].x = 500.0
    assert sim.step() is False  # a drag starts (the held flags go; no frame waits)
    assert sim.positions_js(6)[2] == 500.0  # held cards are drawn where Python has them
    host.work(sim.id)
    sim.step()
    plane.nodes["n1"].x = 777.0  # the pointer moved the held card after the frame came
    assert sim.positions_js(7)[2] == 777.0
    sim.fixed.clear()
    while sim.active:
        host.work(sim.id)
        sim.step()
    assert sim.positions_js(7) is None  # at rest the plane is read


def test_a_hub_s_drag_frees_the_same_bounded_region_in_the_worker(d3layout):
    """The worker's engine follows ``local_region`` as the CPython one does: a hub of 300
    leaves, each with two cards of its own (901 cards in two hops), frees cards costing at most
    ``LOCAL_BUDGET`` to redraw, the rest held. On the old code it freed all 901."""
    from bendscope.bend.layout.simulation import LOCAL_BUDGET, local_region

    edges = [(0, i) for i in range(1, 301)] + [(i, 300 + 2 * i - 1 + j) for i in range(1, 301) for j in range(2)]
    plane = plane_of(901, edges)
    sim = d3layout.WorkerSimulation(plane, seed=1)
    sim.stop()
    sim.fixed.add("n0")
    sim.reheat(around=["n0"], moved=False)
    assert sim.free == local_region(plane, ["n0"]) and "n0" in sim.free
    assert 300 + 1 + 3 * (len(sim.free) - 1) <= LOCAL_BUDGET < 901
    sim.step()
    sent = next(m for m in reversed(d3layout.host.sent) if "held" in m or m.get("state") is not None)
    held = list(sent["held"]) if "held" in sent else list(sent["state"][6::7])
    assert held[0] == 1.0 and held.count(0.0) == len(sim.free) - 1  # (the hub: held by the pointer)

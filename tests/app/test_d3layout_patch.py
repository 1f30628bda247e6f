"""The layout worker's state given as a patch (app/d3layout.py ``WorkerSimulation``, against the
stand-in worker of test_d3layout_driver, which makes the whole state of a patch as
static/layout.js does): whatever Python does between frames — edits that move cards, cards and
edges appended, drags and drops, pins, stops — every patch makes exactly the whole state Python
would have sent (its check), and an agent's stream of appended cards goes as patches."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.model.elements import Edge, Node

from .test_d3layout_driver import d3layout, plane_of  # noqa: F401 - the fixture

KINDS = ["work", "step", "step", "move", "add", "add", "drag", "drop", "pin", "stop"]
OPS = st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 30)), max_size=30)


def act(sim, host, plane, op: str, k: int, made: list[int]) -> None:  # type: ignore[no-untyped-def]
    ids = list(plane.nodes)
    node_id = ids[k % len(ids)]
    if op == "work":
        host.work(sim.id)
    elif op == "step":
        sim.step()
    elif op == "move":
        plane.update_node(node_id, x=plane.nodes[node_id].x + 17.0 * (k + 1), y=-3.0 * k)
        sim.reheat(around=[node_id])
    elif op == "add":  # (an agent's card, joined to one already there)
        made[0] += 1
        new = f"w{made[0]}"
        plane.add_node(Node(new, new, x=5.0 * k, y=7.0 * k))
        plane.add_edge(Edge(f"we{made[0]}", node_id, new))
        sim.reheat(around=[new, node_id])
    elif op == "drag":
        sim.fixed.add(node_id)
        plane.nodes[node_id].x += 9.0
        sim.reheat(around=[node_id], moved=False)
    elif op == "drop" and sim.fixed:
        held = sorted(sim.fixed)
        sim.fixed.clear()
        for n in held:
            plane.update_node(n, x=plane.nodes[n].x + 1.0)
        sim.reheat(around=held)
    elif op == "pin":
        plane.update_node(node_id, pinned=not plane.nodes[node_id].pinned)
        sim.reheat(around=[node_id])
    elif op == "stop":
        sim.stop()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(OPS)
def test_every_patch_makes_the_whole_state_python_holds(d3layout, ops):  # noqa: F811
    d3layout.js.window.bendscopeLayoutCheck = True
    host = d3layout.host
    host.patches.clear()
    plane = plane_of(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    made = [0]
    for op, k in [("step", 0), ("work", 0), *ops, ("step", 0)]:
        act(sim, host, plane, op, k, made)
    for state, check in host.patches:
        assert state == check


def test_an_agent_s_stream_of_cards_goes_as_patches(d3layout):  # noqa: F811
    d3layout.js.window.bendscopeLayoutCheck = True
    host = d3layout.host
    plane = plane_of(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    made = [0]
    for op, k in [("step", 0), ("work", 0), ("step", 0)] + [("add", k) for k in range(5)]:
        act(sim, host, plane, op, k, made)
        act(sim, host, plane, "step", 0, made)
        act(sim, host, plane, "work", 0, made)
        act(sim, host, plane, "step", 0, made)
    assert sim.patched == 5 and len(host.patches) == 5
    assert all(state == check for state, check in host.patches)
    kinds = [m["type"] for m in host.sent if m["type"] in ("graph", "grow", "run")]
    assert kinds[:2] == ["graph", "run"] and kinds[2:] == ["grow", "run"] * 5
    assert all("patch" in m for m in host.sent[2:] if m["type"] == "run")


def test_a_drag_from_rest_sends_its_region_not_every_card_s_state(d3layout):  # noqa: F811
    """A drag's first move after the layout rested gave the worker every card's state (built
    card by card in Python: ~40 ms at 2,000 cards on a busy machine): now a patch of the cards
    its local reheat frees and the held flag of the rest, which makes the same whole state."""
    d3layout.js.window.bendscopeLayoutCheck = True
    host = d3layout.host
    host.patches.clear()
    n = 40
    plane = plane_of(n, [(i, i + 1) for i in range(n - 1)])
    sim = d3layout.WorkerSimulation(plane, seed=1)
    for _ in range(200):  # the first layout, to rest
        sim.step()
        host.work(sim.id)
        if not sim.step() and not sim.active:
            break
    assert not sim.active
    sent = len(host.sent)
    sim.fixed.add("n20")  # the press, then the first move
    plane.nodes["n20"].x += 9.0
    sim.reheat(around=["n20"], moved=False)
    sim.step()
    run = next(m for m in host.sent[sent:] if m["type"] == "run")
    assert "state" not in run and run["patch"]["outside"] == 2.0
    assert 0 < len(run["patch"]["index"]) < 10  # (the card and its two-hop region)
    assert host.patches and all(state == check for state, check in host.patches)

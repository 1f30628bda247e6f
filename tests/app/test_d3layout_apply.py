"""A worker's frame applied to the plane's cards (app/d3layout.py ``WorkerSimulation._apply``):
within one state given, only the cards whose place changed since the frame before (and those
Python held or moved) are written — and whatever Python does between frames (edits that move
cards, cards appended, drags and drops, pins, stops), every card ends where writing every card
of every frame puts it."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from .test_d3layout_driver import FakeHost, FakeKernel, d3layout, plane_of  # noqa: F401 - the fixture
from .test_d3layout_patch import OPS, act

EDGES = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)]


def places(plane) -> list[tuple[str, float, float]]:  # type: ignore[no-untyped-def]
    return [(n.id, n.x, n.y) for n in plane.nodes.values()]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(OPS)
def test_writing_the_changed_cards_puts_every_card_where_writing_all_of_them_does(d3layout, ops):  # noqa: F811
    plane, whole_plane = plane_of(6, EDGES), plane_of(6, EDGES)
    sim, whole = d3layout.WorkerSimulation(plane, seed=1), d3layout.WorkerSimulation(whole_plane, seed=1)
    host, whole_host = d3layout.host, FakeHost(FakeKernel())
    host.sent.clear()
    whole._host = whole_host
    made, whole_made = [0], [0]
    for op, k in [("step", 0), ("work", 0), *ops, ("step", 0), ("work", 0), ("step", 0)]:
        act(sim, host, plane, op, k, made)
        whole._applied = None  # (every card written, as each frame was before)
        act(whole, whole_host, whole_plane, op, k, whole_made)
        assert places(plane) == places(whole_plane), (op, k)


def test_a_local_reheat_s_frames_write_only_the_cards_it_moves(d3layout):  # noqa: F811
    plane = plane_of(40, [(i, i + 1) for i in range(39)])
    sim, host = d3layout.WorkerSimulation(plane, seed=1), d3layout.host
    sim.step()
    host.work(sim.id)
    sim.step()  # (the first frame of a state: every card)
    assert sim.changed_last == 40
    for _ in range(30):  # (to rest)
        host.work(sim.id)
        sim.step()
    sim.fixed.add("n0")
    plane.nodes["n0"].x += 9.0
    sim.reheat(around=["n0"], moved=False)  # (a drag: its local region is freed)
    free = set(sim.free or ())
    assert 0 < len(free) < 40
    written = []
    for _ in range(4):
        sim.step()
        host.work(sim.id)
        sim.step()
        written.append(sim.changed_last)
    assert max(written[1:]) <= len(free), (written, sorted(free))

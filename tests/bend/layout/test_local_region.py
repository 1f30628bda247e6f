"""The region a local reheat frees (``bend.layout.simulation.local_region``): a drag of a card
with hundreds of neighbours (a hub) freed its whole two-hop neighbourhood — 1,720 of 2,000
cards in a preferential-attachment graph — too many for the page to draw the rest once, so
every frame of the drag was drawn and rasterised whole. Now the region is bounded by what it
costs to redraw, nearest first, the same for every engine, and an ordinary card's region is
what it was."""

from __future__ import annotations

import random

from bendscope.bend.editor.editor import Editor
from bendscope.bend.layout.simulation import (
    LOCAL_BUDGET,
    Simulation,
    adjacency,
    drag_moving,
    local_region,
    moving_cards,
    neighbourhood,
    reheat_region,
)
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
from bendscope.bend.pointer.inputs import PointerInput
from bendscope.bend.pointer.machine import Tools


def _hub_plane(leaves: int = 600, per_leaf: int = 2, others: int = 199) -> Plane:
    """A hub linked to ``leaves`` cards, each with ``per_leaf`` cards of its own, and ``others``
    cards in a chain apart (2,000 cards by default)."""
    rng = random.Random(3)
    plane = Plane("plane-root", "Main")

    def card(node_id: str) -> None:
        plane.add_node(Node(node_id, node_id, "normal", rng.uniform(-3000, 3000), rng.uniform(-3000, 3000)))

    card("hub")
    k = 0
    for i in range(leaves):
        card(f"l{i}")
        plane.add_edge(Edge(f"e{k}", "hub", f"l{i}", EdgeProps("", "causal", 2)))
        k += 1
        for j in range(per_leaf):
            card(f"f{i}_{j}")
            plane.add_edge(Edge(f"e{k}", f"l{i}", f"f{i}_{j}", EdgeProps("", "causal", 2)))
            k += 1
    for i in range(others):
        card(f"o{i}")
        if i:
            plane.add_edge(Edge(f"e{k}", f"o{i - 1}", f"o{i}", EdgeProps("", "causal", 2)))
            k += 1
    return plane


def _cost(plane: Plane, cards: set[str]) -> int:
    around = adjacency(plane)
    return sum(1 + len(around[c]) for c in cards)


def test_a_hub_s_region_stays_within_the_budget_and_the_page_keeps_its_layer():
    """Fails on the old code: the hub's region was its 1,601-card two-hop neighbourhood, and
    ``moving_cards`` said None (every frame drawn whole)."""
    plane = _hub_plane(leaves=400, per_leaf=3, others=399)
    assert len(plane.nodes) == 2000 and len(neighbourhood(plane, ["hub"])) == 1601
    region = reheat_region(False, None, plane, ["hub"])
    assert region is not None and "hub" in region
    assert _cost(plane, region) <= LOCAL_BUDGET
    assert moving_cards(region, {"hub"}, len(plane.nodes)) is not None
    # nearest first: the hop that passes the budget is taken in part, nothing beyond it
    assert all(c == "hub" or c.startswith("l") for c in region)


def test_a_neighbour_of_a_hub_frees_the_hub_and_its_quietest_neighbours():
    """A leaf of the hub: its two hops held 523 cards (more than a quarter of 2,000: no layer,
    on the old code). Now the nearest hop whole, the next in part, fewest edges first."""
    plane = _hub_plane(leaves=520, per_leaf=1, others=958)
    plane.add_node(Node("q", "q", "normal", 0.0, 0.0))  # a quiet neighbour of the hub
    plane.add_edge(Edge("eq", "hub", "q", EdgeProps("", "causal", 2)))
    region = local_region(plane, ["l5"])
    assert len(plane.nodes) == 2000 and len(neighbourhood(plane, ["l5"])) == 523
    assert {"l5", "hub", "f5_0"} <= region  # one hop: whole
    assert "q" in region and "f6_0" not in region  # (one edge: before the leaves of two; nothing beyond)
    assert 20 < len(region) < 40
    assert _cost(plane, region) <= LOCAL_BUDGET
    assert moving_cards(region, {"l5"}, len(plane.nodes)) is not None


def test_a_card_of_an_ordinary_graph_frees_its_two_hops_as_before():
    rng = random.Random(5)
    plane = Plane("p", "P")
    for i in range(2000):
        plane.add_node(Node(f"n{i}"))
    pairs = [(rng.randrange(i), i) for i in range(1, 2000)] + [
        (rng.randrange(2000), rng.randrange(2000)) for _ in range(2000)
    ]
    for k, (a, b) in enumerate(p for p in pairs if p[0] != p[1]):
        plane.add_edge(Edge(f"e{k}", f"n{a}", f"n{b}"))
    around = adjacency(plane)
    same = 0
    for seed in plane.nodes:
        hops = neighbourhood(plane, [seed])
        if sum(1 + len(around[c]) for c in hops) <= LOCAL_BUDGET:
            assert local_region(plane, [seed]) == hops
            same += 1
    assert same > 1900  # (every card but a few early ones of many edges)


def test_the_held_card_alone_when_its_own_edges_pass_the_budget():
    plane = _hub_plane(leaves=LOCAL_BUDGET, per_leaf=0, others=10)
    assert local_region(plane, ["hub"]) == {"hub"}
    assert local_region(plane, ["hub", "o3"]) == {"hub", "o3"}  # every seed moves


def test_the_region_is_deterministic_and_the_same_through_every_move_of_a_drag():
    plane = _hub_plane(leaves=400)
    first = local_region(plane, ["hub"])
    assert len(first) > 1 and first == local_region(_hub_plane(leaves=400), ["hub"])
    grown = reheat_region(True, set(first), plane, ["hub"])  # the next move of the drag
    assert grown == first


def test_a_hub_s_drag_moves_only_the_cards_the_press_said_and_the_page_draws_the_rest_once():
    """Through the pointer, as the page does it: ``drag_moving`` at the press, the region of the
    moves, and where the cards are after the layout ran. Fails on the old code (None)."""
    editor = Editor(Document([_hub_plane(leaves=400, per_leaf=3, others=399)], "plane-root"))
    editor.sim().stop()
    tools = Tools(editor)
    before = {n.id: (n.x, n.y) for n in editor.plane.nodes.values()}
    sx, sy = editor.world_to_screen(*before["hub"])
    tools.pointer(PointerInput("down", 1, sx, sy, 0, "mouse"))
    told = drag_moving(editor.sim(), tools.state.group)
    assert told is not None and "hub" in told
    for dx in (10, 25, 40):
        tools.pointer(PointerInput("move", 1, sx + dx, sy, 0, "mouse"))
        sim = editor.sim()
        assert moving_cards(sim.free, sim.fixed, len(editor.plane.nodes)) == told
    for _ in range(5):
        editor.tick()
    tools.pointer(PointerInput("up", 1, sx + 40, sy, 0, "mouse"))
    for _ in range(5):
        editor.tick()
    moved = {n.id for n in editor.plane.nodes.values() if (n.x, n.y) != before[n.id]}
    assert "hub" in moved and moved <= told


def test_both_engines_follow_the_rule():
    """The worker's driver (app.d3layout) and the CPython engine call the same rule: checked
    here for the CPython one; tests/app/test_d3layout_driver.py checks the driver's calls."""
    plane = _hub_plane(leaves=400)
    sim = Simulation(plane)
    sim.stop()
    sim.reheat(around=["hub"], moved=False)
    assert sim.free == local_region(plane, ["hub"])


_TWO_SEEDS = """
from bendscope.bend.layout.simulation import local_region
from bendscope.bend.model.elements import Edge, Node, Plane
plane = Plane("p", "P")
for seed in "ab":
    plane.add_node(Node(seed))
    for i in range(20):
        plane.add_node(Node(f"{seed}{i}"))
        plane.add_edge(Edge(f"{seed}-{i}", seed, f"{seed}{i}"))
        for j in range(10):
            plane.add_node(Node(f"{seed}{i}.{j}"))
            plane.add_edge(Edge(f"{seed}-{i}-{j}", f"{seed}{i}", f"{seed}{i}.{j}"))
print(sorted(local_region(plane, {"a", "b"}, budget=300)))
"""


def test_two_seeds_free_the_same_cards_in_every_process():
    """Several seeds (a group's drag, an edit's two ends) given as a set: the region taken in
    part must not follow the set's order, which changes with each process's string hashes."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    regions = set()
    for seed in ("1", "2", "3", "4", "5", "6"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root / "py")}
        out = subprocess.run([sys.executable, "-c", _TWO_SEEDS], env=env, capture_output=True, text=True, check=True)
        regions.add(out.stdout)
    assert len(regions) == 1

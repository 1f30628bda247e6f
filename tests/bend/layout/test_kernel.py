"""The page's layout kernel (static/layout.js on the vendored d3-force), run in node on the
arrays bend.layout.forces builds: deterministic, sliced runs end where one run ends, cards never
overlap at rest, held cards stay put, springs pull linked cards together.

Needs node and the vendored runtime (`make vendor`; `make test` runs it first).
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bendscope.bend.layout.forces import ForceParams, kernel_graph, kernel_state, structure_key
from bendscope.bend.model.elements import Edge, Node, Plane

ROOT = Path(__file__).resolve().parents[3]
DRIVER = ROOT / "tests" / "support" / "layout_kernel.js"
#: the page's <script> tags, in the page's order (index.html)
SCRIPTS = [
    ROOT / "static" / "vendor" / "d3" / f"{name}.min.js"
    for name in ("d3-dispatch", "d3-quadtree", "d3-timer", "d3-force")
] + [ROOT / "static" / "layout.js"]


def test_the_page_loads_the_kernel_scripts_in_this_order():
    html = (ROOT / "index.html").read_text()
    positions = [html.index(str(path.relative_to(ROOT))) for path in SCRIPTS]
    assert positions == sorted(positions)


def _node() -> str:
    node = shutil.which("node")
    assert node, "node is needed (it comes with npm, which `make vendor` needs too)"
    missing = [str(p) for p in SCRIPTS if not p.exists()]
    assert not missing, f"run `make vendor` first: {missing}"
    return node


def run_kernel(
    plane: Plane,
    *,
    seed: int = 1,
    runs: list[tuple[int, float]] | None = None,
    fixed: set[str] | None = None,
    params: ForceParams | None = None,
    worker: bool = False,
) -> dict[str, Any]:
    """Run the kernel on ``plane`` (slices of (max ticks, budget ms), default: one run to rest)."""
    params = params or ForceParams()
    graph = kernel_graph(plane, params.gap)
    job = {
        "scripts": [str(p) for p in SCRIPTS],
        "seed": seed,
        "params": params.for_plane(len(graph.ids)),
        "state": list(kernel_state((plane.nodes[i] for i in graph.ids), fixed or set())),
        "pairs": list(graph.pairs),
        "rest": list(graph.rest),
        "k": list(graph.k),
        "runs": [{"maxTicks": t, "budgetMs": b} for t, b in (runs or [(100_000, 0.0)])],
        "worker": worker,
    }
    done = subprocess.run([_node(), str(DRIVER)], input=json.dumps(job), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    if worker:
        xy = result["xy"]
        result["pos"] = {node_id: (xy[2 * i], xy[2 * i + 1]) for i, node_id in enumerate(graph.ids)}
    else:
        values = result["state"]
        result["pos"] = {node_id: (values[4 * i], values[4 * i + 1]) for i, node_id in enumerate(graph.ids)}
    result["stdout"] = done.stdout
    return result


def make_plane(n: int, edges: list[tuple[int, int]], *, spread: float = 0.0, seed: int = 7) -> Plane:
    """Cards of varied sizes; all at the origin when ``spread`` is 0 (the worst start)."""
    rng = random.Random(seed)
    plane = Plane("p", "P")
    for i in range(n):
        x = rng.uniform(-spread, spread) if spread else 0.0
        y = rng.uniform(-spread, spread) if spread else 0.0
        plane.add_node(
            Node(
                f"n{i}",
                f"n{i}",
                x=x,
                y=y,
                width=rng.choice([90.0, 140.0, 220.0]),
                height=rng.choice([44.0, 66.0, 110.0]),
            )
        )
    for k, (a, b) in enumerate(edges):
        plane.add_edge(Edge(f"e{k}", f"n{a}", f"n{b}"))
    return plane


def random_edges(n: int, m: int, seed: int = 3) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    return [(rng.randrange(n), rng.randrange(n)) for _ in range(m)]


def overlaps(plane: Plane, pos: dict[str, tuple[float, float]]) -> list[tuple[str, str]]:
    """Pairs of cards whose rectangles overlap (brute force, the oracle). O(n²)."""
    nodes = list(plane.nodes.values())
    found = []
    for i, a in enumerate(nodes):
        ax, ay = pos[a.id]
        for b in nodes[i + 1 :]:
            bx, by = pos[b.id]
            if abs(ax - bx) < (a.width + b.width) / 2 - 0.5 and abs(ay - by) < (a.height + b.height) / 2 - 0.5:
                found.append((a.id, b.id))
    return found


def test_same_graph_and_seed_give_the_same_layout_byte_for_byte():
    plane = make_plane(120, random_edges(120, 160), spread=300)
    first, second = run_kernel(plane), run_kernel(plane)
    assert first["stdout"] == second["stdout"]


def test_coincident_cards_are_jiggled_by_the_seed():
    plane = make_plane(40, random_edges(40, 40))  # every card at the origin: d3 jiggles them
    a, b = run_kernel(plane, seed=1), run_kernel(plane, seed=2)
    assert a["stdout"] == run_kernel(plane, seed=1)["stdout"]
    assert a["pos"] != b["pos"]


def test_slices_end_where_one_run_ends():
    """The page runs the layout in time-budgeted slices; where it ends must not depend on
    how fast the machine is, only on the graph and the seed."""
    plane = make_plane(80, random_edges(80, 120), spread=200)
    whole = run_kernel(plane)
    sliced = run_kernel(plane, runs=[(1, 0.0)] * 400)
    uneven = run_kernel(plane, runs=[(7, 0.0), (1, 0.0), (30, 0.0), (2, 0.0)] * 60)
    # a budget too small for anything: one tick, or one separation round, per call
    tiny = run_kernel(plane, runs=[(100_000, 1e-6)] * 600)
    assert sum(r[1] for r in sliced["runs"]) == whole["runs"][0][1] == sum(r[1] for r in tiny["runs"])
    assert [r[2] for r in tiny["runs"]].index(1) == len(tiny["runs"]) - 1
    assert len(tiny["runs"]) > whole["runs"][0][1]  # the separation rounds came in calls of their own
    assert sliced["pos"] == whole["pos"] == uneven["pos"] == tiny["pos"]


def test_the_worker_ends_where_one_run_to_rest_ends():
    """The layout worker runs the kernel in slices of its own timing (and posts a frame after
    each): its rest must be the single-threaded run's, position for position."""
    for n, m, spread in ((80, 120, 200.0), (300, 600, 0.0)):
        plane = make_plane(n, random_edges(n, m), spread=spread)
        whole = run_kernel(plane)
        worker = run_kernel(plane, worker=True)
        assert worker["pos"] == whole["pos"]
        frames = worker["frames"]
        assert [f[2] for f in frames].index(1) == len(frames) - 1  # settled once, in the last frame
        assert sum(f[1] for f in frames) == whole["runs"][0][1]
        assert frames[-1][3] == len(overlaps(plane, worker["pos"])) == 0  # its overlap count: exact


def test_rest_is_reached_in_the_ticks_alpha_cooling_allows():
    params = ForceParams()
    plane = make_plane(60, random_edges(60, 80), spread=200)
    result = run_kernel(plane)
    alpha, ticks, settled = result["runs"][-1]
    assert alpha < params.alphaMin and settled
    expected = math.ceil(math.log(params.alphaMin) / math.log(1 - params.alphaDecay))
    assert abs(ticks - expected) <= 1


@pytest.mark.parametrize(
    ("n", "edges", "spread"),
    [
        (300, random_edges(300, 450), 0.0),  # all on one point
        (300, random_edges(300, 450), 2000.0),
        (30, [(i, j) for i in range(30) for j in range(30) if i != j], 0.0),  # complete: springs press together
        (101, [(0, i) for i in range(1, 101)], 50.0),  # a star: 100 leaves around one hub
        (801, [(0, i) for i in range(1, 801)], 50.0),  # 800 leaves: far more than fit around the hub
        (60, [], 0.0),  # no edges at all
    ],
    ids=["random-coincident", "random-spread", "complete-30", "star-100", "star-800", "no-edges"],
)
def test_no_two_cards_overlap_at_rest(n, edges, spread):
    plane = make_plane(n, edges, spread=spread)
    result = run_kernel(plane)
    assert result["runs"][-1][0] < ForceParams().alphaMin and result["runs"][-1][2]
    assert overlaps(plane, result["pos"]) == []
    # and the layout stays compact: every card within a few plane-sizes of the origin
    area = sum(node.width * node.height for node in plane.nodes.values())
    reach = max(math.hypot(x, y) for x, y in result["pos"].values())
    assert reach < 6 * math.sqrt(area) + 600


def test_a_dense_random_hairball_ends_with_at_most_a_few_touching_pairs():
    """1,500 cards, 6,000 random edges from one point: jammed, so the 300 separation rounds
    after cooling leave at most a handful of pairs touching by a few pixels (documented)."""
    plane = make_plane(1500, random_edges(1500, 6000))
    result = run_kernel(plane)
    assert result["runs"][-1][2]
    assert len(overlaps(plane, result["pos"])) <= 5


def test_pinned_cards_on_top_of_each_other_end_the_separation_without_a_hang():
    """A jam the space cannot clear (two pinned cards on one spot, free cards around them)
    ends in bounded rounds; the count the worker reports names the pair still overlapping."""
    plane = make_plane(40, random_edges(40, 50), spread=150)
    plane.update_node("n1", x=plane.nodes["n0"].x, y=plane.nodes["n0"].y)
    plane.update_node("n0", pinned=True)
    plane.update_node("n1", pinned=True)
    result = run_kernel(plane, worker=True)
    frames = result["frames"]
    assert frames[-1][2] == 1 and frames[-1][3] == 1  # settled, one pair overlapping: the pinned one
    assert len(frames) < 1000
    assert overlaps(plane, result["pos"]) == [("n0", "n1")]


def test_held_and_pinned_cards_stay_exactly_where_they_are():
    plane = make_plane(50, random_edges(50, 70), spread=300)
    plane.update_node("n3", pinned=True)
    held = {"n7", "n8"}
    before = {i: (plane.nodes[i].x, plane.nodes[i].y) for i in ("n3", "n7", "n8")}
    result = run_kernel(plane, fixed=held, runs=[(5, 0.0)] * 100)
    for node_id, xy in before.items():
        assert result["pos"][node_id] == xy
    moved = sum(result["pos"][n.id] != (n.x, n.y) for n in plane.nodes.values())
    assert moved >= 45


def test_springs_pull_linked_cards_closer_than_unlinked_ones():
    # two dense communities joined by one edge
    edges = [(i, j) for i in range(15) for j in range(i + 1, 15) if (i + j) % 3 == 0]
    edges += [(15 + i, 15 + j) for i in range(15) for j in range(i + 1, 15) if (i + j) % 3 == 0]
    edges.append((0, 15))
    plane = make_plane(30, edges, spread=400)
    pos = run_kernel(plane)["pos"]

    def mean_distance(pairs):
        return sum(math.dist(pos[f"n{a}"], pos[f"n{b}"]) for a, b in pairs) / len(pairs)

    within = [(i, j) for i in range(15) for j in range(i + 1, 15)]
    across = [(i, 15 + j) for i in range(15) for j in range(15)]
    assert mean_distance(edges) < mean_distance(across)
    assert mean_distance(within) < 0.75 * mean_distance(across)


def test_a_time_budget_ends_a_slice_early():
    plane = make_plane(400, random_edges(400, 600), spread=500)
    result = run_kernel(plane, runs=[(100_000, 1.0)])
    alpha, ticks, settled = result["runs"][0]
    assert 1 <= ticks < 170 and alpha > ForceParams().alphaMin and not settled


def test_structure_key_follows_structure_and_card_sizes_not_positions():
    plane = make_plane(3, [(0, 1)])
    key = structure_key(plane)
    plane.update_node("n0", x=500.0)
    plane.nodes["n1"].vx = 3.0
    assert structure_key(plane) == key
    plane.nodes["n2"].width += 10  # the editor re-measures cards when their text changes
    assert structure_key(plane) != key
    key = structure_key(plane)
    plane.add_edge(Edge("x", "n1", "n2"))
    assert structure_key(plane) != key


def _local_run(plane: Plane, free: set[str], fixed: set[str] = frozenset()) -> dict[str, tuple[float, float]]:
    """A local reheat's run in the worker: ``free`` may move, the rest is held by the region."""
    params = ForceParams()
    graph = kernel_graph(plane, params.gap)
    job = {
        "scripts": [str(p) for p in SCRIPTS],
        "seed": 1,
        "params": params.for_plane(len(graph.ids)),
        "state": list(kernel_state((plane.nodes[i] for i in graph.ids), set(fixed), free)),
        "pairs": list(graph.pairs),
        "rest": list(graph.rest),
        "k": list(graph.k),
        "worker": True,
        "alpha": 0.3,
    }
    done = subprocess.run([_node(), str(DRIVER)], input=json.dumps(job), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    xy = json.loads(done.stdout)["xy"]
    return {node_id: (xy[2 * i], xy[2 * i + 1]) for i, node_id in enumerate(graph.ids)}


@pytest.mark.parametrize("dropped", ["free", "pinned"])
def test_outside_a_local_reheat_cards_make_way_for_a_card_dropped_on_them(dropped):
    """A local reheat holds the cards outside its region: the ticks never move them, but when
    a free card — or a card the user dragged and pinned — ends up on top of one in a packed
    crowd, the crowd makes way (the old code left them overlapping: nothing could move)."""
    plane = Plane("p", "P")
    step_x, step_y = 140.0 + 24.0, 60.0 + 24.0  # cards packed padding to padding
    for r in range(7):
        for c in range(7):
            plane.add_node(Node(f"g{r}{c}", "", x=c * step_x, y=r * step_y, width=140.0, height=60.0))
    plane.add_node(Node("drop", "", x=3 * step_x + 7.0, y=3 * step_y + 5.0, width=140.0, height=60.0,
                        pinned=dropped == "pinned"))  # fmt: skip
    pos = _local_run(plane, free={"drop"} if dropped == "free" else set())
    assert overlaps(plane, pos) == []
    moved = [n for n in pos if pos[n] != (plane.nodes[n].x, plane.nodes[n].y)]
    assert moved and len(moved) < 49  # the crowd around the drop made way, not the whole grid
    if dropped == "pinned":
        assert pos["drop"] == (plane.nodes["drop"].x, plane.nodes["drop"].y)  # it stays where dropped


def test_a_local_run_ends_where_it_ends_however_it_is_sliced():
    """Review finding: the main-thread engine hands the state back on every slice, and that
    cleared which held cards had made way — a sliced local run ended elsewhere, with overlaps."""
    plane = Plane("p", "P")
    for r in range(7):
        for c in range(7):
            plane.add_node(Node(f"g{r}{c}", "", x=c * 146.0, y=r * 66.0, width=140.0, height=60.0))
    plane.add_node(Node("drop", "", x=3 * 146.0 + 40.0, y=3 * 66.0 + 20.0, width=140.0, height=60.0, pinned=True))
    params = ForceParams()
    graph = kernel_graph(plane, params.gap)
    base = {
        "scripts": [str(p) for p in SCRIPTS],
        "seed": 1,
        "params": params.for_plane(len(graph.ids)),
        "state": list(kernel_state((plane.nodes[i] for i in graph.ids), set(), set())),
        "pairs": list(graph.pairs),
        "rest": list(graph.rest),
        "k": list(graph.k),
        "alpha": 0.3,
    }
    results = []
    for runs in ([(100_000, 0.0)], [(100_000, 1e-6)] * 3000):
        job = {**base, "runs": [{"maxTicks": t, "budgetMs": b} for t, b in runs]}
        done = subprocess.run(
            [_node(), str(DRIVER)], input=json.dumps(job), capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        values = json.loads(done.stdout)["state"]
        results.append({n: (values[4 * i], values[4 * i + 1]) for i, n in enumerate(graph.ids)})
    whole, sliced = results
    assert sliced == whole and overlaps(plane, whole) == []


def test_cards_held_by_a_local_reheat_never_push_each_other():
    plane = Plane("p", "P")
    plane.add_node(Node("a", "", x=3000.0, y=3000.0))
    plane.add_node(Node("b", "", x=3010.0, y=3005.0))  # already on top of a, both outside the region
    plane.add_node(Node("c", "", x=0.0, y=0.0))  # free (it stays near the origin, far from them)
    pos = _local_run(plane, free={"c"})
    assert pos["a"] == (3000.0, 3000.0) and pos["b"] == (3010.0, 3005.0)

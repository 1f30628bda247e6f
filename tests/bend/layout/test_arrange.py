"""Arrange: the layered drawing of the condensation DAG — causes before effects,
each loop's cards together, no card on another, cards without directed edges after the
drawing — computed by static/arrange.js on the vendored @dagrejs/dagre (run in node here as
the layout worker runs it), and applied by the editor as one undoable step that pins every
card. Needs node and the vendored runtime (`make vendor`)."""

from __future__ import annotations

import itertools
import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from bend_helpers import editor_with
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.editor.editor import Editor
from bendscope.bend.layout.arrange import LAYERED_LOOP, arrange_job, compact
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = [ROOT / "static" / "vendor" / "dagre" / "dagre.min.js", ROOT / "static" / "arrange.js"]


def run_arrange(editor: Editor, direction: str) -> list[float]:
    node = shutil.which("node")
    assert node, "node is needed (it comes with npm, which `make vendor` needs too)"
    assert SCRIPTS[0].exists(), "run `make vendor` first"
    job = editor.arrange_job(direction).as_message()
    job["sizes"] = list(job["sizes"])
    payload = json.dumps({"scripts": [str(p) for p in SCRIPTS], "job": job})
    done = subprocess.run(
        [node, str(ROOT / "tests" / "support" / "arrange_job.js")],
        input=payload,
        capture_output=True,
        text=True,
        timeout=900,  # (a hang guard, not a time limit: a 2,000-card run took over 120 s on a loaded 2-core machine)
    )
    assert done.returncode == 0, done.stderr
    xy: list[float] = json.loads(done.stdout)["xy"]
    return xy


def graph(n: int, arcs: list[tuple[int, int, str]], seed: int = 3) -> Editor:
    rng = random.Random(seed)
    plane = Plane("p", "P")
    for i in range(n):
        plane.add_node(Node(f"n{i}", f"card {i}" + " words" * rng.randrange(6), x=rng.uniform(-900, 900),
                            y=rng.uniform(-900, 900)))  # fmt: skip
    for k, (a, b, kind) in enumerate(arcs):
        plane.add_edge(Edge(f"e{k}", f"n{a}", f"n{b}", EdgeProps("", kind, 2)))
    editor = Editor(Document([plane], "p"))
    editor.refresh_sizes(editor.plane)
    return editor


def boxes(editor: Editor, xy: list[float]) -> dict[str, tuple[float, float, float, float]]:
    out = {}
    for k, (node_id, node) in enumerate(editor.plane.nodes.items()):
        x, y = xy[2 * k], xy[2 * k + 1]
        out[node_id] = (x - node.width / 2, y - node.height / 2, x + node.width / 2, y + node.height / 2)
    return out


def overlapping(b: dict[str, tuple[float, float, float, float]]) -> list[tuple[str, str]]:
    ids = list(b)
    return [
        (p, q)
        for i, p in enumerate(ids)
        for q in ids[i + 1 :]
        if b[p][0] < b[q][2] - 0.5 and b[q][0] < b[p][2] - 0.5 and b[p][1] < b[q][3] - 0.5 and b[q][1] < b[p][3] - 0.5
    ]


def mixed(n: int, seed: int) -> Editor:
    """A DAG with small loops, a larger loop, a few undirected edges and loose cards."""
    rng = random.Random(seed)
    arcs = [(rng.randrange(i), i, "causal") for i in range(1, n - 6)]  # a forest of causes
    arcs += [(i + 2, i, "causal") for i in range(3, 30, 9)]  # small loops (back arcs)
    arcs += [(12 + k, 12 + (k + 1) % 8, "temporal") for k in range(8)]  # an 8-card loop
    arcs += [(rng.randrange(n - 6), rng.randrange(n - 6), "associative") for _ in range(10)]
    return graph(n, arcs, seed)


@pytest.mark.parametrize("direction", ["LR", "TB"])
def test_causes_come_before_effects_loops_stay_together_and_nothing_overlaps(direction):
    editor = mixed(90, seed=4)
    xy = run_arrange(editor, direction)
    job = editor.arrange_job(direction)
    b = boxes(editor, xy)
    ids = job.ids
    axis = 0 if direction == "LR" else 1
    block_box = []
    for members in job.blocks:
        mine = [b[ids[i]] for i in members]
        block_box.append((min(m[0] for m in mine), min(m[1] for m in mine), max(m[2] for m in mine),
                          max(m[3] for m in mine)))  # fmt: skip
    for k in range(0, len(job.arcs), 2):  # every arc of the condensation reads forwards
        source, target = block_box[job.arcs[k]], block_box[job.arcs[k + 1]]
        assert source[axis + 2] < target[axis], (job.arcs[k], job.arcs[k + 1])
    for members, box in zip(job.blocks, block_box, strict=True):  # a loop's box holds only its cards
        inside = {ids[i] for i in members}
        for node_id, card in b.items():
            if node_id not in inside:
                assert card[2] <= box[0] or card[0] >= box[2] or card[3] <= box[1] or card[1] >= box[3]
    assert overlapping(b) == []
    lone = [b[ids[i]] for i in job.loose]
    assert lone  # the cards with undirected edges only, in rows after the drawing:
    if direction == "LR":  # below it
        assert all(card[1] >= max(box[3] for box in block_box) for card in lone)
    else:  # right of it
        assert all(card[0] >= max(box[2] for box in block_box) for card in lone)
    assert run_arrange(editor, direction) == xy  # deterministic


def test_a_large_loop_is_one_compact_block_that_keeps_its_cards_neighbours():
    """A large loop is one block: its cards in rows, in the order of the force layout's heights,
    each row in its order across, no card touching another; the block is about square, far
    denser than the force layout's box; its causes come first."""
    n = LAYERED_LOOP + 20
    arcs = [(i, (i + 1) % n, "causal") for i in range(n)] + [(n + k, k * 7, "causal") for k in range(5)]
    editor = graph(n + 5, arcs)
    editor.settle()
    before = {node.id: (node.x, node.y) for node in editor.plane.nodes.values()}
    xy = run_arrange(editor, "LR")
    after = dict(zip(editor.plane.nodes, zip(xy[0::2], xy[1::2], strict=True), strict=True))
    loop = [f"n{i}" for i in range(n)]
    rows: dict[float, list[str]] = {}
    for node_id in loop:
        rows.setdefault(round(after[node_id][1], 6), []).append(node_id)
    assert len(rows) > 1
    ordered = [sorted(rows[y], key=lambda m: after[m][0]) for y in sorted(rows)]
    for upper, lower in itertools.pairwise(ordered):  # rows in the order of the force layout's heights
        assert max(before[m][1] for m in upper) <= min(before[m][1] for m in lower)
    for row in ordered:  # each row in its order across
        assert [before[m][0] for m in row] == sorted(before[m][0] for m in row)
    b = boxes(editor, xy)
    assert overlapping(b) == []
    assert all(b[m][2] + 40 <= b[m2][0] + 1e-6 for row in ordered for m, m2 in itertools.pairwise(row))
    block = [b[m] for m in loop]
    w = max(c[2] for c in block) - min(c[0] for c in block)
    h = max(c[3] for c in block) - min(c[1] for c in block)
    assert max(w, h) <= 2.5 * min(w, h)
    assert all(after[f"n{n + k}"][0] < min(after[m][0] for m in loop) for k in range(5))  # causes first
    assert run_arrange(editor, "LR") == xy  # deterministic


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e4, 1e4), st.floats(-1e4, 1e4), st.floats(20, 400), st.floats(20, 200)),
                min_size=1, max_size=200))  # fmt: skip
def test_a_compact_block_has_no_card_on_another(cards):
    xy = compact(cards)
    assert len(xy) == 2 * len(cards) and compact(cards) == xy
    centres = zip(cards, xy[0::2], xy[1::2], strict=True)
    placed = [(x - w / 2, y - h / 2, x + w / 2, y + h / 2) for (_, _, w, h), x, y in centres]
    for (i, p), (j, q) in itertools.combinations(enumerate(placed), 2):
        assert p[2] <= q[0] or q[2] <= p[0] or p[3] <= q[1] or q[3] <= p[1], (i, j)


def document_of(editor: Editor) -> dict:
    """The export without the cameras (navigation, not history: Arrange fits the view)."""
    doc = json.loads(editor.export())
    for plane in doc["planes"]:
        plane.pop("camera", None)
    return doc


def test_arranging_is_one_undoable_step_that_pins_every_card():
    editor = Editor(demo_document())
    editor.settle()
    before = document_of(editor)
    job = editor.arrange_job("LR")
    editor.apply_arrangement(job, run_arrange(editor, "LR"))
    assert all(node.pinned for node in editor.plane.nodes.values())
    assert not editor.animating
    assert editor.history.undo_stack[-1].label == "Arrange left to right"
    editor.undo()
    assert document_of(editor) == before
    editor.redo()
    assert all(node.pinned for node in editor.plane.nodes.values())


def test_a_stale_or_damaged_arrangement_changes_nothing():
    editor = editor_with([("a", "b"), ("b", "c")])
    job = editor.arrange_job("TB")
    xy = run_arrange(editor, "TB")
    before = editor.export()
    for bad in (xy[:-1], [*xy[:-1], float("nan")], [*xy[:-1], 1e300]):
        with pytest.raises(ValueError):
            editor.apply_arrangement(job, bad)
        assert editor.export() == before
    editor.add_node(0.0, 0.0, "new")
    after = editor.export()
    with pytest.raises(ValueError, match="changed while it was being arranged"):
        editor.apply_arrangement(job, xy)
    assert editor.export() == after
    with pytest.raises(ValueError, match="unknown direction"):
        arrange_job(editor.plane, editor.topology(), "RL")


def drawing_shape(editor: Editor, xy: list[float]) -> tuple[float, float]:
    """The cards' bounding box: its long side over its short side, and the cards' total area over its area."""
    b = list(boxes(editor, xy).values())
    w = max(c[2] for c in b) - min(c[0] for c in b)
    h = max(c[3] for c in b) - min(c[1] for c in b)
    return max(w, h) / min(w, h), sum((c[2] - c[0]) * (c[3] - c[1]) for c in b) / (w * h)


def reads_forwards(editor: Editor, xy: list[float], direction: str) -> bool:
    job = editor.arrange_job(direction)
    b, ids, axis = boxes(editor, xy), job.ids, 0 if direction == "LR" else 1
    box = [(min(b[ids[i]][axis] for i in m), max(b[ids[i]][axis + 2] for i in m)) for m in job.blocks]
    return all(box[job.arcs[k]][1] < box[job.arcs[k + 1]][0] for k in range(0, len(job.arcs), 2))


@pytest.mark.parametrize("direction", ["LR", "TB"])
def test_a_long_layer_is_wrapped_so_the_drawing_fits_a_screen(direction):
    """One cause of 300 effects was one column of 300 cards (aspect ≈ 60): its layer is wrapped into
    columns side by side, every arc still reads forwards and no card is on another."""
    arcs = [(0, i, "causal") for i in range(1, 301)] + [(i, 301 + i % 7, "causal") for i in range(1, 40)]
    editor = graph(308, arcs)
    xy = run_arrange(editor, direction)
    aspect, density = drawing_shape(editor, xy)
    assert aspect <= 4 and density >= 0.10, (aspect, density)
    assert reads_forwards(editor, xy, direction) and overlapping(boxes(editor, xy)) == []


def test_a_loop_region_with_trees_around_it_fits_a_screen():
    """A giant loop region (kept as the force layout left it: ≈ 15 % of its box is cards) with
    tree-like parts hanging from it: the drawing's long side ≤ 4 × its short one, ≥ 10 % cards."""
    rng = random.Random(5)
    n = 700
    arcs = [(rng.randrange(i), i, "causal") for i in range(1, n)]  # a random tree of causes from n0
    arcs += [(i, rng.randrange(i), "causal") for i in range(1, 250)]  # back arcs: a region of the first cards
    editor = graph(n, arcs)
    region = max(editor.topology().result["sccs"], key=lambda s: len(s["nodes"]))["nodes"]
    assert len(region) > 150
    side = math.sqrt(len(region) * 180 * 60 / 0.15)
    for node_id in region:
        editor.plane.nodes[node_id].x, editor.plane.nodes[node_id].y = rng.uniform(0, side), rng.uniform(0, side)
    xy = run_arrange(editor, "LR")
    aspect, density = drawing_shape(editor, xy)
    assert aspect <= 4 and density >= 0.10, (aspect, density)
    assert reads_forwards(editor, xy, "LR")


@pytest.mark.parametrize(("n", "seed"), [(1_000, 7), (2_000, 7), (2_000, 11)])
def test_the_mixed_graph_fits_a_screen_and_is_a_tenth_cards(n, seed):
    """The benchmark's mixed graph (a random tree of causes plus random arcs of several kinds:
    one giant loop region and tree-like parts around it), wherever the force layout left the
    region's cards: the drawing's long side ≤ 4 × its short one and ≥ 10 % of it is cards, no
    card on another, every arc reads forwards."""
    rng = random.Random(seed)
    arcs = [(rng.randrange(i), i, "causal") for i in range(1, n)]
    kinds = ("causal", "causal", "temporal", "associative", "context")
    while len(arcs) < 2 * n:
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            arcs.append((a, b, kinds[rng.randrange(len(kinds))]))
    editor = graph(n, arcs, seed)
    region = max(editor.topology().result["sccs"], key=lambda s: len(s["nodes"]))["nodes"]
    assert len(region) > n // 4
    side = math.sqrt(sum(editor.plane.nodes[m].width * editor.plane.nodes[m].height for m in region) / 0.126)
    for node_id in region:  # (spread as the force layout leaves it: ≈ 12.6 % of its box is cards)
        editor.plane.nodes[node_id].x, editor.plane.nodes[node_id].y = rng.uniform(0, side), rng.uniform(0, side)
    xy = run_arrange(editor, "LR")
    aspect, density = drawing_shape(editor, xy)
    assert aspect <= 4 and density >= 0.10, (aspect, density)
    assert reads_forwards(editor, xy, "LR") and overlapping(boxes(editor, xy)) == []

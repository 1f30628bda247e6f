"""Arrange on shapes the layered drawing was not tuned on: one card, a lone loop, many tiny
parts, a star of 2,000 cards either way, long chains — the drawing fits a screen (long side
≤ 4 × short side, ≥ 10 % of it cards, from 50 cards), no card on another, the same every time. Needs node
and the vendored runtime, as ``test_arrange`` does."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bend.layout.test_arrange import SCRIPTS, boxes, drawing_shape, graph, overlapping, run_arrange

SHAPES = {
    "one card": (1, []),
    "one card and a self-loop": (1, [(0, 0, "causal")]),
    "a two-card loop": (2, [(0, 1, "causal"), (1, 0, "causal")]),
    "a 300-card ring": (300, [(i, (i + 1) % 300, "causal") for i in range(300)]),
    "150 two-card parts": (300, [(2 * i, 2 * i + 1, "causal") for i in range(150)]),
    "400 cards without an edge": (400, []),
    "a star of 2,000 effects": (2001, [(0, i, "causal") for i in range(1, 2001)]),
    "a star of 2,000 causes": (2001, [(i, 0, "temporal") for i in range(1, 2001)]),
}


def shape_of(editor, xy):
    """:func:`drawing_shape`; a few cards fit any screen whatever their box's shape (two cards side by side: ≈ 9)."""
    return (1.0, 1.0) if len(editor.plane.nodes) < 50 else drawing_shape(editor, xy)


@pytest.mark.parametrize("direction", ["LR", "TB"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_an_odd_shape_fits_a_screen_with_no_card_on_another(name, direction):
    editor = graph(*SHAPES[name])
    xy = run_arrange(editor, direction)
    aspect, density = shape_of(editor, xy)
    assert aspect <= 4 and density >= 0.10, (aspect, density)
    assert overlapping(boxes(editor, xy)) == []
    assert run_arrange(editor, direction) == xy


CHAINS = {
    "a chain of 500 cards": (500, [(i, i + 1, "causal") for i in range(499)]),
    "a chain of 300 with a leaf on each card": (
        600,
        [(i, i + 1, "causal") for i in range(299)] + [(i, 300 + i, "temporal") for i in range(300)],
    ),
    "a chain of 400 through a loop of 12": (
        400,
        [(i, i + 1, "causal") for i in range(399)] + [(111, 100, "causal"), (105, 103, "causal")],
    ),
}


def reads_on(editor, xy, direction: str) -> bool:
    """Every arc's target comes after its source as lines of text read: further along the
    reading axis, or in a later band (further across it)."""
    b, job = boxes(editor, xy), editor.arrange_job(direction)
    a, c = (0, 1) if direction == "LR" else (1, 0)
    ids = job.ids
    box = [
        [min(b[ids[i]][k] for i in m) if k < 2 else max(b[ids[i]][k] for i in m) for k in range(4)] for m in job.blocks
    ]
    arcs = [(box[job.arcs[k]], box[job.arcs[k + 1]]) for k in range(0, len(job.arcs), 2)]
    return all(t[a] > s[a + 2] or t[c] > s[c + 2] for s, t in arcs)


@pytest.mark.parametrize("direction", ["LR", "TB"])
@pytest.mark.parametrize("name", sorted(CHAINS))
def test_a_long_chain_is_folded_into_bands_that_fit_a_screen(name, direction):
    """A chain is as many layers as cards: drawn in one row it was 500 cards long (aspect ≈ 2,200).
    Folded into bands, as lines of text, it fits a screen and every arc still reads on."""
    editor = graph(*CHAINS[name])
    xy = run_arrange(editor, direction)
    aspect, density = drawing_shape(editor, xy)
    assert aspect <= 4 and density >= 0.10, (aspect, density)
    assert overlapping(boxes(editor, xy)) == [] and reads_on(editor, xy, direction)
    assert run_arrange(editor, direction) == xy


@pytest.mark.parametrize("direction", ["LR", "TB"])
def test_a_long_chain_from_a_long_layer_fits_a_screen(direction):
    """The first card of a 500-card chain has 400 effects: its layer was wrapped for the drawing
    unfolded (one column 400 cards tall, or top to bottom a row beside the chain) and every band
    of the folded chain was as tall as it: 0.1–0.5 % of the drawing was cards."""
    editor = graph(900, [(i, i + 1, "causal") for i in range(499)] + [(0, 500 + i, "causal") for i in range(400)])
    xy = run_arrange(editor, direction)
    aspect, density = drawing_shape(editor, xy)
    assert aspect <= 4 and density >= 0.10, (aspect, density)
    assert overlapping(boxes(editor, xy)) == [] and reads_on(editor, xy, direction)


LONG_CHAINS = {
    "a chain of 2,000 cards": (2000, [(i, i + 1, "causal") for i in range(1999)]),
    "a chain of 2,000 with arcs skipping 50 on": (
        2000,
        [(i, i + 1, "causal") for i in range(1999)] + [(i, i + 50, "temporal") for i in range(0, 1950, 13)],
    ),
}


@pytest.mark.parametrize("direction", ["LR", "TB"])
@pytest.mark.parametrize("name", sorted(LONG_CHAINS))
def test_a_chain_of_2000_cards_is_arranged(name, direction):
    """dagre recurses once per layer: a chain of 2,000 cards overflowed the JavaScript stack and
    Arrange failed. Laid out in pieces of layers, it is folded as a shorter chain is, and the
    arcs from one piece to a later one read on too."""
    editor = graph(*LONG_CHAINS[name])
    xy = run_arrange(editor, direction)
    aspect, density = drawing_shape(editor, xy)
    assert len(xy) == 4000 and aspect <= 4 and density >= 0.10, (aspect, density)
    assert overlapping(boxes(editor, xy)) == [] and reads_on(editor, xy, direction)


def broom(chain: int, fan: int, at: int) -> tuple[int, list[tuple[int, int, str]]]:
    """A chain of ``chain`` cards, its card ``at`` the cause of ``fan`` more."""
    return chain + fan, [(i, i + 1, "causal") for i in range(chain - 1)] + [
        (at, chain + k, "causal") for k in range(fan)
    ]


def loop_and_chains(loop: int, chains: int, length: int) -> tuple[int, list[tuple[int, int, str]]]:
    """A loop region of ``loop`` cards (a ring with chords), ``chains`` chains of ``length`` hanging from it."""
    arcs = [(i, (i + 1) % loop, "causal") for i in range(loop)] + [
        (i, (7 * i + 3) % loop, "temporal") for i in range(0, loop, 5)
    ]
    n = loop
    for c in range(chains):
        arcs += [((13 * c) % loop, n, "causal")] + [(n + k, n + k + 1, "causal") for k in range(length - 1)]
        n += length
    return n, arcs


def grid(rows: int, cols: int) -> tuple[int, list[tuple[int, int, str]]]:
    right = [(r * cols + c, r * cols + c + 1, "causal") for r in range(rows) for c in range(cols - 1)]
    return rows * cols, right + [
        (r * cols + c, (r + 1) * cols + c, "causal") for r in range(rows - 1) for c in range(cols)
    ]


ADVERSARIAL = {
    "a star of 1,000 leaves": (1001, [(0, i, "causal") for i in range(1, 1001)]),
    "a chain of 2,000 cards": (2000, [(i, i + 1, "causal") for i in range(1999)]),
    "a broom: a chain of 1,500, 500 effects of its last card": broom(1500, 500, 1499),
    "a broom: a chain of 1,500, 400 effects of its first card": broom(1500, 400, 0),
    "a loop region of 200 and 30 chains of 60": loop_and_chains(200, 30, 60),
    "a 30 × 30 grid": grid(30, 30),
    "a complete bipartite 30 × 30": (60, [(i, 30 + j, "causal") for i in range(30) for j in range(30)]),
    # (found by the property test below: the loose cards were set as many to a row as the drawing
    # is wide — one column beside a single arc — and a small loop's layers were never folded)
    "an arc and 48 cards without an edge": (50, [(1, 2, "causal")]),
    "a 10-card loop and 40 cards without an edge": (
        50,
        [(i, i % 10 + 1, "causal") for i in range(1, 11)] + [(1, 4, "temporal"), (6, 9, "temporal")],
    ),
    "a loop of 60 cards": (60, [(i, (i + 1) % 60, "causal") for i in range(60)]),
    "a loop of 37 cards with chords, an arc and 12 cards without an edge": (
        50,
        [(i, i % 37 + 1, "causal") for i in range(1, 38)]
        + [(a, b, "temporal") for a, b in ((1, 4), (6, 2), (11, 37), (16, 35), (21, 33), (26, 31), (31, 29), (36, 27))]
        + [(24, 26, "causal"), (8, 18, "causal")],
    ),
    "a random DAG of 33 cards and 17 without an edge": (
        50,
        [(2 * i + 1, 2 * i + 2, "causal") for i in range(16)]
        + [(a, b, "causal") for a, b in ((24, 26), (2, 16), (19, 25), (22, 30), (13, 32), (8, 18), (6, 8), (9, 16))]
        + [(a, b, "causal") for a, b in ((6, 19), (4, 21), (6, 30), (22, 27), (13, 20), (28, 30), (3, 16), (0, 5))]
        + [(0, 25, "causal"), (21, 31, "causal"), (15, 20, "causal")],
    ),
}


@pytest.mark.parametrize("direction", ["LR", "TB"])
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_an_adversarial_shape_fits_a_screen(name, direction):
    """Brooms were drawn with their fan in one column (or row) as long as the chain: 0.1–0.9 % cards;
    a loop of 60 cards was one row of 60 layers (aspect 189), one of 37 with chords 8–10 % cards.
    (The random DAG, 11 % cards before, fell to 9 % with the loose cards' rows chosen for the
    screen: dagre spaces a layer's cards for the long arcs passing by; its layers are now
    stacked tight when the drawing is mostly empty.)"""
    editor = graph(*ADVERSARIAL[name])
    xy = run_arrange(editor, direction)
    aspect, density = drawing_shape(editor, xy)
    assert aspect <= 4 and density >= 0.10, (aspect, density)
    assert overlapping(boxes(editor, xy)) == [] and reads_on(editor, xy, direction)
    assert run_arrange(editor, direction) == xy


@st.composite
def shapes(draw: st.DrawFn) -> tuple[int, list[tuple[int, int, str]]]:
    """A random mix of the shapes above: a chain with a fan somewhere on it, a loop region with
    chains hanging from it, a few small parts and random forward arcs (the condensation stays
    what it is), from 50 cards on."""
    chain, fan = draw(st.integers(0, 700)), draw(st.integers(0, 500))
    n, arcs = (
        broom(chain, fan, draw(st.integers(0, chain - 1)))
        if chain
        else (fan + 1, [(0, k + 1, "causal") for k in range(fan)])
    )
    loop, chains, length = draw(st.integers(0, 120)), draw(st.integers(0, 20)), draw(st.integers(1, 40))
    if loop >= 2:
        m, more = loop_and_chains(loop, chains, length)
        n, arcs = n + m, arcs + [(a + n, b + n, kind) for a, b, kind in more]
    parts = draw(st.integers(0, 40))
    arcs += [(n + 2 * k, n + 2 * k + 1, "causal") for k in range(parts)]
    n += 2 * parts + draw(st.integers(0, 30))  # and cards with no edge
    rng = random.Random(draw(st.integers(0, 2**16)))
    for _ in range(draw(st.integers(0, 60))):
        a, b = sorted(rng.sample(range(n), 2)) if n > 1 else (0, 0)
        if a != b:
            arcs.append((a, b, "causal"))
    return max(n, 50), arcs


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,  # (the same shapes every run)
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(shapes(), st.sampled_from(["LR", "TB"]))
def test_any_shape_fits_a_screen_with_no_card_on_another(shape, direction):
    """Aspect ≤ 4 and no card on another. Not yet ≥ 10 % cards, as the fixed shapes are: small mixes
    padded with cards without an edge fell to 7.7–9.4 % (of the two recorded below, one is now
    over a tenth; the strict xfail records the other)."""
    editor = graph(*shape)
    xy = run_arrange(editor, direction)
    aspect, _ = drawing_shape(editor, xy)
    assert aspect <= 4, aspect
    assert overlapping(boxes(editor, xy)) == []


UNDER_A_TENTH = {
    "a star of 12, a loop of 23 cards with a chain of 5, 10 cards without an edge": (
        50,
        [(0, i, "causal") for i in range(1, 13)]
        + [(i, i + 1, "causal") for i in range(13, 35)]
        + [(35, 13, "causal")]
        + [(a, b, "temporal") for a, b in ((13, 16), (18, 28), (23, 17), (28, 29), (33, 18))]
        + [(13, 36, "causal")]
        + [(i, i + 1, "causal") for i in range(36, 40)],
    ),
    "a star of 4, a two-card loop with 12 effects, 31 cards without an edge": (
        50,
        [(0, i, "causal") for i in range(1, 5)]
        + [(5, 6, "causal"), (6, 5, "causal"), (5, 6, "temporal")]
        + [(5 + k % 2, 7 + k, "causal") for k in range(12)],
    ),
}


#: the mixes still under a tenth, and why
STILL_UNDER_A_TENTH = {
    "a star of 12, a loop of 23 cards with a chain of 5, 10 cards without an edge": (
        "9.4 % cards: dagre's drawing of the star's 12 effects beside the loop's layers is itself 8.4 %"
    ),
}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=STILL_UNDER_A_TENTH[name]))
        if name in STILL_UNDER_A_TENTH
        else name
        for name in sorted(UNDER_A_TENTH)
    ],
)
def test_a_small_mix_is_a_tenth_cards(name):
    """Found by the property test at 9.1–9.4 % cards left to right. The cards without an edge
    were set in cells as wide as the widest of them, as many to a row as fit the screen: 31
    beside a small drawing were 40 % cards. Each now as wide as it is: 9.1 → 11.2 %."""
    editor = graph(*UNDER_A_TENTH[name])
    xy = run_arrange(editor, "LR")
    aspect, density = drawing_shape(editor, xy)
    assert aspect <= 4 and density >= 0.10, (aspect, density)


def regions(count: int, size: int, seed: int = 12) -> tuple[int, list[tuple[int, int, str]]]:
    """``count`` loop regions of ``size`` cards, as the hand's probe makes them: region g is
    2 + g mod 2 random cycles through all its cards and size/4 chords, the cause of the next."""
    rng = random.Random(seed)
    arcs: list[tuple[int, int, str]] = []
    for g in range(count):
        members = list(range(g * size, (g + 1) * size))
        seen: set[tuple[int, int]] = set()
        for _ in range(2 + g % 2):
            rng.shuffle(members)
            seen |= {(members[k], members[(k + 1) % size]) for k in range(size)}
        seen |= {tuple(rng.sample(members, 2)) for _ in range(size // 4)}  # type: ignore[misc]
        arcs += [(a, b, "causal") for a, b in sorted(seen)]
        if g:
            arcs.append(((g - 1) * size + rng.randrange(size), g * size + rng.randrange(size), "temporal"))
    return count * size, arcs


def layouts_made(editor, direction: str) -> tuple[list[float], int]:
    """:func:`run_arrange`, and how many drawings dagre made for it."""
    job = editor.arrange_job(direction).as_message()
    job["sizes"] = list(job["sizes"])
    done = subprocess.run(
        [shutil.which("node") or "node", str(SCRIPTS[1].parents[1] / "tests" / "support" / "arrange_job.js")],
        input=json.dumps({"scripts": [str(p) for p in SCRIPTS], "job": job}),
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    return out["xy"], out["layouts"]


@pytest.mark.parametrize("direction", ["LR", "TB"])
def test_loop_regions_whose_layers_would_be_mostly_empty_are_not_drawn_in_layers(direction):
    """A loop region of 50 cards through which cycles run is 38–50 layers, and dagre spent
    seconds on each (its back arcs pass through every layer: thousands of points to order and
    place) on a drawing 5–30 times the area of its rows, which Arrange then set instead (40 such
    regions: 14.7 s of the layout worker). Such a region goes in rows without being drawn in
    layers: dagre draws only the regions' condensation, and the drawing is what it was. (A
    single cycle with chords is estimated at about its rows' area times 2–3.5, where dagre's
    drawing is 3.9–7.5 times: it is still drawn, to be sure.)"""
    editor = graph(*regions(4, 50))
    xy, layouts = layouts_made(editor, direction)
    aspect, density = drawing_shape(editor, xy)
    assert layouts == 1, layouts
    assert aspect <= 4 and density >= 0.10, (aspect, density)
    assert overlapping(boxes(editor, xy)) == [] and reads_on(editor, xy, direction)

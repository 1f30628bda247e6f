"""Arrange on shapes the layered drawing was not tuned on: one card, a lone loop, many tiny
parts, a star of 2,000 cards either way, long chains — the drawing fits a screen (long side
≤ 4 × short side, ≥ 10 % of it cards, from 50 cards), no card on another, the same every time. Needs node
and the vendored runtime, as ``test_arrange`` does."""

from __future__ import annotations

import pytest

from tests.bend.layout.test_arrange import boxes, drawing_shape, graph, overlapping, run_arrange

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


@pytest.mark.xfail(
    strict=True,
    reason="static/arrange.js wraps the long layer (400 effects of the first card) for the drawing as it "
    "is before folding, long with the chain: into one column 400 cards tall, which every band then "
    "spans; folded, 0.5 % of the drawing is cards. Wrapping aware of the folding to come fits it "
    "(24 %) but re-lays the mixed graphs' layers so that arcs no longer all read along one axis",
)
def test_a_long_chain_from_a_long_layer_fits_a_screen():
    editor = graph(900, [(i, i + 1, "causal") for i in range(499)] + [(0, 500 + i, "causal") for i in range(400)])
    xy = run_arrange(editor, "LR")
    aspect, density = drawing_shape(editor, xy)
    assert aspect <= 4 and density >= 0.10, (aspect, density)


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

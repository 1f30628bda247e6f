"""A status message's spot covers the least of the cards and the panels, and a card kept clear
of the panels ends clear of them (``bend.editor.viewfit``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.editor.editor import Editor
from bendscope.bend.editor.viewfit import MARGIN, Rect, _area, keep_clear, overlaps, toast_cover, toast_spot

coord = st.floats(min_value=0.0, max_value=800.0, allow_nan=False)


@st.composite
def rects(draw) -> Rect:
    x, y = draw(coord), draw(coord)
    return (x, y, x + draw(st.floats(10.0, 300.0)), y + draw(st.floats(10.0, 200.0)))


@settings(max_examples=150, deadline=None)
@given(st.lists(rects(), max_size=12), st.lists(rects(), max_size=3), st.floats(40.0, 400.0), st.floats(20.0, 80.0))
def test_a_message_goes_where_it_covers_the_least(cards, panels, tw, th):
    width, height = 1000.0, 800.0
    left, top = toast_spot(width, height, (tw, th), cards, panels)
    assert MARGIN <= left <= width - MARGIN - tw + 0.01 and MARGIN <= top <= height - MARGIN - th + 0.01
    spot = (left, top, left + tw, top + th)
    covered = sum(_area(spot, b) for b in (*cards, *panels))
    # it covers something only when every spot it may take does, and then the least
    assert covered <= _least_covered(width, height, tw, th, cards, panels) + 1e-6
    said, *spot_again = toast_cover(width, height, (tw, th), cards, panels)
    assert tuple(spot_again) == (left, top) and abs(said - covered) <= 1e-6 * max(1.0, covered)


def _least_covered(width, height, tw, th, cards, panels) -> float:
    from bendscope.bend.editor.viewfit import TOAST_BOTTOM, _steps

    xs = {*_steps(MARGIN, max(MARGIN, width - MARGIN - tw), 11), (width - tw) / 2}
    ys = {*_steps(MARGIN, max(MARGIN, height - MARGIN - th), 9), max(MARGIN, height - TOAST_BOTTOM - th)}
    return min(sum(_area((x, y, x + tw, y + th), b) for b in (*cards, *panels)) for x in xs for y in ys)


def test_a_message_keeps_its_usual_place_when_that_is_free_and_leaves_it_for_a_card():
    usual = toast_spot(1280.0, 800.0, (300.0, 34.0), [], [])
    assert usual == (490.0, 710.0)
    card = (600.0, 700.0, 740.0, 746.0)
    moved = toast_spot(1280.0, 800.0, (300.0, 34.0), [card], [])
    assert not overlaps((moved[0], moved[1], moved[0] + 300.0, moved[1] + 34.0), card)


@settings(max_examples=120, deadline=None)
@given(st.floats(-600.0, 600.0), st.floats(-500.0, 500.0), st.floats(0.4, 1.5), st.floats(300.0, 700.0))
def test_a_card_kept_clear_ends_clear_of_the_sheet_or_the_view_stays(x, y, zoom, sheet_top):
    editor = Editor()
    editor.viewport = (390.0, 844.0)
    editor.plane.camera.zoom = zoom
    card = editor.add_node(x, y, "a card")
    sheets = [(0.0, 0.0, 390.0, 96.0), (10.0, sheet_top, 380.0, 834.0)]
    before = (editor.plane.camera.x, editor.plane.camera.y)
    moved = keep_clear(editor, card, sheets)
    node = editor.plane.nodes[card]
    x0, y0 = editor.world_to_screen(node.x - node.width / 2, node.y - node.height / 2)
    box = (x0, y0, x0 + node.width * zoom, y0 + node.height * zoom)
    clear = box[0] >= -1e-6 and box[1] >= -1e-6 and box[2] <= 390.0 + 1e-6 and box[3] <= 844.0 + 1e-6
    clear = clear and not any(overlaps(box, s) for s in sheets)
    if moved:
        assert clear, (box, sheets)
        assert not keep_clear(editor, card, sheets)  # (once clear, it stays put)
    else:
        assert (editor.plane.camera.x, editor.plane.camera.y) == before
        assert clear or node.width * zoom > 390.0 - 2 * MARGIN or node.height * zoom > sheet_top - 96.0 - 2 * MARGIN


class CountedBox(tuple):
    """A screen box that counts how often it is read (item or whole)."""

    reads = 0

    def __getitem__(self, k):  # type: ignore[override]
        CountedBox.reads += 1
        return tuple.__getitem__(self, k)

    def __iter__(self):
        CountedBox.reads += 1
        return tuple.__iter__(self)


def test_a_messages_spot_reads_each_card_box_once_however_many_spots():
    """Finding a message's spot read every card box once per row of spots and again per spot
    (26 reads a box, ~10 ms of Python with 2,000 cards in sight)."""
    import random

    rng = random.Random(3)
    boxes = []
    for _ in range(2000):
        x, y = rng.uniform(0.0, 1280.0), rng.uniform(0.0, 800.0)
        boxes.append(CountedBox((x, y, x + 40.0, y + 8.0)))
    plain = [tuple(b) for b in boxes]
    CountedBox.reads = 0
    spot = toast_spot(1280.0, 800.0, (320.0, 34.0), boxes, [])
    assert CountedBox.reads == len(boxes)
    assert spot == toast_spot(1280.0, 800.0, (320.0, 34.0), plain, [])

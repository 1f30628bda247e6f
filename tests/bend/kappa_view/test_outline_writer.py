"""The screen reader's outline is written into the page a few lines per frame
(``OutlineWriter``): a page that applies each step's writes shows the outline aimed at,
the summary last, never more than a step's lines at once, and no line written twice."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view.outline import MAX_CARDS, WRITE_STEP, OutlineWriter, outline_of
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane

LINES = st.lists(st.sampled_from(["a.", "b.", "c.", "d.", "Loop 1.", "Loop 2."]), max_size=12).map(tuple)
OUTLINES = st.tuples(st.sampled_from(["", "3 cards.", "4 cards."]), LINES, LINES)


class Page:
    """The page's outline as the writer's steps leave it."""

    def __init__(self) -> None:
        self.summary = ""
        self.lists: dict[str, list[str]] = {"loops": [], "cards": []}
        self.writes = 0

    def apply(self, ops: list[tuple[str, int, str | None]]) -> None:
        for name, index, text in ops:
            self.writes += 1
            if name == "summary":
                assert text is not None
                self.summary = text
            elif text is None:
                assert index < len(self.lists[name])  # (a drop drops something)
                del self.lists[name][index:]
            else:
                shown = self.lists[name]
                assert index <= len(shown)
                if index < len(shown):
                    assert shown[index] != text  # (a line already right is not written again)
                    shown[index] = text
                else:
                    shown.append(text)


def write_all(writer: OutlineWriter, page: Page, step: int) -> int:
    """Run the writer's steps to the end; returns how many steps."""
    steps = 0
    while not writer.done:
        ops = writer.next_step()
        assert len(ops) <= step
        if not writer.done:
            assert all(name != "summary" for name, _, _ in ops)  # (the summary comes last)
        page.apply(ops)
        steps += 1
        assert steps < 1000
    return steps


@given(st.lists(OUTLINES, min_size=1, max_size=5), st.integers(1, 6), st.lists(st.integers(0, 3), max_size=5))
def test_the_page_shows_the_last_outline_aimed_at_whatever_the_steps(outlines, step, cut_short):
    """Aims one after another, some before the last was fully written."""
    writer, page = OutlineWriter(step=step), Page()
    for k, (summary, loops, cards) in enumerate(outlines):
        writer.aim(summary, loops, cards)
        for _ in range(cut_short[k] if k < len(cut_short) and k < len(outlines) - 1 else 1000):
            if writer.done:
                break
            page.apply(writer.next_step())
    write_all(writer, page, step)
    summary, loops, cards = outlines[-1]
    assert (page.summary, page.lists["loops"], page.lists["cards"]) == (summary, list(loops), list(cards))
    assert (writer.summary, writer.lines) == (page.summary, page.lists)


def test_a_full_outline_of_a_large_plane_is_written_over_several_frames_and_a_small_edit_in_one():
    """(Laid out at once, the outline of a plane of more than MAX_CARDS cards cost the frame
    after it 10–40 ms; a step's lines cost a few.)"""
    plane = Plane("p")
    count = 1000
    for k in range(count):
        plane.add_node(Node(f"n{k}", f"Card {k}"))
    for k in range(count):
        plane.add_edge(Edge(f"e{k}", f"n{k}", f"n{(k + 1) % count}", EdgeProps(kind="causal")))
    editor = Editor(Document([plane], "p"))
    outline = outline_of(editor)
    assert len(outline.cards) == MAX_CARDS
    cards = (*outline.cards, f"{outline.more_cards} more cards: Find reaches them.")
    writer, page = OutlineWriter(), Page()
    writer.aim(outline.summary, outline.loops, cards)
    steps = write_all(writer, page, WRITE_STEP)
    assert steps >= (len(outline.loops) + len(cards)) // WRITE_STEP >= 5
    assert page.lists["cards"] == list(cards) and page.summary == outline.summary
    # one card's text changed: one line written, and the summary stays as it is
    edited = (cards[0], "Card 1 renamed.", *cards[2:])
    before = page.writes
    writer.aim(outline.summary, outline.loops, edited)
    assert write_all(writer, page, WRITE_STEP) == 1
    assert page.writes - before == 1 and page.lists["cards"] == list(edited)

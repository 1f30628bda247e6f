"""The format readers in steps (``read_graph_steps``): the graph, or the refusal, is exactly
what ``read_graph`` gives, however small its steps — an XML parser fed a few characters at a
time, a DOT file tokenized and read a statement at a time — for files whole and damaged."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.shared import graphformats
from bendscope.shared.docformat import DocumentError
from bendscope.shared.graphformats import read_graph, read_graph_steps, write_graph

FORMATS = ["csv", "graphml", "dot", "mermaid"]


@contextmanager
def chunks(lines: int, tokens: int, characters: int) -> Iterator[None]:
    """The readers pausing every ``lines`` lines (elements, statements), ``tokens`` DOT tokens
    and ``characters`` characters fed to the XML parser."""
    saved = graphformats.READ_CHUNK, graphformats.TOKEN_CHUNK, graphformats.XML_CHUNK
    graphformats.READ_CHUNK, graphformats.TOKEN_CHUNK, graphformats.XML_CHUNK = lines, tokens, characters
    try:
        yield
    finally:
        graphformats.READ_CHUNK, graphformats.TOKEN_CHUNK, graphformats.XML_CHUNK = saved


def at_once(text: str, fmt: str) -> tuple[str, Any]:
    """``read_graph`` in one step (the chunks larger than any file here)."""
    with chunks(10**9, 10**9, 10**9):
        try:
            return "graph", read_graph(text, fmt)
        except DocumentError as exc:
            return "refused", str(exc)


def stepped(text: str, fmt: str, lines: int, tokens: int, characters: int) -> tuple[str, Any, int]:
    """``read_graph_steps`` run a step at a time; what it gave and how many pauses it made."""
    pauses = 0
    with chunks(lines, tokens, characters):
        steps = read_graph_steps(text, fmt)
        try:
            while True:
                next(steps)
                pauses += 1
        except StopIteration as done:
            return "graph", done.value, pauses
        except DocumentError as exc:
            return "refused", str(exc), pauses


ids = st.text("abcxyz019_ -\"'é>[](){}|;&#%", min_size=1, max_size=6)
texts = st.text("abc xyz\"'<>&;|[](){}#%,\n\\-+→é", max_size=12)
graphs = st.integers(1, 12).flatmap(
    lambda n: st.tuples(
        st.lists(st.tuples(ids, texts), min_size=n, max_size=n),
        st.lists(
            st.tuples(
                st.integers(0, n - 1),
                st.integers(0, n - 1),
                st.sampled_from(["causal", "temporal", "context", "causl"]),
                texts,
                st.sampled_from(["+", "-", None]),
            ),
            max_size=20,
        ),
    )
)
#: what a damaged file may have in it somewhere
SNIPPETS = ["", "\n", ";", "{", "}", "[", "]", "<", "</node>", "<!DOCTYPE x>", '"', "->", "-->", ",,", "\x00", "%%"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    graphs,
    st.sampled_from(FORMATS),
    st.floats(0, 1),
    st.sampled_from(SNIPPETS),
    st.booleans(),
    st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(1, 9)),
)
def test_the_steps_give_exactly_what_read_graph_gives(graph, fmt, where, snippet, cut, sizes):
    (nodes, edges) = graph
    node_list = [{"id": node_id, "text": text} for node_id, text in nodes]
    edge_list = [
        {"a": nodes[a][0], "b": nodes[b][0], "props": {"kind": kind, "label": label, "polarity": sign}}
        for a, b, kind, label, sign in edges
    ]
    text = write_graph(node_list, edge_list, fmt)
    k = int(where * len(text))
    text = text[:k] + snippet + ("" if cut else text[k:])  # (whole, or damaged)
    kind, value = at_once(text, fmt)
    stepped_kind, stepped_value, pauses = stepped(text, fmt, *sizes)
    assert (stepped_kind, stepped_value) == (kind, value)
    if kind == "graph" and fmt != "graphml":
        assert pauses >= len(text.splitlines()) // (sizes[0] * 40)  # (small steps: many of them)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(FORMATS), st.text("ab ,;{}[]()<>/=\"'-|>&\n#%", max_size=80), st.sampled_from(["", "x"]))
def test_the_steps_refuse_a_hostile_file_with_read_graph_s_message(fmt, body, name):
    heads = {"csv": "source,target\n", "graphml": "<graphml><graph>", "dot": "digraph {", "mermaid": "flowchart LR\n"}
    text = heads[fmt] + body
    kind, value = at_once(text, fmt)
    assert stepped(text, fmt, 1, 1, 3)[:2] == (kind, value)


def test_a_large_file_is_read_in_many_small_steps():
    """3,000 cards: the steps pause every READ_CHUNK lines or elements (or TOKEN_CHUNK tokens),
    so a DOT file of some 9,000 statements takes more than 9,000 / READ_CHUNK steps."""
    n = 3_000
    node_list = [{"id": f"n{i}", "text": f"Card {i}"} for i in range(n)]
    edge_list = [{"a": f"n{i % n}", "b": f"n{(7 * i + 1) % n}", "props": {"kind": "causal"}} for i in range(2 * n)]
    for fmt in FORMATS:
        text = write_graph(node_list, edge_list, fmt)
        kind, graph, pauses = stepped(
            text, fmt, graphformats.READ_CHUNK, graphformats.TOKEN_CHUNK, graphformats.XML_CHUNK
        )
        assert kind == "graph" and len(graph["nodes"]) == n and len(graph["edges"]) == 2 * n
        assert pauses >= 3 * n // graphformats.READ_CHUNK, (fmt, pauses)

"""The format readers in steps (``read_graph_steps``): the graph, or the refusal, is exactly
what ``read_graph`` gives, however small its steps — an XML parser fed a few characters at a
time, a DOT file tokenized and read a statement at a time, a group product or a long line of
statements paused every few edges — for files whole and damaged, and for the awkward shapes
people bring (groups, everything on one line, quoted multi-line CSV fields, unicode)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.shared import graphbuild, graphformats
from bendscope.shared.docformat import DocumentError
from bendscope.shared.graphformats import read_graph, read_graph_steps, write_graph

FORMATS = ["csv", "graphml", "dot", "mermaid"]


@contextmanager
def chunks(lines: int, tokens: int, characters: int, made: int | None = None) -> Iterator[None]:
    """The readers pausing every ``lines`` lines (elements, statements), ``tokens`` DOT tokens,
    ``characters`` characters fed to the XML parser (or read from a CSV file) and ``made``
    cards or edges made (default: ``lines``)."""
    saved = graphformats.READ_CHUNK, graphformats.TOKEN_CHUNK, graphformats.XML_CHUNK, graphbuild.GRAPH_QUANTUM
    graphformats.READ_CHUNK, graphformats.TOKEN_CHUNK, graphformats.XML_CHUNK = lines, tokens, characters
    graphbuild.GRAPH_QUANTUM = lines if made is None else made
    try:
        yield
    finally:
        graphformats.READ_CHUNK, graphformats.TOKEN_CHUNK, graphformats.XML_CHUNK, graphbuild.GRAPH_QUANTUM = saved


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


def awkward_file(fmt: str, ids: list[str], texts: list[str], groups: list[tuple[int, int]], one_line: bool) -> str:
    """A file the exporter never writes: every card labelled, then for each ``(k, size)`` the
    group of ``size`` cards from card ``k`` linked to the next ``size`` (DOT ``{a b} -> {c d}``,
    Mermaid ``a & b --> c & d``), a chain through every card, statements on one line if
    ``one_line``; CSV: the node list with quoted multi-line texts and the chain's edges."""
    n = len(ids)
    if fmt == "csv":
        nodes = [{"id": i, "text": t} for i, t in zip(ids, texts, strict=True)]
        chain = [{"a": a, "b": b, "props": {"kind": "causal"}} for a, b in itertools.pairwise(ids)]
        return write_graph(nodes, chain, fmt)
    if fmt == "dot":
        quoted = [graphformats._dot_id(i) for i in ids]
        lines = [f"{q} [label={graphformats._dot_id(t)}]" for q, t in zip(quoted, texts, strict=True)]
        for k, size in groups:
            left, right = quoted[k % n : k % n + size], quoted[k % n + size : k % n + 2 * size]
            lines.append(f"{{{' '.join(left)}}} -> {{{' '.join(right)}}} [kind=temporal]")
        lines.append(" -> ".join(quoted))
        return "digraph G {\n  # a preprocessor line\n" + ("; " if one_line else ";\n").join(lines) + "\n}\n"
    safe = [f"m{k}" for k in range(n)]  # (Mermaid: ids as the exporter would write them)
    lines = [f'{m}["{graphformats._mermaid_text(t)[1:-1]}"]' for m, t in zip(safe, texts, strict=True)]
    for k, size in groups:
        left, right = safe[k % n : k % n + size], safe[k % n + size : k % n + 2 * size]
        if left and right:
            lines.append(f"{' & '.join(left)} -->|+ up| {' & '.join(right)}")
    lines.append(" --> ".join(safe))
    return "flowchart LR\n" + ("; " if one_line else "\n").join(lines) + "\n"


unicode_ids = st.text('aé因🌧ßЖ_-"', min_size=1, max_size=4)
awkward_texts = st.text('ab \n,"é因🌧;&|[](){}#%+-', max_size=14)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["csv", "dot", "mermaid"]),
    st.lists(st.tuples(unicode_ids, awkward_texts), min_size=2, max_size=14, unique_by=lambda t: t[0]),
    st.lists(st.tuples(st.integers(0, 13), st.integers(1, 5)), max_size=4),
    st.booleans(),
    st.floats(0, 1),
    st.sampled_from(["", "}", "{", "&", "-->", '"', "\n", "->"]),
    st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(1, 9), st.integers(1, 5)),
)
def test_awkward_files_in_steps_give_what_read_graph_gives(fmt, cards, groups, one_line, where, snippet, sizes):
    ids, texts = [c[0] for c in cards], [c[1] for c in cards]
    text = awkward_file(fmt, ids, texts, groups, one_line)
    k = int(where * len(text))
    damaged = text[:k] + snippet + text[k:]
    for each in (text, damaged):
        kind, value = at_once(each, fmt)
        pauses = 0
        with chunks(*sizes):
            steps = read_graph_steps(each, fmt)
            try:
                while True:
                    next(steps)
                    pauses += 1
            except StopIteration as done:
                got: tuple[str, Any] = ("graph", done.value)
            except DocumentError as exc:
                got = ("refused", str(exc))
        assert got == (kind, value)
    assert at_once(text, fmt)[0] == "graph"  # (the undamaged file is valid)


def most_made_in_a_step(text: str, fmt: str) -> int:
    """The most edges a reader made between two of its pauses (default chunk sizes), found by
    watching the graph it builds grow."""
    made: list[int] = []
    builders: list[graphbuild.GraphBuilder] = []
    original = graphbuild.GraphBuilder.__init__

    def spy(self: graphbuild.GraphBuilder, quantum: int | None = None) -> None:
        original(self, quantum)
        builders.append(self)

    graphbuild.GraphBuilder.__init__ = spy  # type: ignore[method-assign]
    try:
        steps = read_graph_steps(text, fmt)
        before = 0
        while True:
            try:
                next(steps)
            except StopIteration:
                break
            now = len(builders[0].edges) if builders else 0
            made.append(now - before)
            before = now
        made.append(len(builders[0].edges) - before)
    finally:
        graphbuild.GraphBuilder.__init__ = original  # type: ignore[method-assign]
    return max(made)


def test_one_statement_of_thousands_of_edges_is_read_in_many_steps():
    """``{60 cards} -> {60 cards}`` in DOT (3,600 edges in one statement), the same as Mermaid
    ``&`` groups, and a Mermaid file whose every statement is on one line: no step makes more
    than a few hundred edges."""
    left, right = [f"a{i}" for i in range(60)], [f"b{i}" for i in range(60)]
    dot = f"digraph {{ {{{' '.join(left)}}} -> {{{' '.join(right)}}} }}"
    mermaid = f"flowchart LR\n{' & '.join(left)} --> {' & '.join(right)}\n"
    one_line = "flowchart LR\n" + "; ".join(f"n{i} --> n{i + 1}" for i in range(3_000)) + "\n"
    chain = "flowchart LR\n" + " --> ".join(f"n{i}" for i in range(3_000)) + "\n"
    for text, fmt, edges in ((dot, "dot", 3_600), (mermaid, "mermaid", 3_600), (one_line, "mermaid", 3_000),
                             (chain, "mermaid", 2_999)):  # fmt: skip
        assert len(read_graph(text, fmt)["edges"]) == edges
        assert most_made_in_a_step(text, fmt) <= graphbuild.GRAPH_QUANTUM + 60, fmt


def test_a_csv_file_of_long_quoted_fields_pauses_by_what_it_read():
    """200 rows of 5,000 characters each (quoted, over several lines): a pause at least every
    XML_CHUNK characters, not only every READ_CHUNK rows."""
    rows = [f'n{i},"{("word, " * 500 + chr(10)) * 2}"' for i in range(200)]
    text = "id,text\n" + "\n".join(rows) + "\n"
    sizes = graphformats.READ_CHUNK, graphformats.TOKEN_CHUNK, graphformats.XML_CHUNK
    kind, graph, pauses = stepped(text, "csv", *sizes)
    assert kind == "graph" and len(graph["nodes"]) == 200
    assert pauses >= len(text) // (2 * graphformats.XML_CHUNK), pauses

"""Graphs in links (bend.persist.share): a document survives the round trip exactly; a
damaged, cut, foreign or inflating link is refused with a message and never crashes; a
graph too large for a link says so."""

from __future__ import annotations

import base64
import contextlib
import json
import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.document import serialize_document
from bendscope.bend.persist.share import (
    MAX_LINK,
    PREFIX,
    LinkTooLong,
    has_graph,
    link_error,
    read_fragment,
    share_fragment,
)
from bendscope.shared.docformat import MAX_BYTES, DocumentError


def test_a_document_comes_back_from_its_link_as_it_was():
    editor = Editor(demo_document())
    editor.settle()
    text = editor.export()
    fragment = share_fragment(text)
    assert has_graph(fragment) and has_graph("#" + fragment) and not has_graph("#top")
    assert len(fragment) < len(text) / 3  # (compressed)
    other = Editor()
    assert other.load(read_fragment("#" + fragment), label=None) is None
    assert json.loads(other.export()) == json.loads(text)


def test_a_graph_past_the_link_limit_is_refused_with_the_size():
    rng = random.Random(1)  # random text: it does not compress
    nodes = [{"id": f"n{i}", "text": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(200))}
             for i in range(600)]  # fmt: skip
    with pytest.raises(LinkTooLong) as error:
        share_fragment(json.dumps({"nodes": nodes, "edges": []}))
    assert error.value.size > MAX_LINK and "Export" in str(error.value)


def test_cut_damaged_foreign_and_inflating_links_are_refused():
    fragment = share_fragment(serialize_document(demo_document()))
    for cut in (len(fragment) - 7, len(PREFIX) + 10):
        with pytest.raises(DocumentError, match="cut short"):
            read_fragment(fragment[:cut])
    with pytest.raises(DocumentError, match="newer Bendscope"):
        read_fragment("#graph=2.abc")
    with pytest.raises(DocumentError, match="no graph"):
        read_fragment("#section-2")
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = bomb.compress(b" " * (MAX_BYTES + 10)) + bomb.flush()  # ~10 KB that inflate to 10 MB
    link = PREFIX + base64.urlsafe_b64encode(packed).decode().rstrip("=")
    with pytest.raises(DocumentError, match="larger than 10 MB"):
        read_fragment(link)
    latin = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = latin.compress("café".encode("latin-1")) + latin.flush()
    with pytest.raises(DocumentError, match="UTF-8"):
        read_fragment(PREFIX + base64.urlsafe_b64encode(packed).decode().rstrip("="))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_fragment_is_a_document_text_or_a_clear_refusal(fragment):
    try:
        text = read_fragment(fragment)
    except DocumentError as exc:
        assert str(exc)
    else:
        assert isinstance(text, str)
    with contextlib.suppress(DocumentError):
        read_fragment(PREFIX + fragment)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_random_packed_bytes_never_crash(data):
    link = PREFIX + base64.urlsafe_b64encode(data).decode().rstrip("=")
    with contextlib.suppress(DocumentError):
        read_fragment(link)


def test_a_link_of_an_unknown_version_or_with_nothing_in_it_is_meant_for_a_graph_and_refused():
    for fragment in ("#graph=9.eJyrVkrLz1eyUlAqS8wpTgUAH", "#graph=", "graph=1."):
        assert has_graph(fragment), fragment
    with pytest.raises(DocumentError, match="newer Bendscope"):
        read_fragment("#graph=9.eJyrVkrLz1eyUlAqS8wpTgUAH")
    for empty in ("#graph=", "#graph=1."):
        with pytest.raises(DocumentError, match="holds no graph"):
            read_fragment(empty)
    assert not has_graph("#intro") and not has_graph("")


@given(st.sampled_from(["cut short?", "no graph", "too large.", "done!", "x ", "  "]))
def test_a_link_error_is_one_sentence_with_one_final_mark(reason):
    message = link_error(reason)
    assert message.startswith("This link's graph cannot be opened: ")
    assert message[-1] in ".?!" and message[-2:] not in ("?.", "!.", "..")

"""The live page given the memory's changes out of order, twice, or malformed: it refuses
them with a clear message, shows what it showed, and asks for the whole memory next."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.memory.web.deltas import ViewLog
from bendscope.shared.docformat import DocumentError
from tests.bend.test_live import Page, business, memory_knowledge, page_knowledge


def delta(page: Page) -> tuple[str, dict[str, Any]]:
    page.sync.changed()
    assert page.sync.next_step() == ("fetch", [])
    at, answer = page.answer()
    assert "changes" in answer
    return at, answer


def test_an_older_delta_arriving_after_a_newer_one_is_refused_and_the_page_asks_for_everything():
    memory = business()
    page = Page(memory, log=ViewLog(keep=8))
    memory.store_node({"id": "q", "content": "Quality, first"})
    first = delta(page)
    page.take(*first)
    memory.store_node({"id": "q", "content": "Quality, second"})
    memory.delete_node("r")
    page.take(*delta(page))
    shown = page.editor.export()
    assert page.text("q") == "Quality, second" and "r" not in page.editor.plane.nodes
    page.sync.busy = True  # (the first answer again, late)
    with pytest.raises(DocumentError, match="do not follow"):
        page.sync.fetched_changes(first[1]["changes"], first[1]["version"], first[0])
    assert page.editor.export() == shown and page.text("q") == "Quality, second"
    assert page.sync.since() is None  # (the next fetch: the whole memory)
    page.settle()
    assert page_knowledge(page) == memory_knowledge(memory)


def test_the_same_delta_twice_leaves_the_page_as_the_first_left_it():
    memory = business()
    page = Page(memory, log=ViewLog(keep=8))
    page.take(*delta(page))
    memory.store_node({"id": "m", "content": "Market share, now"})
    again = delta(page)
    page.take(*again)
    shown = page.editor.export()
    page.sync.busy = True
    with contextlib.suppress(DocumentError):
        page.sync.fetched_changes(again[1]["changes"], again[1]["version"], again[0])
    assert page.editor.export() == shown
    page.settle()
    assert page_knowledge(page) == memory_knowledge(memory)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(
        [
            [],
            {"nodes": {}},
            {"removed_nodes": "q"},
            {"nodes": [{"text": "no id"}]},
            {"edges": [{"id": "e9", "a": "q", "b": "nowhere", "props": {"kind": "causal"}}]},
            {"removed_nodes": ["q"]},  # (leaves the edge q→m without its card)
            {"nodes": [{"id": "q", "text": 5}]},
        ]
    ),
    st.booleans(),
)
def test_a_malformed_delta_changes_nothing_and_the_page_asks_for_everything(changes, with_since):
    memory = business()
    page = Page(memory, log=ViewLog(keep=8))
    shown = page.editor.export()
    assert page.sync.remote is not None
    if with_since and isinstance(changes, dict):
        changes = {**changes, "since": page.sync.remote.version}
    page.sync.busy = True
    with pytest.raises(DocumentError):
        page.sync.fetched_changes(changes, page.sync.remote.version + 1)
    assert page.editor.export() == shown and page.sync.since() is None and not page.sync.busy
    page.settle()
    assert page_knowledge(page) == memory_knowledge(memory)

"""The live editor's write operations are one contract with one home: the page's side
(``bend.live.sync``) and the memory's (``memory.web.page_writes``) read the same names and
the same edge view, and what the page makes the memory accepts."""

from __future__ import annotations

from bendscope.bend.live import sync
from bendscope.bend.live.sync import Known, ops_between
from bendscope.memory.web import page_writes
from bendscope.memory.web.page_writes import checked_ops
from bendscope.shared import live_ops


def test_both_sides_read_the_one_definition():
    assert sync.EDGE_VIEW is live_ops.EDGE_VIEW is page_writes.EDGE_VIEW
    assert page_writes.OPS is live_ops.OPS and page_writes.MAX_OPS == live_ops.MAX_OPS
    assert set(live_ops.OPS) == set(live_ops.NODE_OPS) | set(live_ops.EDGE_OPS)


def test_every_operation_the_page_makes_is_one_the_memory_checks():
    edge = {"a": "a", "b": "b", "kind": "causal", "label": "", "strength": 2, "polarity": None}
    base = Known({"a": "A", "b": "B", "c": "C"}, {"e1": edge})
    now = Known({"a": "A!", "b": "B", "d": "D"}, {"e2": {**edge, "b": "d"}})
    ops = ops_between(base, now)
    assert {op["op"] for op in ops} == set(live_ops.OPS)
    checked = checked_ops({"ops": ops})
    assert [(op["op"], op["id"]) for op in checked] == [(op["op"], op["id"]) for op in ops]

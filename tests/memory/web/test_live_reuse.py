"""The live editor's whole-memory view made again from the records served before
(``graph_view`` with a ``ViewLog``): on every store, after any writes, deletions, retrievals
and with facts ending as the clock passes, it answers exactly what making the view afresh
answers, and the changes since a version are exactly a whole-document diff's."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.live.delta import Remote, apply_to
from bendscope.memory.core.errors import InvalidInput
from bendscope.memory.core.service import Memory
from bendscope.memory.store.base import Store
from bendscope.memory.web.deltas import ViewLog
from bendscope.memory.web.editor_site import graph_view, versioned
from bendscope.memory.web.timeline import Moment

from .live_ops import OPS, Clock, apply_op


def _whole(memory: Memory, log: ViewLog | None = None) -> dict[str, Any]:
    status, answer = graph_view(memory, None, None, None, Moment(), log)
    assert status == 200
    return answer


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(OPS, max_size=30), tag=st.uuids().map(lambda u: u.hex[:6]))
def test_the_view_made_again_is_the_view_made_afresh_and_its_changes_a_whole_diff(store: Store, ops, tag):
    clock = Clock()
    memory = Memory(store, clock=clock)
    log = ViewLog(keep=4)
    first = versioned(_whole(memory, log), log, None)
    remote = Remote.of_document(json.loads(json.dumps(first["document"])), first["version"])
    for op in [*ops, ("fetch",)]:
        with contextlib.suppress(InvalidInput):  # (a write the memory refuses changes nothing)
            apply_op(memory, clock, op, tag)
        if op[0] != "fetch":
            continue
        fresh = _whole(memory)
        again = _whole(memory, log)
        assert again == fresh  # (the same clock: the same answer, records made again or not)
        answer = json.loads(json.dumps(versioned(again, log, remote.version)))
        assert "changes" in answer
        remote = apply_to(remote, answer["changes"], answer["version"])
        plane = fresh["document"]["planes"][0]
        assert remote.nodes == {n["id"]: n for n in plane["nodes"]}
        assert remote.edges == {e["id"]: e for e in plane["edges"]}

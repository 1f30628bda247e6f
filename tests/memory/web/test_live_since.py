"""The live editor's changes since a version, read from the store's change numbers
(``since.answer_since``): on every store, after writes, deletions, invalidations, retrievals,
validity ends passing as the clock moves, and attempts to move nodes or join edges between
namespaces (refused: they change nothing), they are exactly
the changes the whole document compared with that version gives — for the whole memory and for
one namespace — and the page's copy with them applied is the whole document."""

from __future__ import annotations

import contextlib
import json
import multiprocessing

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.live.delta import Remote, apply_to
from bendscope.memory.core.errors import InvalidInput
from bendscope.memory.core.service import Memory
from bendscope.memory.store.base import Store
from bendscope.memory.web.deltas import ViewLog
from bendscope.memory.web.editor_site import LIVE_MAX_NODES, graph_answer, versioned
from bendscope.memory.web.since import answer_since
from bendscope.memory.web.timeline import Moment

from .live_ops import OPS, Clock, apply_op
from .test_live_reuse import _whole


class Page:
    """One page of a view (the whole memory, or a namespace): its copy, kept by the changes
    read from the change numbers; and a log answering the same versions from whole documents."""

    def __init__(self, memory: Memory, pruned: bool = False) -> None:
        self.memory = memory
        self.pruned = pruned
        self.log, self.whole_log = ViewLog(keep=4), ViewLog(keep=4)
        status, first = graph_answer(memory, None, Moment(), self.log, None)
        compared = versioned(_whole(memory, self.whole_log), self.whole_log, None)
        assert status == 200 and first["document"] == compared["document"]
        self.remote = Remote.of_document(json.loads(json.dumps(first["document"])), first["version"])
        self.compared = compared["version"]

    def fetch(self, compared: bool = True, still: bool = True) -> None:
        """The changes since the page's version (and, ``compared``, the whole document's diff
        since the same version: the same), applied to its copy: the whole document (when
        nothing writes meanwhile: ``still``)."""
        with self.log.making:
            answer = answer_since(self.memory, self.log, self.remote.version, LIVE_MAX_NODES)
        if answer is None:  # (every store numbers its changes: the page is behind its deletions' horizon)
            held = self.log.held(self.remote.version)
            assert held is not None and held[1][0] is not None and self.pruned
            assert self.memory.store.changed_since(held[1][0]) is None
            status, answer = graph_answer(self.memory, None, Moment(), self.log, self.remote.version)
            assert status == 200 and "changes" in answer  # (the whole view, compared with the page's version)
        if compared:
            whole = versioned(_whole(self.memory, self.whole_log), self.whole_log, self.compared)
            self.compared = whole["version"]
            assert answer["view"] == whole["view"] and answer["at"] == whole["at"]
            assert answer["version"] == whole["version"]
            assert answer["changes"] == whole["changes"]
        answer = json.loads(json.dumps(answer))
        self.remote = apply_to(self.remote, answer["changes"], answer["version"])
        if not still:
            return
        plane = _whole(self.memory)["document"]["planes"][0]
        assert self.remote.nodes == {n["id"]: n for n in plane["nodes"]}
        assert self.remote.edges == {e["id"]: e for e in plane["edges"]}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(OPS, max_size=30), tag=st.uuids().map(lambda u: u.hex[:6]))
def test_changes_read_from_the_change_numbers_are_the_whole_documents_diff(store: Store, ops, tag):
    clock = Clock()
    memory = Memory(store, clock=clock)
    pages = [Page(memory), Page(memory.within(tag + "ns"))]
    for op in [*ops, ("fetch",)]:
        with contextlib.suppress(InvalidInput):  # (a write the memory refuses changes nothing)
            apply_op(memory, clock, op, tag)
        if op[0] == "fetch":
            for page in pages:
                page.fetch()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(OPS, max_size=30), keep=st.integers(1, 3), tag=st.uuids().map(lambda u: u.hex[:6]))
def test_changes_stay_the_whole_documents_diff_while_deletions_are_dropped(store: Store, ops, keep, tag):
    """The store keeps its deletions for the last ``keep`` change numbers: a page behind them
    gets the whole view compared with its version, one within them the changes read from the
    numbers — each the whole document's diff."""
    store.keep_deletions(keep)
    clock = Clock()
    memory = Memory(store, clock=clock)
    pages = [Page(memory, pruned=True), Page(memory.within(tag + "ns"), pruned=True)]
    for op in [*ops, ("fetch",)]:
        with contextlib.suppress(InvalidInput):
            apply_op(memory, clock, op, tag)
        if op[0] == "fetch":
            for page in pages:
                page.fetch()


def _write_many(url: str, name: str, count: int) -> None:
    """Another process's writes: nodes, each joined to the one before, one transaction each."""
    from bendscope.memory.store.postgres import PostgresStore

    memory = Memory(PostgresStore(url, pool_size=1))
    for k in range(count):
        with memory.store.transaction():
            memory.store_node({"id": f"{name}{k}", "content": f"Fact {k} from {name}"})
            if k:
                memory.store_edge({"id": f"{name}e{k}", "source_id": f"{name}{k - 1}", "target_id": f"{name}{k}"})
    memory.store.close()


def _retrieve_many(url: str, count: int) -> None:
    """Another process's retrievals: access counts, counted in transactions of their own."""
    from bendscope.memory.store.postgres import PostgresStore

    memory = Memory(PostgresStore(url, pool_size=1))
    for _ in range(count):
        memory.retrieve_context({"query": "fact"})
    memory.store.close()


def test_changes_committed_by_other_processes_at_once_are_none_missed(postgres_url):
    """Two processes write and two retrieve (their counters) at once while a page fetches
    changes: what each answer says, applied in turn, is the whole memory at the end — no
    change committed after a reader's snapshot with a number below what it saw is left out."""
    from bendscope.memory.store.postgres import PostgresStore

    store = PostgresStore(postgres_url, pool_size=2)
    memory = Memory(store, clock=Clock())  # (the page's clock stands: its answers compare equal)
    memory.store_node({"id": "seed", "content": "A fact to retrieve"})
    page = Page(memory)
    spawn = multiprocessing.get_context("spawn")
    workers = [spawn.Process(target=_write_many, args=(postgres_url, name, 60)) for name in ("p", "q")]
    workers += [spawn.Process(target=_retrieve_many, args=(postgres_url, 40)) for _ in range(2)]
    for worker in workers:
        worker.start()
    fetches = 0
    while any(w.is_alive() for w in workers) or fetches == 0:
        page.fetch(compared=False, still=False)
        fetches += 1
    assert all(w.exitcode == 0 for w in workers)
    page.fetch(compared=False)  # (the last changes: the copy is the whole memory)
    assert len(page.remote.nodes) == 121 and fetches > 1
    store.close()

"""The live editor's server side: a person's writes (``POST /api/write``:
checked against what the page saw, all or nothing, through the tools' own checks), the
change sources that wake a page (SQLite's data_version, PostgreSQL's LISTEN/NOTIFY, an
in-memory counter), the event stream, and a large memory opened by a query."""

from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any

import anyio
import pytest

from bendscope.memory.core.errors import Conflict, InvalidInput
from bendscope.memory.core.service import Memory
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.sqlite import SQLiteStore
from bendscope.memory.web.changes import ChangeFeed, change_source
from bendscope.memory.web.editor_site import Admission, editor_app, graph_view
from bendscope.memory.web.page_writes import Stale, check_body, drawn_edge, write
from bendscope.shared.site import SITE
from tests.memory.web.test_editor_site import HOST, PAGE_KEY, PORT, TOKEN, _ask

COOKIE = f"bendscope_token_{PORT}={PAGE_KEY}"
ORIGIN = f"http://{HOST}"


def _memory() -> Memory:
    memory = Memory(InMemoryStore())
    memory.store_node({"id": "q", "content": "Product quality"})
    memory.store_node({"id": "m", "content": "Market share"})
    memory.store_edge({"id": "qm", "source_id": "q", "target_id": "m", "edge_type": "causal"})
    return memory


def _edge(a: str, b: str, kind: str = "causal", **props: Any) -> dict[str, Any]:
    return {"a": a, "b": b, "kind": kind, "label": "", "strength": 2, "polarity": None, **props}


def test_a_persons_cards_and_edges_are_stored_through_the_tools():
    memory = _memory()
    ops = check_body(
        json.dumps(
            {
                "ops": [
                    {"op": "put_node", "id": "r", "text": "Revenue", "was": None},
                    {"op": "put_node", "id": "q", "text": "Product quality (audited)", "was": "Product quality"},
                    {"op": "put_edge", "id": "mr", **_edge("m", "r", label="grows"), "was": None},
                    {"op": "put_edge", "id": "rq", **_edge("r", "q", polarity="+"), "was": None},
                ]
            }
        ).encode()
    )
    assert write(memory, ops) == {"status": "written", "deleted_edges": 0, "nodes": 2, "edges": 2, "deleted_nodes": 0}
    nodes = memory.store.get_nodes(["q", "r"])
    assert nodes["q"].content == "Product quality (audited)" and nodes["r"].source == "editor"
    assert nodes["r"].confidence == 1.0 and nodes["r"].node_type == "semantic"
    edge = memory.store.get_edge("mr")
    assert edge is not None and edge.metadata == {"label": "grows"} and edge.edge_type == "causal"
    assert memory.store.get_edge("rq").metadata == {"polarity": "+"}  # type: ignore[union-attr]
    # κ sees the person's loop: q → m → r → q
    assert memory.analyze_topology({})["max_kappa"] == 1


def test_an_edit_of_something_the_agent_changed_meanwhile_is_refused_and_nothing_is_written():
    memory = _memory()
    memory.store_node({"id": "q", "content": "Quality, as the agent now says"})  # (the agent, meanwhile)
    before = memory.export_document()
    ops = [
        {"op": "put_node", "id": "new", "text": "A new card", "was": None},
        {"op": "put_node", "id": "q", "text": "Product quality!", "was": "Product quality"},
    ]
    with pytest.raises(Stale, match=r"the card “Product quality” was edited .*Nothing was written"):
        write(memory, ops)
    assert memory.export_document() == before  # (the new card was not stored either)
    memory.delete_edge("qm")
    with pytest.raises(Stale, match="edge 'qm' was deleted"):
        write(memory, [{"op": "delete_edge", "id": "qm", "was": _edge("q", "m")}])
    with pytest.raises(Stale, match="the id 'q' is taken"):
        write(memory, [{"op": "put_node", "id": "q", "text": "Mine", "was": None}])
    memory.delete_node("m")
    with pytest.raises(Stale, match="“Market share” was deleted"):
        write(memory, [{"op": "put_node", "id": "m", "text": "Market share, edited", "was": "Market share"}])


def test_a_card_that_gained_an_edge_meanwhile_is_not_deleted_with_it():
    memory = _memory()
    memory.store_node({"id": "x", "content": "Something the agent linked"})
    memory.store_edge({"id": "xm", "source_id": "x", "target_id": "m", "edge_type": "causal"})  # (meanwhile)
    ops = [
        {"op": "delete_edge", "id": "qm", "was": drawn_edge(memory.store.get_edge("qm"))},  # type: ignore[arg-type]
        {"op": "delete_node", "id": "m", "was": "Market share"},
    ]
    with pytest.raises(Stale, match="“Market share” has gained an edge meanwhile"):
        write(memory, ops)
    assert memory.store.get_node("m") is not None and memory.store.get_edge("qm") is not None
    memory.delete_edge("xm")
    assert write(memory, ops)["deleted_nodes"] == 1
    assert memory.store.get_node("m") is None


def test_the_tools_checks_hold_for_a_person_too():
    memory = Memory(InMemoryStore(), acyclic_types=("derived_from",))
    memory.store_node({"id": "a", "content": "A"})
    memory.store_node({"id": "b", "content": "B"})
    memory.store_edge({"id": "ab", "source_id": "a", "target_id": "b", "edge_type": "derived_from"})
    with pytest.raises(Conflict, match="cycle"):
        write(memory, [{"op": "put_edge", "id": "ba", **_edge("b", "a", "derived_from"), "was": None}])
    with pytest.raises(InvalidInput, match="no node"):
        write(memory, [{"op": "put_edge", "id": "az", **_edge("a", "zzz"), "was": None}])
    assert memory.store.get_edge("ba") is None and memory.store.get_edge("az") is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"not json", "not JSON"),
        (b"[]", r'the body must be \{"ops": \[\.\.\.\]\}'),
        (b'{"ops": []}', "no operations"),
        (b'{"ops": [{"op": "drop_table", "id": "x"}]}', "ops\\[0\\]: an operation is an object"),
        (b'{"ops": [{"op": "put_node", "id": "x", "text": "  ", "was": null}]}', "some text"),
        (b'{"ops": [{"op": "put_node", "id": "", "text": "T", "was": null}]}', "ops\\[0\\].id"),
        (b'{"ops": [{"op": "delete_node", "id": "x", "was": null}]}', "the card's text the page saw"),
        (b'{"ops": [{"op": "put_edge", "id": "e", "a": "x", "b": "y", "kind": "nope", "was": null}]}', "kind"),
        (b'{"ops": [{"op": "put_edge", "id": "e", "a": "x", "b": "y", "strength": 9, "was": null}]}', "strength"),
        (b'{"ops": [{"op": "delete_edge", "id": "e", "was": {"a": "x"}}]}', "exactly"),
        (
            json.dumps({"ops": [{"op": "delete_node", "id": f"n{i}", "was": "t"} for i in range(50_001)]}).encode(),
            "at most 50,000",
        ),
        (
            b'{"ops": [{"op": "put_node", "id": "d", "text": "A", "was": null},'
            b' {"op": "put_node", "id": "d", "text": "B", "was": null}]}',
            "ops\\[1\\]: the card 'd' is in ops\\[0\\] already",
        ),
        (
            b'{"ops": [{"op": "put_node", "id": "s", "text": "x", "was": "\\ud800"}]}',
            "ops\\[0\\].was: is not valid Unicode",
        ),
        (
            b'{"ops": [{"op": "delete_edge", "id": "e", "was": {"a": "x", "b": "y", "kind": "\\ud800",'
            b' "label": "", "strength": 2, "polarity": null}}]}',
            "kind: is not valid Unicode",
        ),
        (
            b'{"ops": [{"op": "put_edge", "id": "e", "a": "x", "b": "y", "was": null},'
            b' {"op": "delete_node", "id": "y", "was": "Y"}]}',
            "joins a card this request deletes",
        ),
        (b'{"ops": [{"op": "delete_node", "id": "y", "was": "Y"}], "seen_at": "yesterday"}', "seen_at must be"),
    ],
)
def test_a_malformed_write_is_refused_with_a_reason(body, message):
    with pytest.raises(InvalidInput, match=message):
        check_body(body)


def _app(memory: Memory) -> Any:
    async def mcp(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"mcp"})

    return editor_app(mcp, memory, Admission(TOKEN, PORT), SITE)


def test_the_page_writes_with_its_cookie_only_from_its_own_origin():
    memory = _memory()
    app = _app(memory)
    op = json.dumps({"ops": [{"op": "put_node", "id": "r", "text": "Revenue", "was": None}]}).encode()
    # no Origin (not a page's fetch), a foreign Origin, the token as a cookie: refused, nothing written
    assert _ask(app, "/api/write", method="POST", body=op, cookie=COOKIE)[0] == 401
    assert _ask(app, "/api/write", method="POST", body=op, cookie=COOKIE, origin="http://127.0.0.1:9999")[0] == 403
    assert (
        _ask(app, "/api/write", method="POST", body=op, cookie=f"bendscope_token_{PORT}={TOKEN}", origin=ORIGIN)[0]
        == 401
    )
    assert _ask(app, "/api/write", method="POST", body=op, origin=ORIGIN)[0] == 401
    assert (
        _ask(app, "/api/write", method="POST", body=op, cookie=COOKIE, origin=ORIGIN, host="evil.test:8765")[0] == 403
    )
    assert memory.store.get_node("r") is None
    status, _, answer = _ask(app, "/api/write", method="POST", body=op, cookie=COOKIE, origin=ORIGIN)
    assert status == 200 and json.loads(answer)["nodes"] == 1 and memory.store.get_node("r") is not None
    # the same again: the id is taken now (the page saw it as new) → 409, with the reason
    status, _, answer = _ask(app, "/api/write", method="POST", body=op, cookie=COOKIE, origin=ORIGIN)
    assert status == 409 and json.loads(answer)["stale"] is True and "is taken" in json.loads(answer)["error"]
    # a client with the token may write too; a wrong body is 400; GET is 405; too big is 413
    bearer = {"authorization": f"Bearer {TOKEN}"}
    assert _ask(app, "/api/write", method="POST", body=b"{}", **bearer)[0] == 400
    assert _ask(app, "/api/write", **bearer)[0] == 405
    big = b'{"ops": [' + b" " * (32 * 1024 * 1024) + b"]}"
    assert _ask(app, "/api/write", method="POST", body=big, **bearer)[0] == 413
    # the cookie never writes anywhere else
    assert _ask(app, "/api/graph", method="POST", body=op, cookie=COOKIE, origin=ORIGIN)[0] == 401


def test_a_large_memory_opens_by_a_query_with_the_neighbourhood(monkeypatch):
    from bendscope.memory.web import editor_site

    memory = _memory()
    memory.store_node({"id": "p", "content": "Price"})
    memory.store_node({"id": "w", "content": "Weather in Lisbon"})
    memory.store_edge({"id": "pm", "source_id": "p", "target_id": "m", "edge_type": "causal"})
    monkeypatch.setattr(editor_site, "LIVE_MAX_NODES", 3)
    status, answer = graph_view(memory, None)
    assert status == 200 and answer["document"] is None and answer["view"]["total"] == 4 and answer["cap"] == 3
    status, answer = graph_view(memory, "market share")
    ids = [n["id"] for n in answer["document"]["planes"][0]["nodes"]]
    now = {"ended": 0, "time": {"as_of": None, "known_at": None}}
    assert status == 200 and answer["view"] == {"query": "market share", "shown": 3, "total": 4, **now}
    assert sorted(ids) == ["m", "p", "q"]  # the match, then its neighbours; not the weather
    # the page's view: what it shows (kept while they exist) and the query's cards and neighbours
    status, answer = graph_view(memory, "weather", keep=["m", "gone"])
    assert [n["id"] for n in answer["document"]["planes"][0]["nodes"]] == ["m", "w"]
    assert answer["view"] == {"query": "weather", "shown": 2, "total": 4, **now}
    app = _app(memory)
    asked = json.dumps({"query": "market share", "node_ids": ["w"]}).encode()
    status, _, body = _ask(app, "/api/view", method="POST", body=asked, cookie=COOKIE, origin=ORIGIN)
    assert status == 200 and json.loads(body)["view"]["shown"] == 3  # (w kept, m, and one neighbour: the cap)
    assert _ask(app, "/api/view", method="POST", body=asked, cookie=COOKIE)[0] == 401  # (a page's POST has its Origin)
    status, _, body = _ask(app, "/api/view", method="POST", body=b'{"node_ids": [1]}', cookie=COOKIE, origin=ORIGIN)
    assert status == 400 and "node_ids[0]" in json.loads(body)["error"]
    assert _ask(app, "/api/view", cookie=COOKIE)[0] == 405


def _wakes(source: Any, change: Any) -> float:
    """Seconds from ``change()`` to the source reporting it (the source first drained)."""
    while source.wait(0.05):
        pass
    started = time.monotonic()
    threading.Timer(0.05, change).start()
    assert source.wait(5.0), "the change was not seen"
    return time.monotonic() - started


def test_sqlite_changes_are_seen_whichever_connection_or_process_wrote(tmp_path):
    path = tmp_path / "m.sqlite3"
    served = Memory(SQLiteStore(path))
    other = Memory(SQLiteStore(path))  # (another server process on the same file: its own connection)
    source = change_source(served.store)
    try:
        assert _wakes(source, lambda: served.store_node({"content": "by this server"})) < 1.0
        assert _wakes(source, lambda: other.store_node({"content": "by another process"})) < 1.0
        assert not source.wait(0.2)  # (nothing more)
        found = other.retrieve_context({"query": "process"})  # (a commit: access counts, the log)
        assert found["results"] and not source.wait(0.3)  # (but no change to the graph)
        assert (
            _wakes(
                source,
                lambda: other.learn_from_outcome({"node_ids": [found["results"][0]["id"]], "outcome": "success"}),
            )
            < 1.0
        )
    finally:
        source.close()
        served.store.close()
        other.store.close()


def test_in_memory_changes_are_seen():
    memory = _memory()
    source = change_source(memory.store)
    assert _wakes(source, lambda: memory.store_node({"content": "new"})) < 1.0
    assert not source.wait(0.1)


def test_postgresql_changes_are_heard_from_another_process(postgres_url):
    from bendscope.memory.store.postgres import PostgresStore

    served = Memory(PostgresStore(postgres_url, pool_size=2))
    other = Memory(PostgresStore(postgres_url, pool_size=2))
    source = change_source(served.store)
    try:
        assert source.wait(1.0)  # (listening now: what came before is unknown, so it says "changed")
        assert _wakes(source, lambda: other.store_node({"content": "by another process"})) < 1.0
        assert _wakes(source, lambda: served.store_node({"content": "by this one"})) < 1.0
        found = other.retrieve_context({"query": "process"})  # (reading, even with its counters, is no change)
        assert not source.wait(0.3)
        node_ids = [found["results"][0]["id"]]  # (learning changes a confidence the editor shows)
        assert _wakes(source, lambda: other.learn_from_outcome({"node_ids": node_ids, "outcome": "success"})) < 1.0
    finally:
        source.close()
        served.store.close()
        other.store.close()


def test_a_burst_of_postgresql_commits_wakes_the_pages_once_per_interval(postgres_url):
    """A commit heard within ``SQLITE_POLL_S`` of the last report waits for the rest of that
    interval (the commits heard meanwhile go with it); one after a quiet spell is reported at
    once. (The source's clock and sleep are the test's.)"""
    from bendscope.memory.store.postgres import PostgresStore
    from bendscope.memory.web.changes import SQLITE_POLL_S, PostgresChanges

    served = Memory(PostgresStore(postgres_url, pool_size=2))
    now, slept = [100.0], []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    source = PostgresChanges(*served.store.change_channel(), clock=lambda: now[0], sleep=sleep)
    try:
        assert source.wait(1.0)  # (listening now)
        served.store_node({"content": "after a quiet spell"})
        assert source.wait(5.0) and slept == []  # at once
        now[0] += SQLITE_POLL_S / 4
        served.store_node({"content": "the burst goes on"})
        assert source.wait(5.0) and slept == [pytest.approx(SQLITE_POLL_S * 3 / 4)]
        now[0] += 2 * SQLITE_POLL_S
        served.store_node({"content": "after another quiet spell"})
        assert source.wait(5.0) and len(slept) == 1
    finally:
        source.close()
        served.store.close()


def test_the_feed_wakes_every_listener_and_refuses_past_its_cap():
    memory = _memory()
    feed = ChangeFeed(change_source(memory.store), max_listeners=2)

    async def main() -> None:
        first, second = feed.listen(), feed.listen()
        assert first is not None and second is not None and feed.listen() is None
        await anyio.to_thread.run_sync(time.sleep, 0.3)  # (the watcher is waiting now)
        memory.store_node({"content": "an agent's fact"})
        with anyio.fail_after(5):
            await first.wait()
            await second.wait()
        feed.leave(first)
        feed.leave(second)

    try:
        anyio.run(main)
        assert feed.mark >= 1 and feed.listeners == 0
    finally:
        feed.close()


def test_the_event_stream_of_the_real_server_tells_of_another_processs_write_and_ends_with_it(tmp_path):
    from tests.memory.web.test_editor_site import _Served

    path = tmp_path / "m.sqlite3"
    Memory(SQLiteStore(path)).store.close()
    served = _Served(path)
    other = Memory(SQLiteStore(path))
    try:
        redirect = served.get(f"/?token={served.token}")
        cookie = redirect.getheader("set-cookie").split(";")[0]
        page = served.get("/", Cookie=cookie).read()
        assert b'<meta name="bendscope-live" content="' in page
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        connection.request("GET", "/api/events", headers={"Cookie": cookie})
        stream = connection.getresponse()
        assert stream.status == 200 and stream.getheader("content-type").startswith("text/event-stream")
        assert stream.readline() == b"retry: 1000\n" and stream.readline() == b"event: change\n"
        stream.readline(), stream.readline()  # (its data and the blank line)
        time.sleep(0.3)
        started = time.monotonic()
        other.store_node({"content": "written by another process"})
        assert stream.readline() == b"event: change\n"
        assert time.monotonic() - started < 1.0
        stopped = time.monotonic()
        served.stop()  # (an open stream does not hold the server up)
        assert time.monotonic() - stopped < 10
    finally:
        other.store.close()
        if served.proc.poll() is None:
            served.stop()


def test_a_merge_moves_edges_and_deletes_the_absorbed_card():
    memory = _memory()
    memory.store_node({"id": "c", "content": "Cost"})
    memory.store_edge({"id": "cm", "source_id": "c", "target_id": "m", "edge_type": "causal"})
    moved = drawn_edge(memory.store.get_edge("cm"))  # type: ignore[arg-type]
    ops = [
        {"op": "put_edge", "id": "cm", **_edge("q", "m"), "was": moved},  # (the edge, moved to the card kept)
        {"op": "delete_node", "id": "c", "was": "Cost"},
    ]
    assert write(memory, ops)["deleted_nodes"] == 1
    edge = memory.store.get_edge("cm")
    assert edge is not None and (edge.source_id, edge.target_id) == ("q", "m")


def test_in_a_partial_view_a_cards_older_unseen_edges_go_with_it_but_newer_ones_refuse():
    times = iter(f"2026-01-01T00:00:{s:02d}.000Z" for s in range(60))
    memory = Memory(InMemoryStore(), clock=lambda: next(times))
    memory.store_node({"id": "a", "content": "A"})
    memory.store_node({"id": "hidden", "content": "Not in the view"})
    memory.store_edge({"id": "old", "source_id": "hidden", "target_id": "a", "edge_type": "causal"})
    seen_at = memory.clock()  # (the page reads its view: "a" only)
    memory.store_node({"id": "x", "content": "X"})
    memory.store_edge({"id": "new", "source_id": "x", "target_id": "a", "edge_type": "causal"})  # (meanwhile)
    ops = check_body(json.dumps({"ops": [{"op": "delete_node", "id": "a", "was": "A"}], "seen_at": seen_at}).encode())
    with pytest.raises(Stale, match="“A” has gained an edge meanwhile") as refused:
        write(memory, ops)
    assert refused.value.ids == ["a"] and memory.store.get_edge("old") is not None
    memory.delete_edge("new")
    assert write(memory, ops)["deleted_nodes"] == 1
    assert memory.store.get_edge("old") is None and memory.store.get_node("hidden") is not None


def test_a_card_brought_back_by_undo_keeps_the_agents_fields():
    memory = Memory(InMemoryStore())
    memory.store_node({"id": "e", "content": "An observation", "node_type": "episodic", "confidence": 0.4,
                       "source": "agent-x", "metadata": {"k": 1}})  # fmt: skip
    memory.store_node({"id": "f", "content": "A fact"})
    memory.store_edge({"id": "ef", "source_id": "e", "target_id": "f", "edge_type": "causal", "weight": 0.3,
                       "metadata": {"why": "seen"}})  # fmt: skip
    document = memory.export_document()
    node = document["planes"][0]["nodes"][0]
    edge = document["planes"][0]["edges"][0]
    memory.delete_node("e")
    ops = check_body(
        json.dumps(
            {
                "ops": [
                    {"op": "put_node", "id": "e", "text": node["text"], "was": None, "data": node["data"]},
                    {
                        "op": "put_edge",
                        "id": "ef",
                        "a": "e",
                        "b": "f",
                        **edge["props"],
                        "was": None,
                        "data": edge["data"],
                    },
                ]
            }
        ).encode()
    )
    write(memory, ops)
    back = memory.store.get_node("e")
    assert back is not None and (back.node_type, back.confidence, back.source, back.metadata) == (
        "episodic", 0.4, "agent-x", {"k": 1}
    )  # fmt: skip
    edge_back = memory.store.get_edge("ef")
    assert edge_back is not None and (edge_back.weight, edge_back.metadata) == (0.3, {"why": "seen"})


def test_a_surrogate_quoted_back_is_escaped_not_a_server_error():
    memory = _memory()
    app = _app(memory)
    body = json.dumps({"ops": [{"op": "put_node", "id": "s1", "text": "x", "was": "\ud800"}]}).encode()
    status, _, answer = _ask(app, "/api/write", method="POST", body=body, cookie=COOKIE, origin=ORIGIN)
    assert status == 400 and "not valid Unicode" in json.loads(answer)["error"]
    two = [(b"host", HOST.encode()), (b"cookie", COOKIE.encode())]
    assert Admission(TOKEN, PORT).check(
        {
            "type": "http",
            "method": "POST",
            "path": "/api/write",
            "query_string": b"",
            "headers": [*two, (b"origin", b"http://evil.example"), (b"origin", ORIGIN.encode())],
        }
    ) == (403, "a request has one Origin")
    assert _ask(app, "/api/events", method="HEAD", cookie=COOKIE)[0] == 405

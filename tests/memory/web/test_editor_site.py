"""The memory server's editor site and its admission: the token,
Host and Origin checks before anything, the site's files and nothing else, the memory as a
document — in process (ASGI) and through the real server (``serve --http 0 --editor``)."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from bendscope.memory.core.errors import InvalidInput
from bendscope.memory.core.service import Memory
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.web.editor_site import Admission, checked_token, editor_app, live_page
from bendscope.shared.site import SITE, site_file

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "t0ken-for-the-tests-0123456789"
PAGE_KEY = Admission(TOKEN, 8765).page_key.decode()  # (what the page's cookie holds)
PORT = 8765
HOST = f"127.0.0.1:{PORT}"


def _app() -> tuple[Any, list[str]]:
    memory = Memory(InMemoryStore())
    memory.store_node({"id": "revenue", "content": "Revenue <b>grows</b>"})
    reached: list[str] = []

    async def mcp(scope: dict[str, Any], receive: Any, send: Any) -> None:
        reached.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"mcp"})

    return editor_app(mcp, memory, Admission(TOKEN, PORT), SITE), reached


def _ask(
    app: Any, path: str, *, method: str = "GET", query: str = "", body: bytes = b"", **headers: str
) -> tuple[int, dict, bytes]:
    """One request through the ASGI app: (status, headers, body)."""
    sent: list[dict[str, Any]] = []
    head = [(b"host", headers.pop("host", HOST).encode())]
    head += [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    scope = {"type": "http", "method": method, "path": path, "query_string": query.encode(), "headers": head}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    anyio.run(app, scope, receive, send)
    start = sent[0]
    return (
        start["status"],
        {k.decode(): v.decode() for k, v in start["headers"]},
        b"".join(m.get("body", b"") for m in sent[1:]),
    )


BEARER = {"authorization": f"Bearer {TOKEN}"}


def test_nothing_is_answered_without_the_token():
    app, reached = _app()
    for path in ("/", "/index.html", "/api/graph", "/mcp"):
        assert _ask(app, path)[0] == 401
        assert _ask(app, path, authorization="Bearer wrong-token-0123456789")[0] == 401
        assert _ask(app, path, cookie="bendscope_token_8765=wrong-token-0123456789")[0] == 401
        assert _ask(app, path, cookie=f"bendscope_token_9999={PAGE_KEY}")[0] == 401  # (another port's cookie)
        assert _ask(app, path, cookie=f"bendscope_token_8765={TOKEN}")[0] == 401  # (the token itself is no page key)
        assert _ask(app, path, query="token=wrong")[0] == 401
    assert reached == []  # (the MCP endpoint was never reached)
    assert _ask(app, "/mcp", method="POST", **BEARER)[2] == b"mcp" and reached == ["/mcp"]


def test_foreign_hosts_and_origins_are_refused_even_with_the_token():
    app, reached = _app()
    for host in ("evil.example:8765", "127.0.0.1:9999", "127.0.0.1", "localhost.evil.example:8765"):
        status, _, body = _ask(app, "/mcp", method="POST", host=host, **BEARER)
        assert status == 403 and b"answers only requests to 127.0.0.1:8765" in body
    for origin in ("http://evil.example", "http://127.0.0.1:9999", "null", "https://127.0.0.1:8765"):
        assert _ask(app, "/api/graph", origin=origin, **BEARER)[0] == 403
    assert reached == []
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765"):
        assert _ask(app, "/api/graph", host=host, origin=f"http://{host}", **BEARER)[0] == 200


def test_a_token_in_the_address_becomes_a_cookie_and_leaves_the_address():
    app, _ = _app()
    status, headers, _ = _ask(app, "/", query=f"seed=3&token={TOKEN}")
    assert status == 303 and headers["location"] == "/?seed=3"
    cookie = headers["set-cookie"]
    assert (
        TOKEN not in cookie
        and cookie.startswith(f"bendscope_token_8765={PAGE_KEY};")
        and "HttpOnly" in cookie
        and "SameSite=Strict" in cookie
    )
    status, headers, body = _ask(app, "/", cookie=f'prefs={{"a": 1, "b": 2}}; s=a b; bendscope_token_8765={PAGE_KEY}')
    assert (
        status == 200
        and headers["content-type"].startswith("text/html")
        and re.sub(rb'<meta name="bendscope-live" content="[0-9a-f]{16}">', b"", body)
        == (SITE / "index.html").read_bytes()
    )
    assert _ask(app, "/mcp", method="POST", query=f"token={TOKEN}")[0] == 401  # (only a GET takes it from the address)
    # the cookie opens the page and the graph, never the MCP endpoint (a host's cookies reach all its ports)
    assert _ask(app, "/api/graph", cookie=f"bendscope_token_8765={PAGE_KEY}")[0] == 200
    assert _ask(app, "/mcp", method="POST", cookie=f"bendscope_token_8765={PAGE_KEY}")[0] == 401
    # a stale cookie from an earlier run does not lock the user out of the printed URL
    status, headers, _ = _ask(app, "/", query=f"token={TOKEN}", cookie="bendscope_token_8765=old-token-0123456789abc")
    assert status == 303 and PAGE_KEY in headers["set-cookie"]
    # the redirect stays on this server, whatever the path
    for path, location in (
        ("//evil.example", "/evil.example"),
        ("/a?b", "/a%3Fb"),
        ("/x\r\nX-Evil: 1", None),
        ("/€", "/%E2%82%AC"),
    ):
        status, headers, _ = _ask(app, path, query=f"token={TOKEN}")
        assert status == 303 and headers["location"].startswith("/") and not headers["location"].startswith("//")
        assert "\r" not in headers["location"] and (location is None or headers["location"] == location)


def test_the_site_is_served_and_nothing_else():
    app, _ = _app()
    status, headers, body = _ask(app, "/static/scene.js", **BEARER)
    assert (
        status == 200
        and headers["content-type"] == "text/javascript"
        and body == (SITE / "static/scene.js").read_bytes()
    )
    assert headers["x-content-type-options"] == "nosniff"
    for path in (
        "/Makefile",
        "/pyproject.toml",
        "/../README.md",
        "/static/../Makefile",
        "/.git/config",
        "/static/.hidden",
        "/py/bendscope/memory/core/service.py",
        "/py/bendscope/memory/",
        "/static/nothing-here.js",
        "/static",
        "/py/a\x00b",
        "/static/" + "x" * 300,
        "/py/bendscope/Memory/cli.py",
        "/static\\..\\Makefile",
    ):
        assert _ask(app, path, **BEARER)[0] == 404, path
        assert site_file(SITE, path) is None, path
    assert _ask(app, "/index.html", method="POST", **BEARER)[0] == 405
    status, headers, body = _ask(app, "/index.html", method="HEAD", **BEARER)
    assert status == 200 and body == b""
    assert int(headers["content-length"]) == len(live_page((SITE / "index.html").read_bytes(), "k" * 16))


def test_the_memory_is_served_as_an_editor_document():
    app, _ = _app()
    status, headers, body = _ask(app, "/api/graph", **BEARER)
    assert status == 200 and headers["content-type"] == "application/json" and headers["cache-control"] == "no-store"
    answer = json.loads(body)
    now = {"as_of": None, "known_at": None}
    assert answer["view"] == {"query": None, "shown": 1, "total": 1, "ended": 0, "time": now}
    (plane,) = answer["document"]["planes"]
    assert [n["id"] for n in plane["nodes"]] == ["revenue"]
    assert plane["nodes"][0]["text"] == "Revenue <b>grows</b>"  # (text, as stored: the page never makes it HTML)


def test_a_memory_larger_than_the_editor_opens_is_refused_with_a_reason(monkeypatch):
    from bendscope.memory.web import editor_site

    monkeypatch.setattr(editor_site, "LIVE_MAX_NODES", 0)
    app, _ = _app()
    status, _, body = _ask(app, "/api/graph", **BEARER)
    answer = json.loads(body)
    assert answer.pop("at").endswith("Z")  # (the memory's clock when it was read)
    assert status == 200 and answer == {
        "document": None,
        "view": {"query": None, "shown": 0, "total": 1},
        "cap": 0,
        "error": "this memory holds 1 nodes; the editor opens at most 0 at once: search to open a part",
    }


@pytest.mark.parametrize("token", ["short", "x" * 257, "has space in it 0123", "ünïcode-token-0123456789", ""])
def test_bad_tokens_are_refused_with_a_reason(token):
    with pytest.raises(InvalidInput, match="a token has 16 to 256 characters"):
        checked_token(token)


class _Served:
    """``python -m bendscope.memory serve --http 0 --editor`` in a process of its own."""

    def __init__(self, store: Path, *options: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), BENDSCOPE_MEMORY_STORE=str(store))
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        command = [sys.executable, "-m", "bendscope.memory", "serve", "--http", "0", "--editor", *options]
        self.proc = subprocess.Popen(command, env=env, stderr=self.log)
        deadline = time.monotonic() + 60
        while True:
            self.log.seek(0)
            match = re.search(rb"editor on http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_.~-]+)", self.log.read())
            if match:
                self.port, self.token = int(match.group(1)), match.group(2).decode()
                break
            assert self.proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def get(self, path: str, **headers: str) -> http.client.HTTPResponse:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request("GET", path, headers=headers)
        return connection.getresponse()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.log.close()


def test_the_real_server_serves_the_editor_behind_its_token(tmp_path):
    store = tmp_path / "m.sqlite3"
    document = {"nodes": [{"id": "a", "text": "A"}, {"id": "b", "text": "B"}], "edges": [{"a": "a", "b": "b"}]}
    (tmp_path / "doc.json").write_text(json.dumps(document))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), BENDSCOPE_MEMORY_STORE=str(store))
    subprocess.run(
        [sys.executable, "-m", "bendscope.memory", "import", str(tmp_path / "doc.json")], env=env, check=True
    )
    (tmp_path / "token").write_text(TOKEN + "\n")
    served = _Served(store, "--token-file", str(tmp_path / "token"))
    try:
        assert served.token == TOKEN
        assert served.get("/").status == 401
        assert served.get("/api/graph", Host="evil.example").status == 403
        redirect = served.get(f"/?token={TOKEN}")
        assert redirect.status == 303 and redirect.getheader("location") == "/"
        cookie = redirect.getheader("set-cookie").split(";")[0]
        page = served.get("/", Cookie=cookie)
        assert page.status == 200 and b"pyscript.toml" in page.read()
        graph = served.get("/api/graph", Authorization=f"Bearer {TOKEN}")
        assert graph.status == 200 and sorted(
            n["id"] for n in json.loads(graph.read())["document"]["planes"][0]["nodes"]
        ) == [
            "a",
            "b",
        ]
        assert served.get("/py/bendscope/memory/core/service.py", Cookie=cookie).status == 404
    finally:
        served.stop()


def test_the_cli_refuses_editor_options_without_http(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), BENDSCOPE_MEMORY_STORE=str(tmp_path / "m.sqlite3"))
    for options in (["--editor"], ["--token", TOKEN], ["--http", "0", "--token", "short"]):
        done = subprocess.run(
            [sys.executable, "-m", "bendscope.memory", "serve", *options],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode != 0 and ("need --http" in done.stderr or "a token has" in done.stderr), done.stderr


def test_a_link_inside_the_site_to_what_is_never_served_is_not_followed(tmp_path):
    site = tmp_path / "site"
    (site / "static").mkdir(parents=True)
    (site / ".git").mkdir()
    (site / ".git" / "config").write_text("secret")
    (site / "py" / "bendscope" / "memory").mkdir(parents=True)
    (site / "py" / "bendscope" / "memory" / "cli.py").write_text("server only")
    (site / "static" / "ok.js").write_text("1")
    (site / "static" / "git").symlink_to(site / ".git" / "config")
    (site / "static" / "mem").symlink_to(site / "py" / "bendscope" / "memory")
    assert site_file(site, "/static/ok.js") == (site / "static" / "ok.js").resolve()
    assert site_file(site, "/static/git") is None and site_file(site, "/static/mem/cli.py") is None


def test_after_the_whole_memory_the_page_gets_only_what_changed():
    """``/api/graph`` numbers the whole memory it sends; ``?since=V`` answers with the cards
    and edges new or changed since V and the ids of those gone — or the whole memory for a
    version this server does not hold."""
    memory = Memory(InMemoryStore())
    for node_id in ("a", "b", "c"):
        memory.store_node({"id": node_id, "content": f"Card {node_id}"})
    memory.store_edge({"id": "ab", "source_id": "a", "target_id": "b", "edge_type": "causal"})
    app = editor_app(lambda *a: None, memory, Admission(TOKEN, PORT), SITE)  # type: ignore[arg-type]
    first = json.loads(_ask(app, "/api/graph", **BEARER)[2])
    version = first["version"]
    assert json.loads(_ask(app, "/api/graph", **BEARER)[2])["version"] == version  # (nothing changed)
    memory.store_node({"id": "a", "content": "Card a, edited"})
    memory.store_node({"id": "d", "content": "Card d"})
    memory.delete_node("c")
    memory.delete_edge("ab")
    status, _, body = _ask(app, "/api/graph", query=f"since={version}", **BEARER)
    answer = json.loads(body)
    assert status == 200 and "document" not in answer and answer["version"] > version
    changes = answer["changes"]
    assert sorted(n["id"] for n in changes["nodes"]) == ["a", "d"] and changes["edges"] == []
    assert changes["removed_nodes"] == ["c"] and changes["removed_edges"] == ["ab"]
    assert next(n for n in changes["nodes"] if n["id"] == "a")["text"] == "Card a, edited"
    again = json.loads(_ask(app, "/api/graph", query=f"since={answer['version']}", **BEARER)[2])
    assert again["changes"] == {"since": answer["version"], "nodes": [], "edges": [], "removed_nodes": [],
                                "removed_edges": []}  # fmt: skip
    whole = json.loads(_ask(app, "/api/graph", query="since=999", **BEARER)[2])
    assert [n["id"] for n in whole["document"]["planes"][0]["nodes"]] == ["a", "b", "d"]
    assert _ask(app, "/api/graph", query="since=-1", **BEARER)[0] == 400


def test_a_page_behind_the_stores_deletions_horizon_gets_the_whole_view_compared(tmp_path):
    """The store keeps deletions for its last change numbers only: a page further behind is
    answered from the whole memory compared with its version (the deletions dropped from the
    store's table are in it), and its copy with the answer applied is the whole memory."""
    from bendscope.bend.live.delta import Remote, apply_to
    from bendscope.memory.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "m.sqlite3")
    memory = Memory(store)
    for k in range(8):
        memory.store_node({"id": f"n{k}", "content": f"Card {k}"})
    app = editor_app(lambda *a: None, memory, Admission(TOKEN, PORT), SITE)  # type: ignore[arg-type]
    first = json.loads(_ask(app, "/api/graph", **BEARER)[2])
    page = Remote.of_document(first["document"], first["version"])
    number = store.change_number()
    assert number is not None
    store.keep_deletions(2)
    for k in range(5):
        memory.delete_node(f"n{k}")
    memory.store_node({"id": "n7", "content": "Card 7, edited"})
    assert store.changed_since(number) is None  # (the first deletions are dropped from the store's table)
    answer = json.loads(_ask(app, "/api/graph", query=f"since={page.version}", **BEARER)[2])
    changes = answer["changes"]
    assert changes["removed_nodes"] == [f"n{k}" for k in range(5)] and [n["id"] for n in changes["nodes"]] == ["n7"]
    page = apply_to(page, changes, answer["version"])
    whole = json.loads(_ask(app, "/api/graph", **BEARER)[2])["document"]["planes"][0]
    assert page.nodes == {n["id"]: n for n in whole["nodes"]} and sorted(page.nodes) == ["n5", "n6", "n7"]
    memory.delete_node("n5")  # (a deletion since the version now held: told too)
    answer = json.loads(_ask(app, "/api/graph", query=f"since={answer['version']}", **BEARER)[2])
    assert answer["changes"]["removed_nodes"] == ["n5"] and "document" not in answer
    store.close()


def test_the_versions_kept_are_bounded():
    from bendscope.memory.web.deltas import ViewLog

    log = ViewLog(keep=2)
    docs = [{"planes": [{"nodes": [{"id": "a", "text": str(k)}], "edges": []}]} for k in range(4)]
    versions = [log.record(d) for d in docs]
    assert versions == [1, 2, 3, 4]
    assert log.changes_since(1, docs[3])[0] is None and log.changes_since(3, docs[3])[0] is not None
    with pytest.raises(ValueError):
        ViewLog(keep=0)


def test_a_namespaces_page_gets_only_its_own_changes_since_its_version():
    """Each namespace's page numbers its own versions: another namespace's views and writes in
    between neither evict its version nor appear among its changes."""
    memory = Memory(InMemoryStore())
    memory.within("alice").store_node({"id": "a1", "content": "Alice's fact"})
    memory.within("bob").store_node({"id": "b1", "content": "Bob's fact"})
    app = editor_app(lambda *a: None, memory, Admission(TOKEN, PORT), SITE)  # type: ignore[arg-type]

    def graph(query: str) -> dict:
        status, _, body = _ask(app, "/api/graph", query=query, **BEARER)
        assert status == 200, body
        return json.loads(body)

    alice = graph("namespace=alice")
    assert [n["id"] for n in alice["document"]["planes"][0]["nodes"]] == ["a1"]
    for k in range(70):  # (more views of another namespace than one log keeps versions: 64)
        memory.within("bob").store_node({"id": f"b{k + 2}", "content": f"Bob's fact {k}"})
        graph("namespace=bob")
    memory.within("alice").store_node({"id": "a2", "content": "Alice's second fact"})
    changes = graph(f"namespace=alice&since={alice['version']}")["changes"]
    assert [n["id"] for n in changes["nodes"]] == ["a2"] and changes["removed_nodes"] == []

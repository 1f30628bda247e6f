"""The editor served by the memory's HTTP server: the static site,
the memory as an editor document, and the admission every request passes.

``serve --http PORT --editor`` puts three things on one 127.0.0.1 origin: the MCP
endpoint (``/mcp``), the editor's static site (``/``: the same files as ``make serve``;
never ``py/bendscope/memory``, dotfiles or anything outside the site) and the page's API:

- ``GET /api/graph[?query=Q][&as_of=T][&known_at=T]`` and ``POST /api/view {"query", "node_ids",
  "as_of", "known_at"}``: ``{document, view: {query, shown, total, ended, time}, at}`` — the
  memory (or a view of it) as a Bendscope document, as ``export`` prints it, at a moment (now by
  default; ``timeline``); each card and edge says in ``data.memory.holds`` whether it holds then
  (with its ``valid_from``/``valid_until`` and ``recorded_at``/``recorded_until``; an edge also
  its ``source``), ``view.ended`` counts those that do not;
- the whole memory's answer carries a ``version``; ``GET /api/graph?since=V`` answers with only
  what changed since (``changes`` instead of ``document``; ``deltas``), or the whole document
  when this server no longer holds version V;
- ``GET /api/events``: a change stream; ``POST /api/write``: a person's edits (``page_writes``);
- the time control's (``timeline.time_request``): ``GET /api/history`` (when the memory
  changed; ``?id=`` one item's versions), ``POST /api/diff`` (two moments compared: cards,
  edges, loops closed and broken) and ``POST /api/loop`` (when a loop closed, and by whose edge);
- each of them, given ``?namespace=NAME``, reads and writes that namespace of the memory alone
  (``Memory.within``: the other namespaces' nodes are not there for it).

**Admission** (:class:`Admission`), before any of them:

- ``Host`` must name this server: ``127.0.0.1:PORT``, ``localhost:PORT`` or
  ``[::1]:PORT`` — a page of another site that rebinds its DNS name to 127.0.0.1 sends
  its own name and is refused (403);
- ``Origin``, when a browser sends one, must be this server's own (403 otherwise), so
  no other page can make a browser write to the memory;
- the **token** (a random secret made at start, or given with ``--token`` / read from
  ``--token-file``): ``Authorization: Bearer <token>`` (MCP clients: the only way into
  ``/mcp``), or, for the page's own ``GET`` requests, ``?token=`` — answered with a redirect
  to the same address without it, setting a cookie named for this port
  (``bendscope_token_PORT``, ``HttpOnly``, ``SameSite=Strict``), so the secret leaves the
  address bar and the history — or that cookie. Browsers send one host's cookies to all its
  ports, so the cookie opens only the page and ``/api/graph``, never ``/mcp``; a token in the
  address is read before any cookie (a stale one from an earlier run cannot lock the user
  out). Missing or wrong: 401. Compared in constant time.

>>> admission = Admission("s3cret-token-0123456789", 8765)
>>> admission.check(_scope("/", host="127.0.0.1:8765", headers=[(b"authorization", b"Bearer s3cret-token-0123456789")]))
>>> admission.check(_scope("/", host="evil.example:8765"))
(403, 'this server answers only requests to 127.0.0.1:8765 or localhost:8765 (Host: evil.example:8765)')
>>> admission.check(_scope("/", host="localhost:8765"))[0]
401
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import mimetypes
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

import anyio

from ...shared.site import SITE, site_file
from ..core.errors import InvalidInput, NotFound, StoreUnavailable
from ..core.records import check_id
from ..core.service import Memory
from ..store.scoped import check_namespace
from .changes import ChangeFeed, change_source
from .deltas import UNMARKED, ViewLog
from .page_writes import Stale, check_body, write
from .since import answer_since
from .timeline import TIME_PATHS, Moment, mark_holding, marked_holding, moment_of, time_request

Asgi = Callable[[dict[str, Any], Any, Any], Awaitable[None]]

TOKEN_COOKIE = "bendscope_token"  # (+ "_PORT": one per server)
#: the paths the page may POST to with its cookie (and its own Origin)
WRITABLE = frozenset({"/api/write", "/api/view", "/api/diff", "/api/loop"})
#: the most cards the page opens a whole memory with; above, it opens a query's subgraph
LIVE_MAX_NODES = 3_000
#: the most ids a view may keep
MAX_VIEW_IDS = 20_000
#: the largest body ``/api/write`` and ``/api/view`` read (bytes)
MAX_WRITE_BODY = 32 * 1024 * 1024
#: seconds between keep-alive comments on an idle event stream
HEARTBEAT_S = 15.0
#: a token: at least 16 and at most 256 URL-safe characters
TOKEN_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")
TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".toml": "text/plain; charset=utf-8",
    ".py": "text/plain; charset=utf-8",
    ".whl": "application/zip",
    ".woff2": "font/woff2",
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}


def new_token() -> str:
    """A random token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def checked_token(token: str) -> str:
    """``token`` if it is one this server accepts, else InvalidInput saying why.

    >>> checked_token("short")
    Traceback (most recent call last):
    ...
    bendscope.memory.core.errors.InvalidInput: a token has 16 to 256 characters: letters, digits, - _ . ~ (got 5)
    """
    token = token.strip()
    if not 16 <= len(token) <= 256 or not set(token) <= TOKEN_ALPHABET:
        raise InvalidInput(f"a token has 16 to 256 characters: letters, digits, - _ . ~ (got {len(token)})")
    return token


def token_from_file(path: str) -> str:
    """The token kept in a file (its first line)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInput(f"--token-file {path}: cannot read it ({error})") from None
    return checked_token(text.splitlines()[0] if text.strip() else "")


def _scope(
    path: str, *, host: str, headers: list[tuple[bytes, bytes]] | None = None, query: str = ""
) -> dict[str, Any]:
    """An ASGI request scope (for the doctests and tests)."""
    return {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query.encode(),
        "headers": [(b"host", host.encode()), *(headers or [])],
    }


class Admission:
    """Who may ask this server anything: the Host, the Origin and the token (above)."""

    def __init__(self, token: str, port: int) -> None:
        self.token = checked_token(token).encode()
        self.port = port
        names = ("127.0.0.1", "localhost", "[::1]")
        self.hosts = frozenset(f"{name}:{port}".encode() for name in names)
        self.origins = frozenset(f"http://{name}:{port}".encode() for name in names)

    def _matches(self, given: bytes | None) -> bool:
        return given is not None and hmac.compare_digest(given, self.token)

    @property
    def page_key(self) -> bytes:
        """What the page's cookie holds: derived from the token, it opens the page and its
        ``/api/`` but not ``/mcp`` and never reveals the token — a cookie read by another
        server on this host (a host's cookies go to all its ports) still reads and writes
        the memory through ``/api/`` from outside a browser, but cannot act as an agent."""
        return hmac.new(self.token, b"bendscope page", "sha256").hexdigest().encode()

    @property
    def cookie(self) -> str:
        """The name of this server's cookie (one per port: a host's cookies go to all its ports)."""
        return f"{TOKEN_COOKIE}_{self.port}"

    def offered_token(self, scope: dict[str, Any]) -> tuple[bytes | None, str]:
        """The token a request offers and where: ``"bearer"``, ``"query"`` (a GET's
        ``?token=``, read before the cookie), ``"cookie"`` (the page's ``GET``/``HEAD``
        requests outside ``/mcp`` only), or (None, "")."""
        headers = dict(scope.get("headers") or [])
        authorization = headers.get(b"authorization", b"")
        if authorization[:7].lower() == b"bearer ":
            return authorization[7:].strip(), "bearer"
        path, method = scope.get("path", ""), scope.get("method")
        if path == "/mcp" or path.startswith("/mcp/"):
            return None, ""
        if method not in ("GET", "HEAD") and (path not in WRITABLE or headers.get(b"origin") is None):
            return None, ""  # (a cookie writes only with the page's own Origin: checked in check)
        if method == "GET":
            for key, value in parse_qsl(scope.get("query_string", b"").decode("latin-1")):
                if key == "token":
                    return value.encode("latin-1"), "query"
        found = cookie_value(headers.get(b"cookie", b""), self.cookie.encode())
        return (found, "cookie") if found is not None else (None, "")

    def check(self, scope: dict[str, Any]) -> tuple[int, str] | None:
        """None if the request may go on, else (status, why)."""
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host")
        if host not in self.hosts:
            shown = "none" if host is None else host.decode("latin-1")[:200]
            return 403, (
                f"this server answers only requests to 127.0.0.1:{self.port} or localhost:{self.port} (Host: {shown})"
            )
        origin = headers.get(b"origin")
        if sum(1 for key, _ in scope.get("headers") or [] if key == b"origin") > 1:
            return 403, "a request has one Origin"
        if origin is not None and origin not in self.origins:
            return 403, f"requests from other sites are refused (Origin: {origin.decode('latin-1')[:200]})"
        offered, by = self.offered_token(scope)
        if offered is None:
            return 401, "this server needs its token: open the editor URL it printed, or send Authorization: Bearer"
        if not (hmac.compare_digest(offered, self.page_key) if by == "cookie" else self._matches(offered)):
            return 401, "wrong token"
        return None


def cookie_value(header: bytes, name: bytes) -> bytes | None:
    """The value of cookie ``name`` in a Cookie header, read leniently (other sites' cookies
    on the same host may not follow the RFC: they must not hide this one). O(header).

    >>> cookie_value(b'prefs={"a": 1, "b": 2}; session=a b; t_1=xyz', b"t_1")
    b'xyz'
    >>> cookie_value(b"t_10=abc", b"t_1") is None
    True
    """
    for part in header.split(b";"):
        key, sep, value = part.strip().partition(b"=")
        if sep and key.strip() == name:
            return value.strip().strip(b'"')
    return None


async def reply(
    send: Any, status: int, body: bytes, kind: str, *extra: tuple[bytes, bytes], head: bool = False
) -> None:
    """A whole response (``head``: its headers only, as to a HEAD request)."""
    headers = [
        (b"content-type", kind.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        (b"x-content-type-options", b"nosniff"),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


def check_site(site: Path) -> None:
    """Refuse to serve a site that cannot run: the page, or its vendored runtime, missing."""
    if not (site / "index.html").is_file():
        raise InvalidInput(f"--editor: the editor's site is not at {site} (serve from a clone of the repository)")
    if not (site / "static" / "vendor" / ".stamp").is_file():
        raise InvalidInput(
            f"--editor: the editor's runtime is not vendored in {site / 'static' / 'vendor'}: run `make vendor`"
        )


def memory_key(memory: Memory) -> str:
    """A name for this memory that stays the same across runs (its file, or its database and
    schema): the page keeps its card positions under it. Never the password."""
    store = memory.store
    where = getattr(store, "path", None) or f"{getattr(store, 'url', '')}#{getattr(store, 'schema', '')}"
    if getattr(store, "kind", "") == "memory":
        where = f"memory:{id(store)}"
    else:
        with contextlib.suppress(OSError, TypeError):
            where = str(Path(where).resolve()) if getattr(store, "kind", "") == "sqlite" else where
    return hashlib.sha256(f"{store.kind}:{where}".encode()).hexdigest()[:16]


def live_page(index: bytes, key: str) -> bytes:
    """index.html as this server serves it: a meta element tells the page it is live, and
    under which key it keeps this memory's layout (static servers serve the file as is).

    >>> live_page(b"<html><head><title>x</title></head></html>", "abc")
    b'<html><head><meta name="bendscope-live" content="abc"><title>x</title></head></html>'
    """
    return index.replace(b"<head>", f'<head><meta name="bendscope-live" content="{key}">'.encode(), 1)


def subgraph_ids(memory: Memory, matched: list[str] | None, cap: int, keep: list[str] | None = None) -> list[str]:
    """What a view opens, at most ``cap`` ids: the ``keep`` ids that still exist (what the
    page shows already: a view does not lose cards as the memory grows), then the ids a
    query ``matched`` (best first), then their neighbours. O(kept + matched + their edges)."""
    with memory.store.reading():
        ids: list[str] = []
        if keep:
            found_ids = memory.store.get_nodes(keep)
            ids = [i for i in dict.fromkeys(keep) if i in found_ids][:cap]
        if matched is None:
            return ids
        shown = set(ids)
        for node_id in matched:
            if len(ids) >= cap:
                return ids
            if node_id not in shown:
                ids.append(node_id)
                shown.add(node_id)
        for edge in sorted(memory.store.edges_touching(matched), key=lambda e: e.id):
            for end in (edge.source_id, edge.target_id):
                if len(ids) >= cap:
                    return ids
                if end not in shown:
                    ids.append(end)
                    shown.add(end)
    return ids


def too_large(total: int, cap: int, why: str) -> dict[str, Any]:
    """The answer for a memory the page cannot open whole: no document, the counts, and why."""
    return {"document": None, "view": {"query": None, "shown": 0, "total": total}, "cap": cap,
            "error": f"{why}: search to open a part"}  # fmt: skip


def graph_view(
    memory: Memory,
    query: str | None,
    cap: int | None = None,
    keep: list[str] | None = None,
    moment: Moment | None = None,
    log: ViewLog | None = None,
) -> tuple[int, dict[str, Any]]:
    """``/api/graph``'s and ``/api/view``'s answer: (status, JSON). Without a query or
    ``keep``, the whole memory when it holds at most ``cap`` nodes, else no document but the
    counts and why (the page then searches, or keeps what it shows: an answer, not an error);
    with them, that view (:func:`subgraph_ids`) and what it shows. ``at``: the memory's clock
    before the state was read (the page sends it back with its writes). The view is read in
    one snapshot (after the query's retrieval). ``moment``: the memory as it was then
    (``timeline``); every card and edge says whether it holds then (``data.memory.holds``),
    ``view.ended`` counts those that do not and ``view.time`` says the moment. ``log``: the
    whole memory's versions (``versioned``), whose records made last time are made again only
    where their node or edge changed (one document made at a time per log)."""
    if log is None:
        return _graph_view(memory, query, cap, keep, moment, None)
    with log.making:
        return _graph_view(memory, query, cap, keep, moment, log)


def _graph_view(
    memory: Memory,
    query: str | None,
    cap: int | None,
    keep: list[str] | None,
    moment: Moment | None,
    log: ViewLog | None,
) -> tuple[int, dict[str, Any]]:
    cap = LIVE_MAX_NODES if cap is None else cap
    moment = moment or Moment()
    times = {"known_at": moment.known_at, "as_of": moment.as_of}
    matched = None
    if query is not None:
        found = memory.retrieve_context({"query": query, "limit": 50, **times}, record=False, gather=True)
        matched = list(dict.fromkeys(r["id"] for r in found["results"]))
    with memory.store.reading():
        at = memory.clock()
        total, _ = memory.store.counts()
        number = memory.store.change_number() if log is not None and moment.live else None
        if query is None and keep is None:
            if total > cap:
                why = f"this memory holds {total:,} nodes; the editor opens at most {cap:,} at once"
                return 200, {**too_large(total, cap, why), "at": at}
            try:
                document = memory.export_document(
                    {"known_at": moment.known_at}, reuse=None if log is None else log.made[0]
                )
            except InvalidInput as error:  # (more edges than a document holds)
                return 200, {**too_large(total, cap, str(error)), "at": at}
            shown = len(document["planes"][0]["nodes"])
            view: dict[str, Any] = {"query": None, "shown": shown, "total": shown if moment.known_at else total}
        else:
            ids = subgraph_ids(memory, matched, cap, keep)
            document = memory.export_document({"node_ids": ids, "known_at": moment.known_at})
            view = {"query": query, "shown": len(document["planes"][0]["nodes"]), "total": total}
    when = moment.valid_time(at)
    if log is not None and query is None and keep is None:  # (records shared with those served before)
        view["ended"] = marked_holding(document, when, log.made[1])
        log.pending = (number, when, view["ended"])
    else:
        view["ended"] = mark_holding(document, when)
    view["time"] = moment.to_dict()
    return 200, {"document": document, "view": view, "at": at}


def versioned(answer: dict[str, Any], log: ViewLog, since: int | None) -> dict[str, Any]:
    """The whole memory's answer with its ``version`` — and, ``since`` a version ``log`` still
    holds, with only what changed since in place of the document (``deltas``). O(n + m)."""
    document = answer.get("document")
    if document is None:
        return answer
    mark, log.pending = log.pending, UNMARKED
    if since is None:
        return {**answer, "version": log.record(document, mark)}
    changes, version = log.changes_since(since, document, mark)
    if changes is None:
        return {**answer, "version": version}
    return {**{k: v for k, v in answer.items() if k != "document"}, "changes": changes, "version": version}


def graph_answer(
    memory: Memory, query: str | None, moment: Moment, log: ViewLog | None, since: int | None
) -> tuple[int, dict[str, Any]]:
    """``GET /api/graph``'s answer (:func:`graph_view`), ``versioned`` by ``log`` (one log of
    versions per namespace, for the memory now) — in one worker thread's run. ``since`` a
    version the log holds: read from the store's change numbers (``since.answer_since``) when
    it numbers them, else from the whole document compared."""
    if log is None:
        return graph_view(memory, query, None, None, moment, None)
    with log.making:
        if since is not None and query is None and moment.live:
            answer = answer_since(memory, log, since, LIVE_MAX_NODES)
            if answer is not None:
                return 200, answer
        status, answer = _graph_view(memory, query, None, None, moment, log)
        if status == 200:
            answer = versioned(answer, log, since)
        return status, answer


def since_of(text: str | None) -> int | None:
    """``?since=``'s version, or None. InvalidInput for anything but a whole number.

    >>> since_of("12"), since_of(None)
    (12, None)
    """
    if text is None:
        return None
    if not text.isdigit() or len(text) > 18:
        raise InvalidInput(f"since must be a version number, got {text[:40]!r}")
    return int(text)


async def events(feed: ChangeFeed, receive: Any, send: Any, stopping: Callable[[], bool]) -> None:
    """``/api/events``: a Server-Sent Events stream with one ``change`` event (its data the
    feed's mark) each time the memory may have changed, one at once to begin with, and a
    comment every HEARTBEAT_S while nothing happens. Ends when the client goes or the server stops."""
    event = feed.listen()
    if event is None:
        await reply(send, 503, b"too many pages listen to this memory", "text/plain; charset=utf-8")
        return
    gone = anyio.Event()

    async def watch_client() -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                gone.set()
                return

    headers = [
        (b"content-type", b"text/event-stream; charset=utf-8"),
        (b"cache-control", b"no-store"),
        (b"x-content-type-options", b"nosniff"),
    ]
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(watch_client)
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send(
                {
                    "type": "http.response.body",
                    "body": f"retry: 1000\nevent: change\ndata: {feed.mark}\n\n".encode(),
                    "more_body": True,
                }
            )
            quiet = 0.0
            while not gone.is_set() and not stopping():
                with anyio.move_on_after(1.0):
                    await event.wait()
                if event.is_set():
                    event.clear()
                    quiet = 0.0
                    chunk = f"event: change\ndata: {feed.mark}\n\n".encode()
                else:
                    quiet += 1.0
                    if quiet < HEARTBEAT_S:
                        continue
                    quiet = 0.0
                    chunk = b": still here\n\n"
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            group.cancel_scope.cancel()
        if not gone.is_set():
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:  # (a client that went is seen by watch_client: uvicorn's send then does nothing)
        feed.leave(event)


def within(memory: Memory, scope: dict[str, Any]) -> Memory:
    """The memory a request of the page reads and writes: one namespace of it when the address
    says ``?namespace=`` (``Memory.within``), else all of it.

    >>> within(object(), {"query_string": b"query=x"}).__class__.__name__
    'object'
    """
    asked = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
    namespace = asked.get("namespace")
    return memory.within(check_namespace(namespace)) if namespace else memory


def checked_view(body: bytes) -> tuple[str | None, list[str], Moment]:
    """The query, the ids and the moment (``as_of``, ``known_at``) a ``POST /api/view`` asks for
    (InvalidInput naming what is wrong).

    >>> checked_view(b'{"query": "market share", "node_ids": ["a", "b"]}')
    ('market share', ['a', 'b'], Moment(as_of=None, known_at=None))
    >>> checked_view(b'{"node_ids": "a"}')
    Traceback (most recent call last):
    ...
    bendscope.memory.core.errors.InvalidInput: node_ids must be a list of at most 20,000 ids
    """
    from bendscope.shared.jsonsafe import Refused, loads

    try:
        value = loads(body.decode("utf-8"), max_depth=8, max_digits=30)
    except (UnicodeDecodeError, Refused) as exc:
        raise InvalidInput(f"the body is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidInput('the body must be {"query": text or null, "node_ids": [...]}')
    query = value.get("query")
    if query is not None and (not isinstance(query, str) or not query.strip() or len(query) > 1_000):
        raise InvalidInput("query must be some text (at most 1,000 characters), or null")
    ids = value.get("node_ids", [])
    if not isinstance(ids, list) or len(ids) > MAX_VIEW_IDS:
        raise InvalidInput(f"node_ids must be a list of at most {MAX_VIEW_IDS:,} ids")
    at = moment_of({k: value.get(k) for k in ("as_of", "known_at")}, "view")
    return query, [check_id(i, f"node_ids[{k}]") for k, i in enumerate(ids)], at


async def read_body(receive: Any, limit: int) -> bytes | None:
    """A request's whole body, or None past ``limit`` bytes."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        size += len(message.get("body", b""))
        if size > limit:
            return None
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(parts)


def editor_app(
    mcp: Asgi,
    memory: Memory,
    admission: Admission,
    site: Path = SITE,
    *,
    editor: bool = True,
    feed: ChangeFeed | None = None,
    stopping: Callable[[], bool] = lambda: False,
) -> Asgi:
    """The server's whole ASGI app: admission, then ``/mcp`` → ``mcp``; with ``editor``
    also the site (its index.html marked live), ``/api/graph``, ``/api/events`` (the
    ``feed``) and ``POST /api/write`` (else 404 for anything but ``/mcp``)."""
    key = memory_key(memory)
    logs: dict[str, ViewLog] = {}  # (by namespace; the whole memory's is "")
    if editor and feed is None:
        feed = ChangeFeed(change_source(memory.store))
    text = "text/plain; charset=utf-8"

    async def api(scope: dict[str, Any], receive: Any, send: Any) -> None:
        path, method = scope["path"], scope["method"]
        try:
            scoped = within(memory, scope)
        except InvalidInput as error:
            await reply(send, 400, _json({"error": str(error)}), "application/json")
            return
        if path == "/api/write":
            if method != "POST":
                await reply(send, 405, b"POST the operations here", text, (b"allow", b"POST"))
                return
            body = await read_body(receive, MAX_WRITE_BODY)
            if body is None:
                await reply(send, 413, f"a write is at most {MAX_WRITE_BODY:,} bytes".encode(), text)
                return
            try:
                ops = check_body(body)
                answer = await anyio.to_thread.run_sync(write, scoped, ops)
            except Stale as error:
                answer = {"error": str(error), "stale": True, "ids": error.ids}
                await reply(send, 409, _json(answer), "application/json")
                return
            except InvalidInput as error:  # (the same refusals as the MCP tools)
                await reply(send, 400, _json({"error": str(error)}), "application/json")
                return
            except StoreUnavailable as error:
                await reply(send, 503, _json({"error": str(error)}), "application/json")
                return
            await reply(send, 200, _json(answer), "application/json")
            return
        if path in TIME_PATHS:
            wanted = TIME_PATHS[path]
            if method != wanted and not (wanted == "GET" and method == "HEAD"):
                await reply(send, 405, f"{wanted} here".encode(), text, (b"allow", wanted.encode()))
                return
            body = await read_body(receive, MAX_WRITE_BODY) if method == "POST" else b""
            params = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            params.pop("namespace", None)  # (said by the scoped memory)
            try:
                if body is None:
                    raise InvalidInput(f"a request is at most {MAX_WRITE_BODY:,} bytes")
                status, answer = await anyio.to_thread.run_sync(time_request, scoped, path, params, body)
            except InvalidInput as error:  # (a NotFound too: an id the memory never held)
                status, answer = 404 if isinstance(error, NotFound) else 400, {"error": str(error)}
            except StoreUnavailable as error:
                status, answer = 503, {"error": str(error)}
            await reply(send, status, _json(answer), "application/json", head=method == "HEAD")
            return
        if path == "/api/view":
            if method != "POST":
                await reply(send, 405, b'POST {"query", "node_ids"} here', text, (b"allow", b"POST"))
                return
            body = await read_body(receive, MAX_WRITE_BODY)
            try:
                if body is None:
                    raise InvalidInput(f"a view is asked in at most {MAX_WRITE_BODY:,} bytes")
                query, keep, at = checked_view(body)
                status, answer = await anyio.to_thread.run_sync(graph_view, scoped, query, None, keep, at)
            except InvalidInput as error:
                status, answer = 400, {"error": str(error)}
            except StoreUnavailable as error:
                status, answer = 503, {"error": str(error)}
            await reply(send, status, _json(answer), "application/json")
            return
        if method not in ("GET", "HEAD"):
            await reply(send, 405, b"only GET here", text, (b"allow", b"GET, HEAD"))
            return
        if path == "/api/events" and feed is not None:
            if method != "GET":
                await reply(send, 405, b"GET the event stream", text, (b"allow", b"GET"))
                return
            await events(feed, receive, send, stopping)
            return
        if path == "/api/graph":
            asked = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            query = asked.get("query")
            if query is not None and not query.strip():
                query = None
            try:
                at = moment_of({k: asked.get(k) or None for k in ("as_of", "known_at")}, "graph")
                since = since_of(asked.get("since"))
                log = logs.setdefault(asked.get("namespace") or "", ViewLog()) if query is None and at.live else None
                status, answer = await anyio.to_thread.run_sync(graph_answer, scoped, query, at, log, since)
            except InvalidInput as error:
                status, answer = 400, {"error": str(error)}
            except StoreUnavailable as error:
                status, answer = 503, {"error": str(error)}
            await reply(send, status, _json(answer), "application/json", head=method == "HEAD")
            return
        await reply(send, 404, b"not found", text)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await mcp(scope, receive, send)
            return
        if scope["type"] != "http":  # (no websockets here)
            return
        refused = admission.check(scope)
        if refused is not None:
            status, why = refused
            await reply(send, status, why.encode(), text)
            return
        path, method = scope["path"], scope["method"]
        if path == "/mcp" or path.startswith("/mcp/"):
            await mcp(scope, receive, send)
            return
        if not editor:
            await reply(send, 404, b"not found: this server serves MCP at /mcp", text)
            return
        _, offered_by = admission.offered_token(scope)
        if offered_by == "query":  # (the token leaves the address: a cookie carries the page's key from now on)
            kept = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1")) if k != "token"]
            location = "/" + quote(path.lstrip("/"), safe="/") + ("?" + urlencode(kept) if kept else "")
            cookie = f"{admission.cookie}={admission.page_key.decode()}; HttpOnly; SameSite=Strict; Path=/"
            await reply(
                send,
                303,
                b"",
                "text/plain",
                (b"location", location.encode("latin-1")),
                (b"set-cookie", cookie.encode()),
            )
            return
        if path.startswith("/api/"):
            await api(scope, receive, send)
            return
        if method not in ("GET", "HEAD"):
            await reply(send, 405, b"only GET here", text, (b"allow", b"GET, HEAD"))
            return
        found = site_file(site, path)
        if found is None:
            await reply(send, 404, b"not found", text)
            return
        try:
            data = await anyio.to_thread.run_sync(found.read_bytes)
        except OSError:  # (gone or unreadable since it was found)
            await reply(send, 404, b"not found", text)
            return
        if found == (site / "index.html").resolve():
            data = live_page(data, key)
        kind = TYPES.get(found.suffix) or mimetypes.guess_type(found.name)[0] or "application/octet-stream"
        await reply(send, 200, data, kind, head=method == "HEAD")

    return app


def _json(value: Any) -> bytes:
    """JSON bytes (text that is not valid Unicode — an unpaired surrogate quoted back in a
    message — is escaped, never an error)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, sort_keys=True).encode()

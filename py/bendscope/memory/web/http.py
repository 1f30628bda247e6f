"""MCP over streamable HTTP on 127.0.0.1, with every resource a client can hold bounded.

uvicorn serves the SDK's streamable HTTP app; on top of its defaults this transport keeps:

- **a header and a body deadline**: a connection that has not sent a whole request head
  within ``header_timeout`` seconds of connecting (or of its last response), or a whole
  body within ``body_timeout`` of its head, is closed — a slow client trickling bytes
  holds a connection for seconds, not for ever. A response being streamed (an SSE
  stream) is never cut: the deadlines only watch what the client still owes.
- **a cap on connections**: past ``max_connections`` open at once, a new connection is
  closed as soon as it is accepted (before it can hold a descriptor), and uvicorn answers
  503 to requests past the same number of tasks; so thousands of slow clients cannot
  exhaust the process's file descriptors and stop it accepting.
- **a cap on sessions, and idle sessions expired**: at most ``max_sessions`` MCP sessions
  are open (the SDK refuses more), and one without a request for ``session_idle``
  seconds is closed, so abandoned sessions give their memory back.
- **a write deadline, and a cap on unsent answers**: a connection whose answer the client
  does not read (the socket's buffer stays full for ``body_timeout`` seconds) is closed,
  and while more than ``MAX_UNSENT`` bytes of answers wait unread in all connections
  together, new requests are answered 503 — so clients that never read cannot make the
  process hold gigabytes.
- **no standalone event stream**: this server sends nothing unasked, so ``GET /mcp``
  (an SSE stream for server-initiated messages) is answered 405, as the MCP transport
  allows; idle streams therefore cannot hold every connection.
- request heads of at most 64 KiB (h11's limit on a head that arrives in pieces; a head
  read in one piece may be somewhat larger, up to uvicorn's read size), and the SDK's body
  limit.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import h11
import uvicorn
from mcp.shared.dispatcher import coerce_request_id
from uvicorn.protocols.http.h11_impl import H11Protocol

from bendscope.shared.jsonsafe import Refused, loads

from ...shared.site import SITE
from ..core.errors import InvalidInput
from ..core.service import Memory
from ..mcp.server import build_server
from .changes import ChangeFeed, change_source
from .editor_site import Admission, check_site, editor_app, new_token
from .limits import Limits

#: the largest request head accepted (bytes)
MAX_HEAD = 64 * 1024
#: bytes of answers waiting unread in all connections together past which new requests get 503
MAX_UNSENT = 256 * 1024 * 1024
#: request bodies up to this size have their ids checked (the SDK refuses larger ones: 4 MiB)
MAX_CHECKED = 4 * 1024 * 1024


def _cancel(timer: asyncio.TimerHandle | None) -> None:
    """Cancel a deadline, if one is set."""
    if timer is not None:
        timer.cancel()


def guarded_protocol(limits: Limits) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the connection cap and the header and body deadlines."""

    live: set[H11Protocol] = set()  # every open connection of this server

    class Guarded(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _write_deadline: asyncio.TimerHandle | None = None

        @staticmethod
        def unsent() -> int:
            """Bytes of answers written but not yet taken by the clients. O(connections)."""
            return sum(p.transport.get_write_buffer_size() for p in live if not p.transport.is_closing())

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                transport.abort()  # refused at once: no descriptor held, nothing logged per connection
                return
            live.add(self)
            self._arm(limits.header_timeout)

        def connection_lost(self, exc: Exception | None) -> None:
            live.discard(self)
            self._disarm()
            self._disarm_write()
            super().connection_lost(exc)

        def pause_writing(self) -> None:
            super().pause_writing()  # the socket's buffer is full: the client must read now
            self._disarm_write()
            self._write_deadline = self.loop.call_later(limits.body_timeout, self._not_reading)

        def resume_writing(self) -> None:
            super().resume_writing()
            self._disarm_write()

        def _disarm_write(self) -> None:
            _cancel(self._write_deadline)
            self._write_deadline = None

        def _not_reading(self) -> None:
            self._write_deadline = None
            if not self.transport.is_closing():
                self.transport.abort()  # the answer is dropped with the connection: its memory is freed

        def handle_events(self) -> None:
            before = self.conn.their_state
            super().handle_events()
            state = self.conn.their_state
            if state is h11.SEND_BODY and before is not h11.SEND_BODY:
                self._arm(limits.body_timeout)  # the head is in: now the body is owed
            elif state is not h11.IDLE and state is not h11.SEND_BODY:
                self._disarm()  # the request is in (or the connection is done with)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm(limits.header_timeout)  # the next request's head is owed

        def _arm(self, seconds: float) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _disarm(self) -> None:
            _cancel(self._deadline)
            self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
                self.transport.abort()

    return Guarded


Asgi = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def gate(app: Asgi, unsent: Callable[[], int]) -> Asgi:
    """``app`` behind the two refusals this transport adds: ``GET`` (no standalone event
    stream: 405) and any request while too many answers wait unread (503)."""

    async def reply(send: Any, status: int, body: bytes, kind: bytes, *extra: tuple[bytes, bytes]) -> None:
        headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode()), *extra]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def gated(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        method = scope["method"]
        text = b"text/plain; charset=utf-8"
        if method == "GET":
            body = b"this server sends nothing unasked: no event stream (POST requests, DELETE sessions)"
            await reply(send, 405, body, text, (b"allow", b"POST, DELETE"))
            return
        if method != "DELETE" and unsent() > MAX_UNSENT:  # (ending a session frees what it holds: let it in)
            body = b"too many answers are waiting for their clients to read them: try again shortly"
            await reply(send, 503, body, text)
            return
        if method == "POST":
            data, receive = await _buffered(receive)
            bad = None if data is None else request_ids(data)[0]
            if bad is not None:
                error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": bad}}
                await reply(send, 400, json.dumps(error).encode(), b"application/json")
                return
        await app(scope, receive, send)

    return gated


async def _buffered(receive: Any) -> tuple[bytes | None, Any]:
    """A request's body read whole (None past MAX_CHECKED bytes: the SDK refuses it), and a
    ``receive`` that gives the app the same messages again. O(body)."""
    messages: list[dict[str, Any]] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        size += len(message.get("body", b""))
        if size > MAX_CHECKED or not message.get("more_body", False):
            break
    replay = iter(messages)

    async def again() -> Any:
        return next(replay, None) or await receive()

    whole = size <= MAX_CHECKED and messages[-1]["type"] == "http.request" and not messages[-1].get("more_body")
    return (b"".join(m.get("body", b"") for m in messages) if whole else None), again


def request_ids(body: bytes) -> tuple[str | None, set[int | str]]:
    """A POSTed body's request ids, read once: why one is not an id MCP allows (a string or
    an integer; the SDK took ``{"id": null, "method": …}`` for a notification and answered
    202 with no reply, where stdio answers -32600), else None; and the ids ("7" and 7 are
    one id, as to the SDK). A body that is not JSON gives (None, set()): the SDK answers it.

    >>> request_ids(b'{"jsonrpc":"2.0","id":null,"method":"ping"}')[0]
    'Invalid request: the id must be a string or an integer, got null'
    >>> request_ids(b'{"jsonrpc":"2.0","id":7,"method":"ping"}')[0] is None
    True
    >>> sorted(request_ids(b'[{"id": "7", "method": "a"}, {"id": 8, "method": "b"}, {"method": "c"}]')[1])
    [7, 8]
    """
    try:
        value = loads(body.decode("utf-8"), max_depth=128, max_digits=100)
    except (UnicodeDecodeError, Refused):
        return None, set()
    found: set[int | str] = set()
    for message in value if isinstance(value, list) else [value]:
        if not (isinstance(message, dict) and "method" in message and "id" in message):
            continue
        given = message["id"]
        if isinstance(given, bool) or not isinstance(given, (int, str)):
            kind = "null" if given is None else "a boolean" if isinstance(given, bool) else type(given).__name__
            kind = {"float": "a number written as a fraction (1.5, 7.0)", "dict": "an object", "list": "a list"}.get(
                kind, kind
            )
            return f"Invalid request: the id must be a string or an integer, got {kind}", set()
        found.add(coerce_request_id(given))
    return None, found


class OncePer(logging.Filter):
    """Let a log message through once per ``seconds`` (the SDK warns once per refused
    session: thousands of lines a second under a flood); the next one says how many were
    held back."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = str(record.msg)
        now = time.monotonic()
        if now - self._last.get(key, -1e18) < self.seconds:
            self._held[key] = self._held.get(key, 0) + 1
            return False
        self._last[key] = now
        held = self._held.pop(key, 0)
        if held:
            record.msg = f"{record.msg} (and {held} more like it in the last {self.seconds:g} s)"
        return True


def serve_http(
    memory: Memory,
    port: int,
    *,
    host: str = "127.0.0.1",
    ready: Any = None,
    limits: Limits | None = None,
    token: str | None = None,
    editor: bool = False,
    site: Path = SITE,
) -> None:
    """Serve streamable HTTP at http://host:port/mcp (127.0.0.1 only). ``port`` 0 picks a
    free port; the URL is printed on stderr once listening (and passed to ``ready``).

    With a ``token`` every request must carry it (``editor_site.Admission``: the token, and
    Host and Origin naming this server); ``editor`` also serves the editor's site and
    ``/api/graph`` on the same origin (a token is made when none is given) and prints
    ``editor on <URL>``."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise InvalidInput("the HTTP transport listens on 127.0.0.1 only")
    limits = (limits or Limits()).check()
    if editor:
        check_site(site)
        token = token or new_token()
    protocol = guarded_protocol(limits)

    def busy() -> str | None:
        waiting = protocol.unsent()  # type: ignore[attr-defined]
        if waiting <= MAX_UNSENT:
            return None
        return f"the server is busy: {waiting / 1e6:.0f} MB of answers wait for their clients to read them; try again"

    server = build_server(memory, busy)
    app = gate(
        server.streamable_http_app(
            host=host, session_idle_timeout=limits.session_idle, max_sessions=limits.max_sessions
        ),
        protocol.unsent,  # type: ignore[attr-defined]
    )
    logging.getLogger("mcp.server.streamable_http_manager").addFilter(OncePer(10.0))
    sock = socket.socket(socket.AF_INET6 if host == "::1" else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(limits.max_connections)  # (listening before the URL is printed: a client may connect at once)
    bound = sock.getsockname()[1]
    named = f"[{host}]" if ":" in host else host
    url = f"http://{named}:{bound}/mcp"
    feed = ChangeFeed(change_source(memory.store)) if editor else None
    if token is not None:
        app = editor_app(
            app, memory, Admission(token, bound), site, editor=editor, feed=feed, stopping=lambda: http.should_exit
        )
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        http=protocol,
        # (uvicorn answers 503 from this many connections or tasks on; the connections are capped
        # by the protocol at max_connections, so this bounds the tasks)
        limit_concurrency=limits.max_connections + 1,
        h11_max_incomplete_event_size=MAX_HEAD,
        backlog=limits.max_connections,
    )
    http = uvicorn.Server(config)

    async def run() -> None:
        print(f"serving MCP on {url}", file=sys.stderr, flush=True)
        if editor:
            print(f"editor on http://{named}:{bound}/?token={token}", file=sys.stderr, flush=True)
        if ready is not None:
            ready(url)
        await http.serve(sockets=[sock])

    try:
        anyio.run(run)
    finally:
        if feed is not None:
            feed.close()

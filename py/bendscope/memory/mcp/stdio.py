"""MCP over stdin and stdout where every line gets an answer.

The SDK's stdio transport drops a line it cannot read — not JSON, not JSON-RPC, a lone
surrogate, nesting past its parser's limit, a number of thousands of digits — without a
reply, so the client waits forever. This transport reads each line itself (``examine``):
a line that is not JSON gets the JSON-RPC 2.0 parse error (-32700), JSON that is not a
JSON-RPC message, or is past a limit, gets "invalid request" (-32600) with the line's id
when one can be read; a valid message goes to the server, which answers it (a tool refuses
a lone surrogate in its arguments with a clear tool error). Blank lines are skipped.

As the SDK's transport does, it keeps the wire to itself while it serves: fd 0 reads the
null device and fd 1 writes to stderr, so a stray ``print`` or a child process never
corrupts the stream; both are restored at the end.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import IO, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from bendscope.shared.jsonsafe import Refused, loads

#: bytes of one message (a longer line is refused, and read no further than its end)
MAX_LINE = 16 * 1024 * 1024
#: JSON nesting of one message (tool arguments nest a few levels)
MAX_DEPTH = 100
#: digits of an integer literal (an id, a limit: never more than a few)
MAX_DIGITS = 100
#: seconds the requests under way may take to be answered once the client closed stdin
EOF_GRACE_S = 60.0
_SURROGATE = re.compile("[\ud800-\udfff]")
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\]|\\.){0,200}")')


@dataclass(frozen=True)
class Reply:
    """The error reply a line gets instead of reaching the server."""

    id: int | str | None
    code: int
    message: str

    def encode(self) -> bytes:
        error = {"code": self.code, "message": self.message}
        return json.dumps({"jsonrpc": "2.0", "id": self.id, "error": error}, ensure_ascii=False).encode() + b"\n"


def _id_of(value: Any) -> int | str | None:
    """The id of a parsed message when it is one JSON-RPC allows (a string or an integer;
    not a string with a lone surrogate, which no reply could carry)."""
    found = value.get("id") if isinstance(value, dict) else None
    if isinstance(found, bool) or not isinstance(found, (int, str)):
        return None
    if isinstance(found, str) and _SURROGATE.search(found):
        return None
    return found


def _id_in(line: bytes) -> int | str | None:
    """The id of a message that cannot be parsed in full, when one stands plainly in its
    first 4 KiB at the top level (an ``"id"`` inside the arguments is not the message's)."""
    head = line[:4096]
    for match in _ID.finditer(head):
        if _depth_at(head, match.start()) != 1:
            continue
        with suppress(ValueError):
            value = json.loads(match.group(1))
            if isinstance(value, (int, str)) and not (isinstance(value, str) and _SURROGATE.search(value)):
                return value
        return None
    return None


def _depth_at(text: bytes, end: int) -> int:
    """The bracket depth of JSON ``text`` at offset ``end`` (brackets in strings ignored). O(end)."""
    depth, inside, escaped = 0, False, False
    for byte in text[:end]:
        if inside:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                inside = False
        elif byte == 0x22:
            inside = True
        elif byte in (0x7B, 0x5B):
            depth += 1
        elif byte in (0x7D, 0x5D):
            depth -= 1
    return depth


def examine(line: bytes) -> types.JSONRPCMessage | Reply | None:
    r"""What one line of the wire is: a message for the server, the reply it gets instead,
    or None (a blank line). O(len(line)).

    >>> examine(b'hello')
    Reply(id=None, code=-32700, message='Parse error: not JSON: Expecting value (line 1, column 1)')
    >>> examine(b'{"id": 9, "method": "ping"}').code
    -32600
    >>> examine(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}').method
    'ping'
    """
    if not line.strip():
        return None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return Reply(_id_in(line), types.PARSE_ERROR, "Parse error: the line is not UTF-8 text")
    try:
        value = loads(text, max_depth=MAX_DEPTH, max_digits=MAX_DIGITS)
    except Refused as exc:
        if exc.syntax:
            return Reply(None, types.PARSE_ERROR, f"Parse error: {exc}")
        return Reply(_id_in(line), types.INVALID_REQUEST, f"Invalid request: {exc}")
    if isinstance(value, list):
        return Reply(None, types.INVALID_REQUEST, "Invalid request: batches (JSON arrays) are not supported by MCP")
    if not isinstance(value, dict):
        return Reply(None, types.INVALID_REQUEST, "Invalid request: a JSON-RPC message is a JSON object")
    if value.get("jsonrpc") != "2.0":
        return Reply(_id_of(value), types.INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"')
    if "id" in value and _id_of(value) is None and "method" in value:  # (else read as a notification)
        return Reply(
            None, types.INVALID_REQUEST, "Invalid request: an id is a string (valid Unicode) or an integer, never null"
        )
    method = value.get("method")
    if isinstance(method, str) and _SURROGATE.search(method):
        return Reply(_id_of(value), types.INVALID_REQUEST, "Invalid request: the method is not valid Unicode")
    try:
        return types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())[1:]) or "the message"
        return Reply(_id_of(value), types.INVALID_REQUEST, f"Invalid request: {where}: {first.get('msg', 'invalid')}")
    except RecursionError:
        return Reply(_id_of(value), types.INVALID_REQUEST, "Invalid request: nested too deeply")


class LineReader:
    """Lines from a file descriptor through ``os.read`` (no buffered file object, so that
    the end of serving never waits on a thread still blocked in a read)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()
        self._ended = False

    def readline(self, limit: int) -> bytes:
        """Up to and with the next newline, at most ``limit`` bytes; b"" at the end."""
        while True:
            cut = self._buffer.find(b"\n", 0, limit)
            if cut >= 0 or len(self._buffer) >= limit or self._ended:
                size = cut + 1 if cut >= 0 else min(limit, len(self._buffer))
                line = bytes(self._buffer[:size])
                del self._buffer[:size]
                return line
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                self._ended = True
            self._buffer += chunk


def read_line(stream: LineReader | IO[bytes], limit: int = MAX_LINE) -> tuple[bytes, bool]:
    """The next line (b"" at the end) and whether it was longer than ``limit`` bytes (then
    it is read to its end and dropped, never held). Blocking: run in a thread."""
    line = stream.readline(limit + 1)
    if len(line) <= limit or line.endswith(b"\n"):
        return line, False
    head = line[:4096]
    while line and not line.endswith(b"\n"):
        line = stream.readline(1 << 20)
    return head, True


@asynccontextmanager
async def _wire() -> AsyncIterator[tuple[LineReader | IO[bytes], IO[bytes]]]:
    """The process's stdin (lines) and stdout (a private file), fd 0 and 1 diverted meanwhile.
    The private copy of stdin stays open at the end: a reader thread may still be blocked in
    it (the process is ending; closing it under that thread could hand its number to another
    file)."""
    diverted: list[tuple[int, int]] = []
    try:
        try:
            wire_in, wire_out = os.dup(0), os.dup(1)
        except OSError:  # (no descriptors to divert: use the streams in place)
            yield sys.stdin.buffer, sys.stdout.buffer
            return
        with suppress(OSError):
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
            diverted.append((0, wire_in))
        with suppress(OSError):
            os.dup2(2, 1)
            diverted.append((1, wire_out))
        write = os.fdopen(wire_out, "wb", closefd=False)
        try:
            yield LineReader(wire_in), write
        finally:
            with suppress(OSError, ValueError):  # (a broken pipe: what is left unwritten is dropped)
                write.close()
    finally:
        for fd, wire in diverted:
            with suppress(OSError):
                os.dup2(wire, fd)
        for fd, wire in diverted:
            if fd == 1:
                with suppress(OSError):
                    os.close(wire)


@asynccontextmanager
async def stdio_transport(
    stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """The server's read and write streams over stdin/stdout (or the files given): every
    line examined, error replies written between the server's messages, never inside one."""
    async with _wire() if stdin is None or stdout is None else _given(stdin, stdout) as (wire_in, wire_out):
        to_server, from_wire = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        to_wire, from_server = anyio.create_memory_object_stream[SessionMessage](0)
        lock = anyio.Lock()

        async def send(data: bytes) -> None:
            async with lock:
                try:
                    await anyio.to_thread.run_sync(_write_all, wire_out, data)
                except OSError:  # the client is gone (a broken pipe): serving ends
                    tasks.cancel_scope.cancel()

        pending: set[int | str] = set()  # ids of requests passed on and not answered yet
        answered = anyio.Event()

        # lines are read by a daemon thread of our own (a worker thread of the event loop's
        # pool, blocked in a read, would keep the process alive after serving ends)
        to_lines, lines = anyio.create_memory_object_stream[tuple[bytes, bool]](0)
        token = anyio.lowlevel.current_token()

        def read_lines() -> None:
            try:
                while True:
                    item = read_line(wire_in)
                    anyio.from_thread.run(to_lines.send, item, token=token)
                    if not item[0]:
                        return
            except (RuntimeError, OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # (serving ended, or stdin cannot be read: the reader stops)

        threading.Thread(target=read_lines, name="bendscope-stdin", daemon=True).start()

        async def reader() -> None:
            nonlocal answered
            async with to_server, lines:
                while True:
                    line, too_long = await lines.receive()
                    if too_long:
                        message = f"Invalid request: the message is longer than {MAX_LINE:,} bytes"
                        await send(Reply(_id_in(line), types.INVALID_REQUEST, message).encode())
                        continue
                    if not line:
                        break
                    seen = examine(line)
                    if isinstance(seen, Reply):
                        await send(seen.encode())
                    elif seen is not None:
                        if isinstance(seen, types.JSONRPCRequest):
                            if coerce_request_id(seen.id) in pending:  # JSON-RPC: ids under way are unique
                                message = f"Invalid request: a request with id {seen.id!r} is still under way"
                                await send(Reply(seen.id, types.INVALID_REQUEST, message).encode())
                                continue
                            pending.add(coerce_request_id(seen.id))
                        elif isinstance(seen, types.JSONRPCNotification) and seen.method == "notifications/cancelled":
                            cancelled = (seen.params or {}).get("requestId")
                            if isinstance(cancelled, (int, str)) and not isinstance(cancelled, bool):
                                # a cancelled request gets no answer: none is awaited ("7" and 7 are one id
                                # to the SDK, as to the TypeScript one)
                                pending.discard(coerce_request_id(cancelled))
                                answered.set()
                                answered = anyio.Event()
                        await to_server.send(SessionMessage(seen))
                # the client closed its end: the requests under way still get their answers
                # (their writes commit either way), then the server's read stream ends
                with anyio.move_on_after(EOF_GRACE_S):
                    while pending:
                        await answered.wait()

        written = anyio.Event()

        async def writer() -> None:
            nonlocal answered
            try:
                async with from_server:
                    async for outgoing in from_server:
                        message = outgoing.message
                        await send(encode_message(message) + b"\n")
                        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
                            if message.id is not None:
                                pending.discard(coerce_request_id(message.id))
                            answered.set()
                            answered = anyio.Event()
            finally:
                written.set()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(reader)
            tasks.start_soon(writer)
            try:
                async with from_wire, to_wire:
                    yield from_wire, to_wire
                await written.wait()  # every message the server sent is on the wire
            finally:
                tasks.cancel_scope.cancel()  # (the reader may still wait for a line)


@asynccontextmanager
async def _given(stdin: IO[bytes], stdout: IO[bytes]) -> AsyncIterator[tuple[IO[bytes], IO[bytes]]]:
    yield stdin, stdout


def encode_message(message: types.JSONRPCMessage) -> bytes:
    """A message's JSON; one carrying a lone surrogate (echoed from a request) is written
    with it escaped (``\\ud800``) instead of failing the whole transport."""
    try:
        return message.model_dump_json(by_alias=True, exclude_unset=True).encode()
    except ValueError:  # (pydantic's serialization error is a ValueError)
        data = message.model_dump(mode="python", by_alias=True, exclude_unset=True)
        return json.dumps(data, ensure_ascii=True, default=str).encode()


def _write_all(stream: IO[bytes], data: bytes) -> None:
    stream.write(data)
    stream.flush()

"""Every line a client writes to the stdio server gets an answer: lines
that are not JSON, not JSON-RPC, lone surrogates, deep nesting, huge numbers, invalid
UTF-8 and overlong lines get the JSON-RPC 2.0 error reply (with the id where one can be
read), and a valid call after each is answered as usual — against the real server process."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import mcp_types as types
import pytest

from bendscope.memory.mcp.stdio import EOF_GRACE_S, MAX_DEPTH, MAX_LINE, Reply, examine

ROOT = Path(__file__).resolve().parents[3]

#: (line, expected code, expected id): what the report found unanswered, and more
BAD_LINES: list[tuple[bytes, int, object]] = [
    (b"hello", types.PARSE_ERROR, None),
    (b'{"id":9,"method":"ping"}', types.INVALID_REQUEST, 9),
    (b'{"jsonrpc":"2.0","id":"s-1","method":7}', types.INVALID_REQUEST, "s-1"),
    (b'{"jsonrpc":"2.0","id":10,"method":"ping","params":' + b"[" * 197 + b"]" * 197 + b"}", types.INVALID_REQUEST, 10),
    (b'{"jsonrpc":"2.0","id":11,"method":"ping","params":' + b"[" * 100_000, types.INVALID_REQUEST, 11),
    (b'{"jsonrpc":"2.0","id":12,"method":"ping","params":{"n":' + b"9" * 4301 + b"}}", types.INVALID_REQUEST, 12),
    (b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"ping"}', types.INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":13,"method":"ping","params":{"x":"\xff\xfe"}}', types.PARSE_ERROR, 13),
    (b'[{"jsonrpc":"2.0","id":14,"method":"ping"}]', types.INVALID_REQUEST, None),
    (b'"just a string"', types.INVALID_REQUEST, None),
    (b'{"jsonrpc":"1.0","id":15,"method":"ping"}', types.INVALID_REQUEST, 15),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', types.INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":16,"method":"ping","params":{"v":NaN}}', types.INVALID_REQUEST, 16),
    (b'{"jsonrpc":"2.0","id":17,"method":"ping"', types.PARSE_ERROR, None),
    # (review findings) a lone surrogate in the id or the method: no reply could carry it back
    (b'{"jsonrpc":"2.0","id":"\\ud800","method":7}', types.INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":18,"method":"\\ud800"}', types.INVALID_REQUEST, 18),
    # the message's own id, not one inside its arguments
    (
        b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"store_node",'
        b'"arguments":{"id":"n1","confidence":NaN}},"id":19}',
        types.INVALID_REQUEST,
        19,
    ),
]


@pytest.mark.parametrize(("line", "code", "id_"), BAD_LINES, ids=[str(i) for i in range(len(BAD_LINES))])
def test_each_bad_line_gets_an_error_reply(line, code, id_):
    seen = examine(line)
    assert isinstance(seen, Reply), seen
    assert (seen.code, seen.id) == (code, id_), seen
    reply = json.loads(seen.encode())
    assert reply == {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": seen.message}}


def test_valid_messages_pass_and_blank_lines_are_skipped():
    assert examine(b"   \r\n") is None
    call = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"retrieve_context","arguments":{}}}'
    assert isinstance(examine(call), types.JSONRPCRequest)
    note = examine(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert isinstance(note, types.JSONRPCNotification)
    # a lone surrogate is JSON: it reaches the server (whose tools refuse it with a tool error)
    lone = b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":{"q":"\\ud800"}}}'
    assert isinstance(examine(lone), types.JSONRPCRequest)
    nested = b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":' + b"[" * (MAX_DEPTH - 3) + b"]" * (MAX_DEPTH - 3)
    assert isinstance(examine(nested + b"}}"), types.JSONRPCRequest)


class Server:
    """The memory's stdio server as a process, spoken to line by line."""

    def __init__(self, store: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), BENDSCOPE_MEMORY_STORE=str(store))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bendscope.memory", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 20.0) -> dict:
        try:
            return json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            raise AssertionError("no reply: the client would wait forever") from None

    def call(self, request_id: int, method: str, params: dict | None = None) -> dict:
        message: dict = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode())
        return self.reply()

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code


def test_the_server_answers_every_line_and_goes_on(tmp_path):
    server = Server(tmp_path / "m.sqlite3")
    try:
        init = server.call(
            0,
            "initialize",
            {
                "protocolVersion": types.LATEST_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
        assert "result" in init, init
        server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        request_id = 100
        for line, code, id_ in BAD_LINES:
            server.send(line)
            reply = server.reply()
            assert reply["id"] == id_ and reply["error"]["code"] == code, (line[:80], reply)
            request_id += 1
            pong = server.call(request_id, "ping")
            assert pong == {"jsonrpc": "2.0", "id": request_id, "result": {}}, pong
        # a lone surrogate in tool arguments: a tool error naming it, not silence
        server.send(
            b'{"jsonrpc":"2.0","id":200,"method":"tools/call",'
            b'"params":{"name":"retrieve_context","arguments":{"query":"x\\ud800"}}}'
        )
        answer = server.reply()
        assert answer["id"] == 200 and answer["result"]["isError"] is True
        assert "surrogate" in answer["result"]["content"][0]["text"]
        # a tool name with a lone surrogate: a tool error, and the server goes on
        server.send(b'{"jsonrpc":"2.0","id":205,"method":"tools/call","params":{"name":"\\ud800","arguments":{}}}')
        odd = server.reply()
        assert odd["id"] == 205 and odd["result"]["isError"] is True
        # an unknown method: JSON-RPC's method-not-found, from the server itself
        unknown = server.call(201, "no/such/method")
        assert unknown["error"]["code"] == types.METHOD_NOT_FOUND
        # a line longer than the limit is refused without holding it, and the server goes on
        server.send(b'{"jsonrpc":"2.0","id":202,"method":"ping","params":{"p":"' + b"x" * (MAX_LINE + 10) + b'"}}')
        long = server.reply()
        assert (
            long["id"] == 202
            and long["error"]["code"] == types.INVALID_REQUEST
            and "longer than" in long["error"]["message"]
        )
        assert server.call(203, "ping")["result"] == {}
        stored = server.call(
            204, "tools/call", {"name": "store_node", "arguments": {"content": "the server still stores"}}
        )
        assert stored["result"]["structuredContent"]["status"] == "created"
    finally:
        code = server.close()
    assert code == 0


def test_requests_under_way_are_answered_after_the_client_closes_stdin(tmp_path):
    """(Review finding: at the end of input, replies to calls still running were dropped,
    though their writes committed.)"""
    server = Server(tmp_path / "m.sqlite3")
    _initialized(server)
    nodes = [{"content": f"fact {i}"} for i in range(2000)]
    server.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": "store_many", "arguments": {"nodes": nodes}}}).encode())  # fmt: skip
    code = server.close()
    answer = server.reply(timeout=5)
    assert answer["id"] == 1 and answer["result"]["structuredContent"]["status"] == "stored"
    assert code == 0


def test_a_client_that_stops_reading_ends_the_server(tmp_path):
    """(Review finding: with stdin still open, a broken stdout pipe left the server hanging.)"""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), BENDSCOPE_MEMORY_STORE=str(tmp_path / "m.sqlite3"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "bendscope.memory", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        proc.stdout.close()  # the client goes away without closing its end of stdin
        proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        proc.stdin.flush()
        code = proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        stderr = proc.stderr.read().decode()
        proc.stderr.close()
    assert code == 0 and "Traceback" not in stderr, stderr


def _initialized(server: Server) -> None:
    init = {
        "protocolVersion": types.LATEST_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    assert "result" in server.call(0, "initialize", init)
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')


def test_a_cancelled_request_does_not_keep_the_server_after_stdin_closes(tmp_path):
    """Adversarial run F11: after notifications/cancelled for a call, closing stdin left the
    process for 60 s (the cancelled id was still awaited; a cancelled request gets no answer)."""
    import time

    server = Server(tmp_path / "m.sqlite3")
    _initialized(server)
    nodes = [{"content": f"fact {i} " + "y" * 300} for i in range(2000)]
    server.send(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                            "params": {"name": "store_many", "arguments": {"nodes": nodes}}}).encode())  # fmt: skip
    server.send(
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"7"}}'
    )  # (the SDK: "7" is 7)
    assert server.call(8, "ping")["result"] == {}
    started = time.monotonic()
    assert server.close() == 0
    # the old server waited the whole grace for the cancelled id; the store itself takes seconds
    # on a loaded machine, so the bound is the grace's half, not a speed
    assert time.monotonic() - started < EOF_GRACE_S / 2


def test_a_second_request_with_an_id_under_way_is_refused_with_an_answer(tmp_path):
    """Adversarial run F12: three calls with the same id in flight, then EOF: one answer, one
    "Connection closed" (for a write that committed) and one none. Ids under way are unique
    in JSON-RPC: the second and third are refused at once, each with an answer."""
    server = Server(tmp_path / "m.sqlite3")
    _initialized(server)
    nodes = [{"content": f"fact {i}"} for i in range(2000)]
    big = {
        "jsonrpc": "2.0",
        "id": "dup",
        "method": "tools/call",
        "params": {"name": "store_many", "arguments": {"nodes": nodes}},
    }
    server.send(json.dumps(big).encode())
    for _ in range(2):
        server.send(json.dumps({**big, "params": {"name": "store_node", "arguments": {"content": "x"}}}).encode())
    replies = [server.reply() for _ in range(3)]
    refused = [r for r in replies if "error" in r]
    assert len(refused) == 2 and all("still under way" in r["error"]["message"] for r in refused)
    assert [r["result"]["structuredContent"]["status"] for r in replies if "result" in r] == ["stored"]
    assert server.close() == 0

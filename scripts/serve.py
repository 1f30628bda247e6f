"""A static file server for the site on 127.0.0.1 (correct MIME types for .mjs/.wasm).

    python scripts/serve.py [PORT]

Any static server works; this one exists because Python's default table lacks
some types that module scripts and WebAssembly need, and it serves only what the page is
made of (``bendscope.shared.site``: never ``.git/``, ``.venv/`` or the agent memory). Also
used by the e2e tests.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import sys
import threading
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from bendscope.shared.site import site_file  # noqa: E402

TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".toml": "text/plain",
    ".py": "text/plain",
    ".whl": "application/zip",
    ".woff2": "font/woff2",
    ".json": "application/json",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}  # noqa: RUF012

    def send_head(self):
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if site_file(Path(self.directory), urllib.parse.unquote(path)) is None:
            self.send_error(404, "not part of the site")
            return None
        return super().send_head()

    def log_message(self, format: str, *args) -> None:
        if self.server.verbose:  # type: ignore[attr-defined]
            super().log_message(format, *args)


def make_server(port: int = 0, root: Path = ROOT, verbose: bool = False) -> http.server.ThreadingHTTPServer:
    """A server for ``root`` on 127.0.0.1:``port`` (0 = any free port); call serve_forever()."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=str(root)))
    server.verbose = verbose  # type: ignore[attr-defined]
    server.daemon_threads = True
    return server


def start_in_thread(root: Path = ROOT) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Start a server on a free port; returns (server, base URL). Stop with server.shutdown()."""
    server = make_server(0, root)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


USAGE = "usage: python scripts/serve.py [PORT]   (serves the site on http://127.0.0.1:PORT/, default 8000)"


def parse_port(args: list[str]) -> int | None:
    """The port named by the command-line ``args`` (8000 when none), or None when they ask for help or are wrong.

    >>> parse_port([]), parse_port(["8765"]), parse_port(["--help"]), parse_port(["x"]), parse_port(["70000"])
    (8000, 8765, None, None, None)
    """
    if not args:
        return 8000
    if len(args) != 1 or not args[0].isdigit() or not 0 <= int(args[0]) <= 65535:
        return None
    return int(args[0])


if __name__ == "__main__":
    port = parse_port(sys.argv[1:])
    if port is None:
        asking = sys.argv[1:] and sys.argv[1] in ("-h", "--help")
        print(USAGE, file=sys.stdout if asking else sys.stderr)
        sys.exit(0 if asking else 2)
    server = make_server(port, verbose=True)
    print(f"Serving {ROOT} on http://127.0.0.1:{port}/ (Ctrl+C stops)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()

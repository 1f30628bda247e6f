"""The editor served by the memory's HTTP server (issue 23, first part): the static site,
the memory as an editor document, and the admission every request passes.

``serve --http PORT --editor`` puts three things on one 127.0.0.1 origin: the MCP
endpoint (``/mcp``), the editor's static site (``/``: the same files as ``make serve``;
never ``py/bendscope/memory``, dotfiles or anything outside the site) and
``GET /api/graph`` (the memory as a Bendscope document, as ``export`` prints it).

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

import hmac
import json
import mimetypes
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

import anyio

from .errors import InvalidInput, StoreUnavailable
from .service import Memory

Asgi = Callable[[dict[str, Any], Any, Any], Awaitable[None]]

#: the editor's static site: the repository root (index.html, pyscript.toml, static/, py/)
SITE = Path(__file__).resolve().parents[3]
#: what of the site is served: the page, its configuration, its scripts and the editor's Python
SERVED_TOP = frozenset({"index.html", "pyscript.toml", "static", "py"})
#: never served, even inside what is: the agent memory itself (the page never loads it)
NEVER_SERVED = ("py/bendscope/memory",)
TOKEN_COOKIE = "bendscope_token"  # (+ "_PORT": one per server)
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
    bendscope.memory.errors.InvalidInput: a token has 16 to 256 characters: letters, digits, - _ . ~ (got 5)
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
        if method not in ("GET", "HEAD") or path == "/mcp" or path.startswith("/mcp/"):
            return None, ""
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
        if origin is not None and origin not in self.origins:
            return 403, f"requests from other sites are refused (Origin: {origin.decode('latin-1')[:200]})"
        offered, _ = self.offered_token(scope)
        if offered is None:
            return 401, "this server needs its token: open the editor URL it printed, or send Authorization: Bearer"
        if not self._matches(offered):
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


def site_file(site: Path, path: str) -> Path | None:
    """The file of the site a URL path names, or None when it is not one that is served.

    >>> site_file(SITE, "/") == SITE / "index.html"
    True
    >>> [site_file(SITE, p) for p in ("/Makefile", "/../etc/passwd", "/.git/config", "/py/bendscope/memory/cli.py")]
    [None, None, None, None]
    """
    relative = "index.html" if path in ("", "/") else path.lstrip("/")
    if not _servable(relative.split("/")):
        return None
    try:
        root = site.resolve()
        candidate = (root / relative).resolve()
        if not candidate.is_relative_to(root) or not _servable(list(candidate.relative_to(root).parts)):
            return None  # (a link to what is never served)
        return candidate if candidate.is_file() else None
    except (OSError, ValueError):  # (a NUL byte, a name too long, a loop of links)
        return None


def _servable(parts: list[str]) -> bool:
    """Whether a site-relative path is one that may be served: under a served top, no
    empty, dot or hidden part, nothing never served (letter case aside: some file systems
    ignore it), no backslash."""
    if not parts or parts[0] not in SERVED_TOP:
        return False
    if any(p in ("", ".", "..") or p.startswith(".") or "\\" in p for p in parts):
        return False
    folded = "/".join(parts).casefold()
    return not any(folded == never or folded.startswith(never + "/") for never in NEVER_SERVED)


def check_site(site: Path) -> None:
    """Refuse to serve a site that cannot run: the page, or its vendored runtime, missing."""
    if not (site / "index.html").is_file():
        raise InvalidInput(f"--editor: the editor's site is not at {site} (serve from a clone of the repository)")
    if not (site / "static" / "vendor" / ".stamp").is_file():
        raise InvalidInput(
            f"--editor: the editor's runtime is not vendored in {site / 'static' / 'vendor'}: run `make vendor`"
        )


def editor_app(mcp: Asgi, memory: Memory, admission: Admission, site: Path = SITE, *, editor: bool = True) -> Asgi:
    """The server's whole ASGI app: admission, then ``/mcp`` → ``mcp``; with ``editor``
    also ``/api/graph`` and the site (else 404 for anything but ``/mcp``)."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await mcp(scope, receive, send)
            return
        if scope["type"] != "http":  # (no websockets here)
            return
        refused = admission.check(scope)
        if refused is not None:
            status, why = refused
            await reply(send, status, why.encode(), "text/plain; charset=utf-8")
            return
        path, method = scope["path"], scope["method"]
        if path == "/mcp" or path.startswith("/mcp/"):
            await mcp(scope, receive, send)
            return
        if not editor:
            await reply(send, 404, b"not found: this server serves MCP at /mcp", "text/plain; charset=utf-8")
            return
        _, offered_by = admission.offered_token(scope)
        if offered_by == "query":  # (the token leaves the address: a cookie carries it from now on)
            kept = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1")) if k != "token"]
            location = "/" + quote(path.lstrip("/"), safe="/") + ("?" + urlencode(kept) if kept else "")
            cookie = f"{admission.cookie}={admission.token.decode()}; HttpOnly; SameSite=Strict; Path=/"
            await reply(
                send,
                303,
                b"",
                "text/plain",
                (b"location", location.encode("latin-1")),
                (b"set-cookie", cookie.encode()),
            )
            return
        if method not in ("GET", "HEAD"):
            await reply(send, 405, b"only GET here", "text/plain; charset=utf-8", (b"allow", b"GET, HEAD"))
            return
        if path == "/api/graph":
            try:
                document = await anyio.to_thread.run_sync(memory.export_document)
            except InvalidInput as error:  # (a memory larger than the editor opens)
                await reply(send, 413, str(error).encode(), "text/plain; charset=utf-8")
                return
            except StoreUnavailable as error:
                await reply(send, 503, str(error).encode(), "text/plain; charset=utf-8")
                return
            body = json.dumps(document, ensure_ascii=False, sort_keys=True).encode()
            await reply(send, 200, body, "application/json", head=method == "HEAD")
            return
        found = site_file(site, path)
        if found is None:
            await reply(send, 404, b"not found", "text/plain; charset=utf-8")
            return
        try:
            data = await anyio.to_thread.run_sync(found.read_bytes)
        except OSError:  # (gone or unreadable since it was found)
            await reply(send, 404, b"not found", "text/plain; charset=utf-8")
            return
        kind = TYPES.get(found.suffix) or mimetypes.guess_type(found.name)[0] or "application/octet-stream"
        await reply(send, 200, data, kind, head=method == "HEAD")

    return app

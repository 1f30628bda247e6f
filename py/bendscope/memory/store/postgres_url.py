"""PostgreSQL store URLs: read as libpq reads them, refused when ambiguous, and shown without
their password."""

from __future__ import annotations

import re
import urllib.parse

import psycopg
import psycopg.conninfo

from ..core.errors import InvalidInput

DEFAULT_POOL_SIZE = 4


MAX_POOL_SIZE = 256


_OWN_PARAMETERS = ("pool_size",)


def _credentials_end(url: str) -> int:
    """Where libpq's reading of a URL's user name and password ends: after the first ``@``
    or at the first ``/`` (whichever comes first) past the scheme."""
    scheme = url.find("://")
    start = scheme + 3 if scheme >= 0 else 0
    ends = [i for i in (url.find("@", start), url.find("/", start)) if i >= 0]
    end = min(ends) if ends else start
    return end + 1 if end < len(url) and url[end] == "@" else end


def query_start(url: str) -> int:
    """Where a connection URL's query string starts (its ``?``), or -1: read as libpq reads
    it, where the user name and password end at the first ``@`` or ``/`` (so a password
    may hold ``?`` but not ``@`` or ``/``), and the query at the next ``?``.

    >>> url = "postgresql://me:a?b@db/memory?application_name=x@y"
    >>> url[query_start(url):]
    '?application_name=x@y'
    >>> query_start("postgresql://db/memory")
    -1
    """
    return url.find("?", _credentials_end(url))


def split_url(url: str) -> tuple[str, dict[str, str]]:
    """A store URL's libpq part and the store's own parameters (``pool_size``); the rest
    of the URL is kept byte for byte (libpq decodes it, not us).

    >>> split_url("postgresql://me@db:5433/memory?pool_size=8&options=-c%20search_path%3Dx")
    ('postgresql://me@db:5433/memory?options=-c%20search_path%3Dx', {'pool_size': '8'})
    """
    start = query_start(url)
    if start < 0:
        return url, {}
    own: dict[str, str] = {}
    rest = []
    for item in url[start + 1 :].split("&"):
        key, _, value = item.partition("=")
        if key in _OWN_PARAMETERS:
            own[key] = urllib.parse.unquote(value)
        elif item:
            rest.append(item)
    return url[:start] + ("?" + "&".join(rest) if rest else ""), own


def check_unambiguous(url: str) -> None:
    """Refuse a URL that libpq would read otherwise than it was meant, before it is used
    or shown: an unescaped ``@`` or ``/`` in a user name or password (which would make
    part of the password a host, port or database name — and show it in messages), or
    an ``@`` in a database name. The URL is never repeated (it may hold a password).

    >>> check_unambiguous("postgresql://me:p#w@db:5433/memory?application_name=a@b")
    >>> check_unambiguous("postgresql://me:Zk3/q+W=@db/memory")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bendscope.memory.core.errors.InvalidInput: the store URL is ambiguous: write '@' and '/' inside ...
    """
    if "://" not in url:
        return
    after, query = _credentials_end(url), query_start(url)
    if "@" in url[after : query if query >= 0 else len(url)]:
        raise InvalidInput(
            "the store URL is ambiguous: write '@' and '/' inside a user name, password or database name as %40 and %2F"
        )


def parse_url(conninfo: str) -> dict[str, str]:
    """libpq's own reading of a connection URL (so what is shown is what is used); a URL
    libpq cannot read, or that it would read otherwise than meant, is refused without
    repeating it (it may hold a password).

    >>> parse_url("postgresql://me:p#w@db:5433/memory")["password"]
    'p#w'
    >>> parse_url("postgresql://me:pa/ss@db:5433/memory")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bendscope.memory.core.errors.InvalidInput: the store URL is ambiguous: ...
    """
    check_unambiguous(conninfo)
    try:
        params = {k: str(v) for k, v in psycopg.conninfo.conninfo_to_dict(conninfo).items()}
    except (psycopg.Error, UnicodeError, ValueError):
        raise InvalidInput(
            "the store URL is not a PostgreSQL URL libpq can read (postgresql://user@host:port/db)"
        ) from None
    if any(p.strip() and not p.strip().isdigit() for p in params.get("port", "").split(",")):
        raise InvalidInput(
            "the store URL's port is not a number: write '@', '/' and ':' inside a user name or "
            "password as %40, %2F and %3A"
        )
    return params


def display_url(params: dict[str, str]) -> str:
    """A connection as ``postgresql://user@host:port/db``, never with its password.

    >>> display_url(parse_url("postgresql://me:s#cret@db:5433/memory?sslmode=require"))
    'postgresql://me@db:5433/memory'
    """
    user = f"{params['user']}@" if params.get("user") else ""
    host = params.get("host", "")
    port = f":{params['port']}" if params.get("port") else ""
    return f"postgresql://{user}{host}{port}/{params.get('dbname', '')}"


def pool_size_from(value: str | int | None) -> int:
    """The pool size option: a whole number from 1 to MAX_POOL_SIZE."""
    if value is None:
        return DEFAULT_POOL_SIZE
    try:
        size = int(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"pool_size must be a whole number from 1 to {MAX_POOL_SIZE}, got {value!r}") from None
    if not 1 <= size <= MAX_POOL_SIZE:
        raise InvalidInput(f"pool_size must be from 1 to {MAX_POOL_SIZE}, got {size}")
    return size


def without_password(url: str) -> str:
    """A PostgreSQL URL as it may be shown: its password, if any, replaced by ``***``.

    >>> without_password("postgresql://ann:secret@db:5432/memory?pool_size=4")
    'postgresql://ann:***@db:5432/memory?pool_size=4'
    """
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://[^:/@?#]*):[^@/?#]*@", r"\1:***@", url)

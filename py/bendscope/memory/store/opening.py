"""Opening a store by path or URL: the factory above the backends (they import the
interface in ``store``, this module imports them), and where the embedded store lives
when none is named."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from ..core.errors import InvalidInput, StoreUnavailable
from .base import Store
from .inmemory import InMemoryStore
from .sqlite import SQLiteStore

#: the environment variable naming the store when ``--store`` is not given
STORE_VARIABLE = "BENDSCOPE_MEMORY_STORE"


def default_store_path() -> Path:
    """Where the embedded store lives when none is named: the user's data directory."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "bendscope" / "memory.sqlite3"


def open_store(
    location: str | os.PathLike[str] | None = None, *, pool_size: int | None = None, read_only: bool = False
) -> Store:
    """Open the store a path or URL names: ``postgresql://…`` (or ``postgres://…``: a
    PostgreSQL database, shared by many processes; ``pool_size`` connections per process,
    also given as the URL parameter ``?pool_size=N``), ``sqlite:///path``, a bare path,
    ``:memory:`` (a fresh in-memory store), or None: ``$BENDSCOPE_MEMORY_STORE`` when set
    (any of these), else the SQLite file in the user's data directory. ``read_only``: every
    write refused, nothing recorded by retrieval (and a damaged SQLite file opens, to rescue
    what can be read)."""
    if location is None:
        location = os.environ.get(STORE_VARIABLE) or None
    text = None if location is None else os.fspath(location)
    if text is not None and not text.strip():
        raise InvalidInput("the store location is empty: give a path, sqlite:///path, postgresql://… or :memory:")
    scheme_match = None if text is None else re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", text)
    scheme = scheme_match.group(1).lower() if scheme_match else None
    if pool_size is not None and scheme not in ("postgresql", "postgres"):
        raise InvalidInput("a pool size applies to a PostgreSQL store (postgresql://…) only")
    if text is None:
        return SQLiteStore(store_file(default_store_path(), read_only), read_only=read_only)
    if text in (":memory:", "memory:"):
        return InMemoryStore(read_only=read_only)
    if scheme in ("postgresql", "postgres"):
        try:
            from .postgres import PostgresStore
        except ImportError:
            raise InvalidInput("a PostgreSQL store needs psycopg: pip install 'bendscope[postgresql]'") from None
        return PostgresStore(text, pool_size=pool_size, read_only=read_only)
    if scheme == "sqlite":
        return SQLiteStore(store_file(sqlite_url_path(text), read_only), read_only=read_only)
    if scheme is not None:
        raise InvalidInput(
            f"store URLs of scheme {scheme!r} are not supported (use a path, sqlite:///path or postgresql://…)"
        )
    half = re.match(r"^(sqlite|postgresql|postgres):(?!//)", text, re.IGNORECASE)
    if half is not None:  # (taken as a path, it would make a folder named "sqlite:")
        raise InvalidInput(
            f"{text!r} is neither a path nor a store URL: an sqlite URL is sqlite:///relative/path or "
            "sqlite:////absolute/path, a PostgreSQL one postgresql://user@host/db (or give the bare path)"
        )
    return SQLiteStore(store_file(text, read_only), read_only=read_only)


def sqlite_url_path(url: str) -> str:
    """The file an ``sqlite:`` URL names, by the usual rule (SQLAlchemy's): ``sqlite:///name`` is
    the relative path ``name``, ``sqlite:////abs/name`` the absolute ``/abs/name``, and
    ``sqlite:///~/name`` a path in the home folder.

    >>> sqlite_url_path("sqlite:///memory.sqlite3"), sqlite_url_path("sqlite:////var/lib/m.sqlite3")
    ('memory.sqlite3', '/var/lib/m.sqlite3')
    >>> sqlite_url_path("sqlite://host/x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bendscope.memory.core.errors.InvalidInput: an sqlite URL is sqlite:///relative/path or ... got 'sqlite://host/x'
    """
    rest = url[len("sqlite://") :]
    if rest.startswith("~"):  # (sqlite://~/name: the home folder, as it always read)
        return rest
    if not rest.startswith("/") or len(rest) < 2:
        raise InvalidInput(f"an sqlite URL is sqlite:///relative/path or sqlite:////absolute/path, got {url!r}")
    return rest[1:]


def resolved_from(location: str | None, store: Store) -> str:
    """Where a store opened from ``location`` is, said for its start: the store's location,
    and for a relative path what it was resolved against.

    >>> resolved_from(":memory:", InMemoryStore())
    'the store is in memory (gone when the process ends)'
    """
    if store.kind == "memory":
        return "the store is in memory (gone when the process ends)"
    if store.kind != "sqlite":
        return f"the store is {store.location}"
    given = location
    if given is not None and re.match(r"^sqlite://", given, re.IGNORECASE):
        given = sqlite_url_path(given)
    if given is None:
        return f"the store is {store.location} (the default; --store or ${STORE_VARIABLE} names another)"
    if not os.path.isabs(os.path.expanduser(given)):
        return f"the store is {store.location} ({given!r} is relative: resolved against {os.getcwd()})"
    return f"the store is {store.location}"


def store_file(location: str | os.PathLike[str], read_only: bool = False) -> Path:
    """The file an SQLite store location names, ready to open: ``~`` expanded, the folders
    above it made (unless read-only); a folder that cannot be made is a StoreUnavailable
    naming the path and what to do."""
    path = Path(os.fspath(location)).expanduser()
    if path.is_dir():
        raise StoreUnavailable(
            f"the memory store {path} is a folder; name a file in it, e.g. {path / 'memory.sqlite3'}"
        )
    if read_only:
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = "permission denied" if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
        raise StoreUnavailable(
            f"cannot make the folder {path.parent} for the memory store: {reason}; name a store in a folder "
            f"you can write to (--store PATH or ${STORE_VARIABLE})"
        ) from None
    return path

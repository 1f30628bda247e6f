"""Knowing when the memory changed, whoever changed it: the live editor's push channel.

A :class:`ChangeSource` tells, by blocking for at most a timeout, whether the store may
have changed since it last answered — a write by this process, by another server process
on the same SQLite file, or by any process on the same PostgreSQL database:

- **SQLite**: ``PRAGMA data_version`` read on a connection of its own, which changes when
  any *other* connection commits (this process's store connection included); read every
  ``SQLITE_POLL_S``. When it changes, the store's ``graph_version`` counter (schema 6:
  triggers on nodes and edges) tells whether the graph changed — a retrieval's access
  counts are commits too, and wake no page.
- **PostgreSQL**: every write transaction sends ``NOTIFY`` on the store's channel before it
  commits (delivered only if it commits); the source ``LISTEN``s on a connection of its own.
  A lost connection is reopened and reported as a change (something may have been missed).
  A notification heard less than ``SQLITE_POLL_S`` after the last report waits for the rest of
  that interval, and those heard meanwhile go with it: an agent's burst of commits wakes the
  pages at most once per interval, as SQLite's polling does (one after a quiet spell, at once).
- **in memory**: the store's own commit counter (one process).

A :class:`ChangeFeed` runs one watcher task per server while pages listen, and wakes every
listener when the source reports a change; each listener then asks for the graph once, so
a burst of writes costs each page one or a few fetches, not one per write.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from typing import Any, Protocol

logger = logging.getLogger(__name__)

#: how often SQLite's data_version is read while a page listens (s)
SQLITE_POLL_S = 0.02
#: how long one wait of the watcher lasts before it looks whether anyone still listens (s)
WAIT_S = 0.25


class ChangeSource(Protocol):
    def wait(self, timeout: float) -> bool:
        """Block at most ``timeout`` seconds; True when the store may have changed since the
        last call (or since the source was made)."""
        ...

    def close(self) -> None: ...


class SqliteChanges:
    """Commits to one SQLite file, seen through ``PRAGMA data_version``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._seen: tuple[int, int] | None = None
        self._data_version: int | None = None
        self._graph: tuple[int, int] | None = None

    def _version(self) -> tuple[int, int] | None:
        """(the graph version, or -1 without one; the data version when there is none), or
        None when the file cannot be read."""
        try:
            if self._conn is None:
                self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=1.0)
                self._data_version = None
            data_version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
            if data_version != self._data_version or self._graph is None:
                self._data_version = data_version
                row = self._conn.execute("SELECT value FROM counters WHERE key = 'graph_version'").fetchone()
                self._graph = (int(row[0]), 0) if row is not None else (-1, data_version)
            return self._graph
        except sqlite3.Error:  # (an older schema without counters falls back to the data version)
            self.close()
            return None

    def wait(self, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while True:
            version = self._version()
            if version is None or (self._seen is not None and version != self._seen):
                self._seen = version
                return True
            self._seen = version
            if time.monotonic() >= end:
                return False
            time.sleep(SQLITE_POLL_S)

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None


class PostgresChanges:
    """``NOTIFY``s on a PostgreSQL store's channel, heard with ``LISTEN``."""

    def __init__(self, conninfo: str, channel: str, *, clock: Any = time.monotonic, sleep: Any = time.sleep) -> None:
        self.conninfo = conninfo
        self.channel = channel
        self._conn: Any = None
        self._clock, self._sleep = clock, sleep  # (tests give their own)
        self._reported = -float("inf")  # when the last change was reported

    def wait(self, timeout: float) -> bool:
        import psycopg

        try:
            if self._conn is None:
                self._conn = psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5)
                self._conn.execute(f"LISTEN {self.channel}")
                return True  # (what happened while nobody listened is unknown)
            heard = False
            for _ in self._conn.notifies(timeout=timeout, stop_after=1):
                heard = True
            if heard:  # (a burst: one report per interval at most, then drain it without waiting)
                rest = self._reported + SQLITE_POLL_S - self._clock()
                if rest > 0:
                    self._sleep(rest)
                for _ in self._conn.notifies(timeout=0.0):
                    pass
                self._reported = self._clock()
            return heard
        except psycopg.Error:
            self.close()
            time.sleep(min(timeout, 0.5))
            return True

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None


class CounterChanges:
    """An in-process store's commit counter (``commits`` and its ``committed`` condition)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._seen = store.commits

    def wait(self, timeout: float) -> bool:
        condition: threading.Condition = self.store.committed
        with condition:
            condition.wait_for(lambda: self.store.commits != self._seen, timeout=timeout)
            changed = self.store.commits != self._seen
            self._seen = self.store.commits
        return bool(changed)

    def close(self) -> None:
        pass


def change_source(store: Any) -> ChangeSource:
    """The change source for a store of any kind (see the module's words)."""
    if getattr(store, "kind", "") == "sqlite":
        return SqliteChanges(store.path)
    listen = getattr(store, "change_channel", None)
    if listen is not None:
        conninfo, channel = listen()
        return PostgresChanges(conninfo, channel)
    return CounterChanges(store)


class ChangeFeed:
    """Wakes every listening page when the store changes: a watcher thread runs while
    anyone listens (started by the first, ended when the last leaves); ``mark`` counts the
    changes seen."""

    def __init__(self, source: ChangeSource, *, max_listeners: int = 32) -> None:
        self.source = source
        self.max_listeners = max_listeners
        self.mark = 0
        self._listeners: dict[asyncio.Event, asyncio.AbstractEventLoop] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.closed = False

    @property
    def listeners(self) -> int:
        return len(self._listeners)

    def listen(self) -> asyncio.Event | None:
        """A new listener's event (set at each change; the listener clears it), or None
        when ``max_listeners`` already listen. Call from the server's event loop."""
        event = asyncio.Event()
        with self._lock:
            if len(self._listeners) >= self.max_listeners or self.closed:
                return None
            self._listeners[event] = asyncio.get_running_loop()
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="bendscope-changes", daemon=True)
                self._thread.start()
        return event

    def leave(self, event: asyncio.Event) -> None:
        with self._lock:
            self._listeners.pop(event, None)

    def _watch(self) -> None:
        try:
            self._watching()
        finally:  # (whatever ended it, the next listener starts a watcher again)
            with self._lock:
                self._thread = None

    def _watching(self) -> None:
        while True:
            with self._lock:
                if not self._listeners or self.closed:
                    return
            try:
                changed = self.source.wait(WAIT_S)
            except Exception:  # (a source that failed in an unforeseen way: say "changed", go on)
                logger.exception("the change source failed")
                changed = True
                time.sleep(WAIT_S)
            if changed:
                with self._lock:
                    self.mark += 1
                    listening = list(self._listeners.items())
                for event, loop in listening:
                    with contextlib.suppress(RuntimeError):  # (a loop that has closed)
                        loop.call_soon_threadsafe(event.set)

    def close(self) -> None:
        """Stop watching (the thread ends within ``WAIT_S``) and close the source."""
        with self._lock:
            self.closed = True
            thread = self._thread
        if thread is not None:
            thread.join(timeout=5 * WAIT_S)
        self.source.close()

"""The store interface every backend implements, and ``open_store`` for store URLs.

A store holds nodes and edges (``records``) and answers the queries retrieval needs:
lexical search, the edges touching a set of nodes (expansion) and the edges between a
set of nodes (the topology's node universe). Writes happen inside ``transaction()``:
all of a transaction or none of it. Deleting a node deletes its edges.

Backends: ``SQLiteStore`` (the embedded default: one file), ``PostgresStore`` (one
database shared by many processes) and ``InMemoryStore`` (tests). The contract suite in
``tests/test_memory_store.py`` runs against each.

>>> tokenize("What drives Revenue? (R&D, rev-share, Café)")
['what', 'drives', 'revenue', 'r', 'd', 'rev', 'share', 'cafe']
>>> query_words("Straße STRASSE straße")
['Straße', 'STRASSE']
"""

from __future__ import annotations

import abc
import json
import os
import re
import sys
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from .errors import InvalidInput
from .records import MemoryEdge, MemoryNode

MAX_QUERY_TERMS = 32
_TOKEN = re.compile(r"[^\W_]+")


def fold(word: str) -> str:
    """A word as SQLite FTS5's unicode61 tokenizer indexes it (remove_diacritics 2):
    lower case, combining marks removed; no compatibility folding (ß, ﬁ and fullwidth
    letters stay what they are, as in FTS5). ASCII words (most) take a shortcut with the
    same result: they have no combining marks and are their own normal forms.

    >>> fold("Café"), fold("RÉSUMÉ"), fold("Straße"), fold("Revenue")
    ('cafe', 'resume', 'straße', 'revenue')
    """
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFD", word.lower())
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch)))


def load_metadata(text: str) -> dict[str, Any]:
    """Stored metadata (JSON text) as a fresh dict; the usual empty object skips the parser.

    >>> load_metadata("{}"), load_metadata('{"b":1}')
    ({}, {'b': 1})
    """
    if text == "{}":
        return {}
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def tokenize(text: str) -> list[str]:
    """The index terms of ``text``: runs of letters and digits, folded. O(len(text))."""
    return [fold(word) for word in _TOKEN.findall(text)]


def query_words(text: str) -> list[str]:
    """The words of a query as written (the store folds them as it indexes), distinct
    after folding, in order, at most MAX_QUERY_TERMS."""
    seen: dict[str, str] = {}
    for word in _TOKEN.findall(text):
        seen.setdefault(fold(word), word)
    return list(seen.values())[:MAX_QUERY_TERMS]


class Store(abc.ABC):
    """What retrieval, the MCP tools and the CLI need from a knowledge-graph store."""

    #: a short name for messages and benchmarks
    kind = "store"
    #: how deep transaction()/reading() calls are nested (0: none open); implementations keep it
    _depth = 0
    #: how many calls the MCP server may run on this store at once (threads)
    parallel_calls = 1

    def _joined(self) -> Iterator[None]:
        """The body of a transaction()/reading() opened inside another: it joins the outer
        one, counted, so only the outermost begins and ends it. Use as ``yield from``."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    @abc.abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """All writes inside happen together or not at all (nested calls join the outer one)."""

    @abc.abstractmethod
    def reading(self) -> AbstractContextManager[None]:
        """Reads inside see one consistent state (a snapshot; nested calls join the outer one)."""

    # -- nodes
    @abc.abstractmethod
    def get_nodes(self, node_ids: Iterable[str]) -> dict[str, MemoryNode]:
        """The nodes among ``node_ids`` that exist, by id (any number of ids)."""

    def get_node(self, node_id: str) -> MemoryNode | None:
        return self.get_nodes([node_id]).get(node_id)

    @abc.abstractmethod
    def put_node(self, node: MemoryNode) -> None:
        """Insert the node, or replace the node with its id."""

    @abc.abstractmethod
    def delete_node(self, node_id: str) -> list[str]:
        """Delete a node and its edges; returns the ids of the deleted edges (sorted)."""

    @abc.abstractmethod
    def list_nodes(
        self, *, node_type: str | None = None, source: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryNode]:
        """Nodes in id order, optionally of one type and/or one source."""

    @abc.abstractmethod
    def node_ids(self) -> list[str]:
        """Every node id, sorted."""

    @abc.abstractmethod
    def record_access(self, node_ids: Iterable[str], when: str) -> None:
        """Count one access of each node and set its ``last_accessed_at``."""

    def record_retrieval(self, node_ids: Iterable[str], edge_ids: Iterable[str], when: str) -> None:
        """What one retrieval records, together: the access of the nodes it returned and
        the activation of the edges it walked (a backend may let these run side by side)."""
        nodes, edges = list(node_ids), list(edge_ids)
        with self.transaction():
            if nodes:
                self.record_access(nodes, when)
            if edges:
                self.record_activation(edges, when)

    # -- edges
    @abc.abstractmethod
    def get_edges(self, edge_ids: Iterable[str]) -> dict[str, MemoryEdge]:
        """The edges among ``edge_ids`` that exist, by id."""

    def get_edge(self, edge_id: str) -> MemoryEdge | None:
        return self.get_edges([edge_id]).get(edge_id)

    @abc.abstractmethod
    def put_edge(self, edge: MemoryEdge) -> None:
        """Insert the edge, or replace the edge with its id (both endpoints must exist)."""

    @abc.abstractmethod
    def delete_edge(self, edge_id: str) -> bool:
        """Delete an edge; returns whether it existed."""

    @abc.abstractmethod
    def list_edges_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        """Edges whose source and target are both in ``node_ids`` (any number of ids),
        sorted by id."""

    @abc.abstractmethod
    def edges_touching(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        """Edges with at least one endpoint in ``node_ids``, sorted by id."""

    @abc.abstractmethod
    def all_edges(self) -> list[MemoryEdge]:
        """Every edge, sorted by id."""

    @abc.abstractmethod
    def record_activation(self, edge_ids: Iterable[str], when: str) -> None:
        """Set ``last_activated_at`` of edges retrieval walked along."""

    # -- search and size
    @abc.abstractmethod
    def search(self, query: str, limit: int) -> list[tuple[str, float]]:
        """Nodes matching any word of ``query`` (free text: any FTS syntax in it is only
        text), best first by BM25, as (id, score > 0); ties by id."""

    @abc.abstractmethod
    def counts(self) -> tuple[int, int]:
        """(number of nodes, number of edges)."""

    def close(self) -> None:  # noqa: B027 - optional for stores without resources
        """Release the store's resources."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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


def open_store(location: str | os.PathLike[str] | None = None, *, pool_size: int | None = None) -> Store:
    """Open the store a path or URL names: ``postgresql://…`` (or ``postgres://…``: a
    PostgreSQL database, shared by many processes; ``pool_size`` connections per process,
    also given as the URL parameter ``?pool_size=N``), ``sqlite:///path``, a bare path,
    ``:memory:`` (a fresh in-memory store), or None: ``$BENDSCOPE_MEMORY_STORE`` when set
    (any of these), else the SQLite file in the user's data directory."""
    from .inmemory_store import InMemoryStore
    from .sqlite_store import SQLiteStore

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
        default = default_store_path()
        default.parent.mkdir(parents=True, exist_ok=True)
        return SQLiteStore(default)
    if text in (":memory:", "memory:"):
        return InMemoryStore()
    if scheme in ("postgresql", "postgres"):
        try:
            from .postgres_store import PostgresStore
        except ImportError:
            raise InvalidInput("a PostgreSQL store needs psycopg: pip install 'bendscope[postgresql]'") from None
        return PostgresStore(text, pool_size=pool_size)
    if scheme == "sqlite":
        file = text[len("sqlite://") :]  # sqlite:///abs/path.sqlite3 → /abs/path.sqlite3
        if not file.startswith("/"):
            raise InvalidInput(f"a sqlite URL is sqlite:///absolute/path, got {text!r}")
        return SQLiteStore(file)
    if scheme is not None:
        raise InvalidInput(
            f"store URLs of scheme {scheme!r} are not supported (use a path, sqlite:///path or postgresql://…)"
        )
    return SQLiteStore(text)


def chunks(items: list[str], size: int) -> Iterator[list[str]]:
    """``items`` in slices of at most ``size``."""
    for i in range(0, len(items), size):
        yield items[i : i + size]

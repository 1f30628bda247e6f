"""Lexical search in PostgreSQL with the same BM25 as the other stores: terms as lexemes,
tsqueries, the scorer, and re-indexing the terms."""

from __future__ import annotations

import hashlib
import math
import sys
from collections import Counter
from collections.abc import Iterable
from typing import Any

import psycopg
import psycopg.conninfo
from psycopg.types.json import Jsonb

from ..core.text import chunks, query_terms, terms
from .base import K1, B

#: index terms longer than this (UTF-8 bytes) are indexed by a digest (PostgreSQL's lexemes
#: are at most 2,046 bytes); a digest can never equal a real term, which has no "~"
MAX_LEXEME_BYTES = 1_000

#: a re-index says how far it is on stderr for stores of at least this many nodes
PROGRESS_FROM = 10_000


MIN_IDF = 1e-6  # FTS5 clamps the IDF of terms in more than half the rows to this


def lexeme(term: str) -> str:
    """A folded term as it is stored in the tsvector: itself, or a digest when too long.

    >>> lexeme("revenue")
    'revenue'
    >>> lexeme("x" * 2000)[:5], len(lexeme("x" * 2000))
    ('~5c0e', 65)
    """
    if len(term.encode("utf-8")) <= MAX_LEXEME_BYTES:
        return term
    return "~" + hashlib.sha256(term.encode("utf-8")).hexdigest()


def tsquery(lexemes: Iterable[str], operator: str) -> str:
    """A tsquery of quoted lexemes joined by ``|`` or ``&`` (nothing read as syntax).

    >>> tsquery(["it's", "a"], "|")
    "'it''s' | 'a'"
    """
    quoted = ("'" + item.replace("\\", "\\\\").replace("'", "''") + "'" for item in lexemes)
    return f" {operator} ".join(quoted)


def _reindex_terms(conn: psycopg.Connection[tuple[Any, ...]]) -> None:
    """Every node's terms afresh (migration 4), then the document frequencies and the corpus
    total recounted from them; says how far it is on stderr for a large store. O(total content)."""
    ids = [row[0] for row in conn.execute("SELECT id FROM nodes ORDER BY id").fetchall()]
    said = 0
    for done, batch in enumerate(chunks(ids, 1_000), 1):
        rows = conn.execute("SELECT id, content FROM nodes WHERE id = ANY(%s::text[])", (batch,)).fetchall()
        values = []
        for node_id, content in rows:
            tokens = [lexeme(t) for t in terms(content)]
            counts = dict(Counter(tokens))
            values.append((node_id, sorted(counts), Jsonb(counts), len(tokens)))
        with conn.cursor() as cursor:
            cursor.executemany(
                "UPDATE nodes SET terms = array_to_tsvector(%s::text[]), term_counts = %s, term_total = %s "
                "WHERE id = %s",
                [(lexemes, counts, total, node_id) for node_id, lexemes, counts, total in values],
            )
        if len(ids) >= PROGRESS_FROM and done * 1_000 * 10 // len(ids) > said:
            said = min(10, done * 1_000 * 10 // len(ids))
            print(f"memory: re-indexing {len(ids):,} nodes (stems, stop words): {said * 10}%", file=sys.stderr)
    conn.execute("DELETE FROM terms")
    conn.execute(
        "INSERT INTO terms (term, df) SELECT key, count(*) FROM nodes, jsonb_object_keys(term_counts) AS key "
        "GROUP BY key"
    )
    conn.execute("UPDATE corpus SET tokens = (SELECT coalesce(sum(term_total), 0) FROM nodes)")


class _Scorer:
    """Scores the nodes matching a tsquery: the sum, in query order, of each word's
    ``idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · length / average))`` (0 for a word the
    node lacks, which adds nothing) — evaluated in the same order as the in-memory
    store's Python, so the doubles come out identical. One SQL text per query length
    (at most MAX_QUERY_TERMS of them, each prepared once per connection)."""

    def __init__(
        self, conn: psycopg.Connection[tuple[Any, ...]], terms: list[str], idfs: list[float], average: float
    ) -> None:
        self.conn = conn
        self.params: dict[str, Any] = {"avg": average, "k1": K1, "k1p1": K1 + 1, "omb": 1 - B, "b": B}
        parts = []
        for i, (term, idf) in enumerate(zip(terms, idfs, strict=True)):
            self.params[f"t{i}"], self.params[f"i{i}"] = term, idf
            tf = f"(n.term_counts ->> %(t{i})s::text)::float8"
            parts.append(
                f"coalesce(%(i{i})s::float8 * {tf} * %(k1p1)s::float8 / "
                f"({tf} + %(k1)s::float8 * (%(omb)s::float8 + %(b)s::float8 * n.term_total / %(avg)s::float8)), 0)"
            )
        score = " + ".join(["0::float8", *parts])
        self.sql = (
            f"SELECT n.id, {score} AS score FROM nodes n WHERE n.terms @@ %(match)s::tsquery "
            "ORDER BY score DESC, n.id LIMIT %(limit)s"
        )
        self.sql_within = (
            f"SELECT n.id, {score} AS score FROM nodes n WHERE n.id = ANY(%(ids)s::text[]) "
            "AND n.terms @@ %(match)s::tsquery"
        )

    def __call__(self, match: str, limit: int) -> list[tuple[str, float]]:
        rows = self.conn.execute(self.sql, {**self.params, "match": match, "limit": limit}).fetchall()
        return [(str(row[0]), float(row[1])) for row in rows]

    def within(self, match: str, ids: list[str]) -> list[tuple[str, float]]:
        """The scores of the nodes ``ids`` that match (by id: the GIN index is not read)."""
        rows = self.conn.execute(self.sql_within, {**self.params, "match": match, "ids": ids}).fetchall()
        return [(str(row[0]), float(row[1])) for row in rows]


def _totals(conn: psycopg.Connection[tuple[Any, ...]], lexemes: list[str]) -> tuple[int, int, dict[str, int]]:
    """(nodes, their terms in all, the document frequency of each of ``lexemes`` found)."""
    row = conn.execute(
        "SELECT nodes, tokens, (SELECT coalesce(json_object_agg(term, df), '{}') FROM terms "
        "WHERE term = ANY(%s::text[])) FROM corpus",
        (lexemes,),
    ).fetchone()
    if row is None:
        return 0, 0, {}
    return int(row[0]), int(row[1]), {str(term): int(df) for term, df in row[2].items()}


def scorer_for(
    conn: psycopg.Connection[tuple[Any, ...]], query: str
) -> tuple[_Scorer, list[str], dict[str, int]] | None:
    """The scorer of a query's known terms (with those terms and their document frequencies),
    inside an open reading; None when no term of it is in the store."""
    words = query_terms(query)
    if not words:
        return None
    lexemes = [lexeme(w) for w in words]
    n, tokens, frequency = _totals(conn, lexemes)
    if not n:
        return None
    known = [t for t in lexemes if frequency.get(t, 0) > 0]
    if not known:
        return None
    idfs = []
    for term in known:
        df = frequency[term]
        idf = math.log((n - df + 0.5) / (df + 0.5))
        idfs.append(idf if idf > 0 else MIN_IDF)
    return _Scorer(conn, known, idfs, tokens / n), known, frequency


def weights_of(conn: psycopg.Connection[tuple[Any, ...]], words: list[str]) -> tuple[int, int, dict[str, int]]:
    """``Store.term_weights`` from the kept statistics (inside an open reading)."""
    lexemes = {w: lexeme(w) for w in words}
    n, tokens, frequency = _totals(conn, list(lexemes.values()))
    return n, tokens, {w: frequency.get(lexemes[w], 0) for w in words}

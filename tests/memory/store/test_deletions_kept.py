"""A store keeps its deletions for its last change numbers only (``Store.keep_deletions``): the
table of deletions stays bounded however many are made, a reader within the horizon is told every
change since its number, one further behind is told None (it reads the whole view) — never
changes missing a deletion. A store of the schema before keeps the deletions it had."""

from __future__ import annotations

import pytest

from bendscope.memory.store.base import KEEP_DELETIONS, Store
from bendscope.memory.store.postgres import PostgresStore
from bendscope.memory.store.sqlite import SQLiteStore
from tests.memory.store.test_migration import kept_deletions

from .test_store import edge, node


def _made(store: Store, count: int) -> None:
    """``count`` nodes, each joined to the next, one transaction each."""
    for k in range(count):
        store.put_node(node(f"n{k}"))
        if k:
            store.put_edge(edge(f"e{k}", f"n{k - 1}", f"n{k}"))


def test_the_deletions_kept_stay_bounded_however_many_are_made(store):
    store.keep_deletions(5)
    _made(store, 60)
    for k in range(0, 60, 2):
        store.delete_node(f"n{k}")  # (and the edges on each side: one transaction)
    assert 0 < kept_deletions(store) <= 5 * 3  # (at most three deletions a number)
    store.keep_deletions(KEEP_DELETIONS)
    for k in range(1, 60, 2):
        store.delete_node(f"n{k}")
    assert kept_deletions(store) >= 30  # (kept again: the horizon stays where it was)


def test_a_reader_behind_the_horizon_is_told_none_one_within_it_every_deletion(store):
    store.keep_deletions(3)
    _made(store, 10)
    start = store.change_number()
    assert start is not None and store.changed_since(start) == ([], [])
    numbers = []
    for k in range(4):
        store.delete_edge(f"e{k + 1}")
        numbers.append(store.change_number())
    assert store.changed_since(start) is None  # (the first deletions are dropped: not told)
    for k, number in enumerate(numbers):
        assert number is not None
        told = store.changed_since(number - 1)
        if told is not None:  # (within the horizon: every deletion since, none left out)
            assert {f"e{j + 1}" for j in range(k, 4)} <= set(told[1])
    assert store.changed_since(numbers[-2] or 0) is not None  # (the last numbers: always told)
    with pytest.raises(ValueError, match="at least one"):
        store.keep_deletions(0)


def test_a_store_of_the_schema_before_keeps_its_deletions(tmp_path, monkeypatch, postgres_url):
    """Deletions made before the migration are kept (the horizon starts at 0), and the migrated
    store bounds those made after."""
    import bendscope.memory.store.postgres_schema as pg_schema
    import bendscope.memory.store.sqlite as sqlite_module
    from bendscope.memory.store.sqlite_schema import MIGRATIONS

    old = [
        (sqlite_module, MIGRATIONS[:10], 10, lambda: SQLiteStore(tmp_path / "m.sqlite3")),
        (pg_schema, pg_schema.MIGRATIONS[:9], 9, lambda: PostgresStore(postgres_url, pool_size=1)),
    ]
    for module, before, version, make in old:
        with monkeypatch.context() as patch:
            patch.setattr(module, "MIGRATIONS", before)
            patch.setattr(module, "SCHEMA_VERSION", version)
            made = make()
            assert made.schema_version == version
            _made(made, 6)
            start = made.change_number()
            assert start is not None
            made.delete_node("n0")
            made.close()
        store = make()
        assert store.schema_version == version + 1
        assert store.changed_since(start) == (["n0"], ["e1"])
        store.keep_deletions(1)
        for k in range(1, 6):
            store.delete_node(f"n{k}")
        assert store.changed_since(start) is None and kept_deletions(store) <= 2
        store.close()

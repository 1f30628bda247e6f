"""Fixtures shared by the test suites: the memory store on every backend, and the
throwaway PostgreSQL server (one per test session, started on first use, stopped at the
end) that the PostgreSQL backend runs against. It sits at the root, beside
e2e/conftest.py, so that --doctest-modules never collects two modules named conftest."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from pg_cluster import Cluster

from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.sqlite import SQLiteStore

# No time limit per example: a test asserts what is computed, never how fast (a shared two-core
# machine under load takes several times the default 200 ms on an ordinary example).
settings.register_profile("bendscope", deadline=None)
settings.load_profile("bendscope")

BACKENDS = ["sqlite", "memory", "postgresql"]
_names = itertools.count()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A PostgreSQL server on 127.0.0.1 (a free port) in a temporary directory."""
    cluster = Cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def postgres_url(postgres: Cluster) -> str:
    """The URL of a fresh, empty database on the test server."""
    return postgres.create_database(f"t{next(_names)}")


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path) -> Iterator[Store]:
    """A fresh, empty store of each backend: the contract suites run against all three."""
    made: Store
    if request.param == "sqlite":
        made = SQLiteStore(tmp_path / "m.sqlite3")
    elif request.param == "memory":
        made = InMemoryStore()
    else:
        from bendscope.memory.store.postgres import PostgresStore

        made = PostgresStore(request.getfixturevalue("postgres_url"), pool_size=2)
    yield made
    made.close()


def _location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a served store lives, by the fixture's parameter: an SQLite file, the in-memory
    store, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "m.sqlite3"
    if request.param == "memory":
        return ":memory:"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a served store that persists lives: an SQLite file, or a fresh PostgreSQL database."""
    return _location(request, tmp_path)


@pytest.fixture(params=BACKENDS)
def any_location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a served store lives: an SQLite file, the in-memory store, or a fresh PostgreSQL database."""
    return _location(request, tmp_path)

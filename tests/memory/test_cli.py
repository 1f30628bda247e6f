"""``bendscope-memory`` (``python -m bendscope.memory``): import, export, retrieve, analyze;
bad input exits 2 with one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.document import serialize_document

ROOT = Path(__file__).resolve().parents[2]


def run(args: list[str], store: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    env.pop("BENDSCOPE_MEMORY_STORE", None)
    if store is not None:
        args = [*args, "--store", str(store)]
    return subprocess.run(
        [sys.executable, "-m", "bendscope.memory", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_import_the_demo_then_retrieve_analyze_export(tmp_path):
    store = tmp_path / "m.sqlite3"
    demo = serialize_document(demo_document())
    proc = run(["import", "-"], store, demo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["nodes_created"] == 10
    proc = run(["retrieve", "revenue", "--limit", "5"], store)
    response = json.loads(proc.stdout)
    assert response["topology"]["routing"] == "deliberate" and response["count"] <= 5
    proc = run(["analyze"], store)
    analysis = json.loads(proc.stdout)
    sccs = [{k: v for k, v in scc.items() if k != "feedback_arc_set"} for scc in analysis["sccs"]]  # (the agent's)
    assert {**analysis, "sccs": sccs} == {
        **Editor(demo_document()).topology().result,
        "recommendation": analysis["recommendation"],
    }
    proc = run(["analyze", "company", "founded-2020", "--pretty"], store)
    assert json.loads(proc.stdout)["routing"] == "fast" and "\n  " in proc.stdout
    proc = run(["export", "--query", "company"], store)
    exported = json.loads(proc.stdout)
    assert "company" in {n["id"] for n in exported["planes"][0]["nodes"]}
    assert Editor().load(proc.stdout) is None  # the editor opens what the CLI exports


def test_the_default_store_lives_in_the_data_directory(tmp_path):
    env_store = tmp_path / "data" / "bendscope" / "memory.sqlite3"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path))
    env.pop("BENDSCOPE_MEMORY_STORE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "bendscope.memory", "analyze"], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert env_store.exists() and json.loads(proc.stdout)["scc_count"] == 0


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["import", "-"], "not json", "not a usable Bendscope document: Not JSON"),
        (["import", "/no/such/file.json"], "", "cannot read /no/such/file.json"),
        (["analyze", "ghost"], "", "no node with id 'ghost'"),
        (["analyze", "a", "--query", "x"], "", "not both"),
        (["retrieve", ""], "", "query must be a non-empty string"),
        (["retrieve", "x", "--limit", "0"], "", "limit must be from 1 to 200"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, args, stdin, message):
    proc = run(args, tmp_path / "m.sqlite3", stdin)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr


def test_an_unusable_store_is_a_clear_error(tmp_path):
    not_a_store = tmp_path / "notes.txt"
    not_a_store.write_text("just text " * 500)
    proc = run(["analyze"], not_a_store)
    assert proc.returncode == 2 and "cannot open the memory store" in proc.stderr
    proc = run(["analyze", "--store", "mysql://host/db"])
    assert proc.returncode == 2 and "not supported" in proc.stderr
    proc = run(["analyze", "--store", "postgresql://me:secret@nowhere.invalid/db"])
    assert proc.returncode == 2 and "cannot open the memory store postgresql://me@nowhere.invalid/db" in proc.stderr
    assert "secret" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    proc = run(["analyze", "--store", str(tmp_path / "x.sqlite3"), "--pool-size", "3"])
    assert proc.returncode == 2 and "PostgreSQL store" in proc.stderr
    proc = run(["analyze", "--pool-size", "3"])  # the default store is an SQLite file too
    assert proc.returncode == 2 and "PostgreSQL store" in proc.stderr
    proc = run(["analyze", "--store", "postgresql://me:p%w@127.0.0.1:1/db"])  # libpq cannot read it
    assert proc.returncode == 2 and "not a PostgreSQL URL" in proc.stderr and "p%w" not in proc.stderr
    proc = run(["analyze", "--store", "postgresql://me:pw@[::1/db"])
    assert proc.returncode == 2 and proc.stderr.startswith("memory: error:") and "pw" not in proc.stderr


def test_usage_errors_are_one_line_too(tmp_path):
    for args in (["retrieve"], ["nonsense"], ["analyze", "--limit", "x"], ["analyze", "--store", ""]):
        proc = run(args)
        assert proc.returncode == 2, args
        assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("memory: error:"), proc.stderr


def test_readings_of_another_time_and_a_dump_of_every_version(tmp_path):
    store = tmp_path / "m.sqlite3"
    assert run(["import", "-"], store, serialize_document(demo_document())).returncode == 0
    nothing = json.loads(run(["export", "--known-at", "2020-01-01"], store).stdout)  # (recorded later)
    assert nothing["planes"][0]["nodes"] == []
    assert json.loads(run(["analyze", "--known-at", "2020-01-01"], store).stdout)["dag_nodes"] == []
    held = json.loads(run(["analyze", "--as-of", "2020-01-01"], store).stdout)  # (no valid_from: an unknown past)
    assert held["max_kappa"] == json.loads(run(["analyze"], store).stdout)["max_kappa"] == 1
    assert json.loads(run(["retrieve", "revenue", "--known-at", "2020-01-01"], store).stdout)["results"] == []
    proc = run(["export", "--dump", "--known-at", "2020-01-01"], store)
    assert proc.returncode == 2 and "every version" in proc.stderr
    dumped = run(["export", "--dump"], store).stdout.splitlines()
    assert json.loads(dumped[0])["version"] == 2 and json.loads(dumped[0])["node_versions"] == 0
    bad = run(["analyze", "--as-of", "last week"], store)
    assert bad.returncode == 2 and "as_of must be an ISO 8601 timestamp" in bad.stderr

"""``python -m kappa analyze``: canonical JSON out, exit 2 with one line on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kappa import analyze
from kappa.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(args, stdin=""):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    return subprocess.run(
        [sys.executable, "-m", "kappa", *args], input=stdin, capture_output=True, text=True, env=env, timeout=60
    )


def test_plain_graph_from_stdin():
    doc = {"nodes": ["a", "b", "c"], "edges": [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}]}
    proc = run(["analyze", "-"], json.dumps(doc))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == analyze(doc["nodes"], doc["edges"])
    assert proc.stdout.count("\n") == 1


def test_editor_document_file(tmp_path):
    plane = {
        "id": "root",
        "parentPlaneId": None,
        "nodes": [{"id": "x", "text": "X"}, {"id": "y", "text": "Y"}],
        "edges": [
            {"id": "e1", "a": "x", "b": "y", "props": {"kind": "causal"}},
            {"id": "e2", "a": "y", "b": "x", "props": {"kind": "temporal"}},
            {"id": "e3", "a": "y", "b": "x", "props": {"kind": "context"}},
        ],
    }
    child = {"id": "child", "parentPlaneId": "root", "nodes": [], "edges": []}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"version": 1, "planes": [child, plane]}))
    proc = run(["analyze", str(path), "--pretty"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["max_kappa"] == 1
    assert "\n  " in proc.stdout
    proc = run(["analyze", str(path), "--plane", "child"])
    assert json.loads(proc.stdout)["scc_count"] == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "top level must be a JSON object"),
        ("{}", "missing 'nodes'"),
        ('{"nodes": 3}', "'nodes' must be a list"),
        ('{"nodes": [1]}', "nodes[0]"),
        ('{"nodes": ["a"], "edges": [{"a": "a"}]}', "edges[0]"),
        ('{"nodes": ["a"], "edges": "x"}', "'edges' must be a list"),
        ('{"planes": []}', "'planes' must be a non-empty list"),
        ("[" * 50000, "nested too deeply"),
    ],
)
def test_malformed_input_exit_2_one_line(text, message):
    proc = run(["analyze", "-"], text)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr


def test_missing_file():
    proc = run(["analyze", "/no/such/file.json"])
    assert proc.returncode == 2 and "cannot read" in proc.stderr


def test_recommendation_flag(capsys, tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"nodes": ["a", "b"], "edges": [{"source": "a", "target": "b"}]}))
    assert main(["analyze", str(path), "--recommendation"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["recommendation"].startswith("This knowledge region is acyclic")

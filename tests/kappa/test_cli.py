"""``python -m bendscope.kappa analyze``: canonical JSON out, exit 2 with one line on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bendscope.kappa import analyze
from bendscope.kappa.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(args, stdin=""):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    return subprocess.run(
        [sys.executable, "-m", "bendscope.kappa", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
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


def test_ids_with_unpaired_surrogates_are_escaped_not_a_traceback():
    text = (
        '{"nodes": ["\\ud800", "b"], '
        '"edges": [{"source": "\\ud800", "target": "b"}, {"source": "b", "target": "\\ud800"}]}'
    )
    proc = run(["analyze", "-"], text)
    assert proc.returncode == 0, proc.stderr
    assert "\\ud800" in proc.stdout
    assert json.loads(proc.stdout)["sccs"][0]["nodes"] == ["b", "\ud800"]


def test_non_ascii_ids_stay_readable():
    proc = run(["analyze", "-"], json.dumps({"nodes": ["κ", "é"], "edges": []}, ensure_ascii=False))
    assert proc.returncode == 0 and "κ" in proc.stdout


def test_broken_pipe_is_quiet():
    """``python -m bendscope.kappa analyze big.json | head -c 10``: no traceback when the reader leaves."""
    ring = {
        "nodes": [f"n{i}" for i in range(20000)],
        "edges": [{"source": f"n{i}", "target": f"n{(i + 1) % 20000}"} for i in range(20000)],
    }
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    proc = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m bendscope.kappa analyze - --pretty | head -c 10"],
        input=json.dumps(ring),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.stdout == '{\n  "sccs"'[:10]
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr


def test_oversized_input_is_refused_before_parsing():
    proc = run(["analyze", "-", "--max-bytes", "100"], json.dumps({"nodes": ["x" * 200]}))
    assert proc.returncode == 2 and "larger than 100 bytes" in proc.stderr


def test_huge_integer_literal_is_a_clear_error():
    proc = run(["analyze", "-"], '{"nodes": [], "edges": [], "n": 1' + "0" * 5000 + "}")
    assert proc.returncode == 2 and "not usable JSON" in proc.stderr and "Traceback" not in proc.stderr


def test_out_of_memory_is_a_clear_error(monkeypatch, tmp_path, capsys):
    import bendscope.kappa.cli as kappa_cli

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(kappa_cli, "analyze", exhausted)
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"nodes": ["a"], "edges": []}))
    assert main(["analyze", str(path)]) == 2
    assert "out of memory" in capsys.readouterr().err


def test_loops_command_lists_loops_with_their_polarity(tmp_path):
    plane = {
        "id": "root",
        "parentPlaneId": None,
        "nodes": [{"id": "births"}, {"id": "population"}, {"id": "deaths"}],
        "edges": [
            {"id": "e1", "a": "births", "b": "population", "props": {"kind": "causal", "polarity": "+"}},
            {"id": "e2", "a": "population", "b": "births", "props": {"kind": "causal", "polarity": "+"}},
            {"id": "e3", "a": "population", "b": "deaths", "props": {"kind": "causal", "polarity": "+"}},
            {"id": "e4", "a": "deaths", "b": "population", "props": {"kind": "causal", "polarity": "-"}},
        ],
    }
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"planes": [plane]}), encoding="utf-8")
    proc = run(["loops", str(path), "--max-loops", "5"])
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    loops = [(loop["nodes"], loop["polarity"]) for loop in out["sccs"][0]["loops"]]
    assert loops == [(["births", "population"], "R"), (["deaths", "population"], "B")]
    assert out["complete"] and out["max_loops"] == 5
    bad = run(["loops", "-", "--max-length", "0"], json.dumps({"nodes": [], "edges": []}))
    assert bad.returncode == 2 and "--max-length must be >= 1" in bad.stderr
    sign = run(["loops", "-"], json.dumps({"nodes": ["a"], "edges": [{"source": "a", "target": "a", "polarity": "x"}]}))
    assert sign.returncode == 2 and "polarity must be '+' or '-'" in sign.stderr
    # analyze ignores polarity (whatever it holds), as κ does; loops reads the minus sign as "-"
    odd = {"nodes": ["a"], "edges": [{"source": "a", "target": "a", "polarity": "x"}]}
    same = run(["analyze", "-"], json.dumps(odd))
    assert same.returncode == 0, same.stderr
    minus = json.loads(path.read_text(encoding="utf-8"))
    minus["planes"][0]["edges"][3]["props"]["polarity"] = "\u2212"
    path.write_text(json.dumps(minus), encoding="utf-8")
    assert json.loads(run(["loops", str(path)]).stdout)["sccs"][0]["loops"][1]["polarity"] == "B"


POPULATION = {
    "nodes": ["births", "population", "deaths"],
    "edges": [
        {"source": "births", "target": "population"},
        {"source": "population", "target": "births"},
        {"source": "population", "target": "deaths"},
        {"source": "deaths", "target": "population"},
    ],
}


def test_feedback_arc_set_flag():
    """κ = 1 (one edge splits the region) but every loop breaks only with 2 edges gone."""
    plain = json.loads(run(["analyze", "-"], json.dumps(POPULATION)).stdout)
    assert "feedback_arc_set" not in plain["sccs"][0]
    proc = run(["analyze", "-", "--feedback-arc-set"], json.dumps(POPULATION))
    assert proc.returncode == 0, proc.stderr
    (scc,) = json.loads(proc.stdout)["sccs"]
    assert scc["kappa"] == 1
    assert scc["feedback_arc_set"] == {
        "size": 2,
        "exact": True,
        "lower_bound": 2,
        "edges": [{"source": "population", "target": "births"}, {"source": "population", "target": "deaths"}],
    }
    assert scc == {**plain["sccs"][0], "feedback_arc_set": scc["feedback_arc_set"]}


def test_budgets_on_the_command_line(capsys, tmp_path):
    pairs = [(f"{g}{i}", f"{g}{j}") for g in "qr" for i in range(4) for j in range(4) if i != j]
    pairs += [("q3", "r0"), ("r3", "q0")]
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"nodes": sorted({a for a, _ in pairs}), "edges": [
        {"source": a, "target": b} for a, b in pairs]}))  # fmt: skip
    assert main(["analyze", str(path), "--work-budget", "0", "--recommendation"]) == 0
    out = json.loads(capsys.readouterr().out)
    (scc,) = out["sccs"]
    assert (scc["kappa"], scc["approximate"], scc["kappa_range"]) == (3, True, [1, 3])
    assert "between 1 and 3" in out["recommendation"]
    assert main(["analyze", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["sccs"][0]["kappa"] == 1
    assert main(["analyze", str(path), "--exact-limit", "7"]) == 0
    assert json.loads(capsys.readouterr().out)["sccs"][0]["kappa_range"] == [1, 3]
    assert main(["analyze", str(path), "--feedback-arc-set", "--arcset-budget", "0"]) == 0
    field = json.loads(capsys.readouterr().out)["sccs"][0]["feedback_arc_set"]
    assert field["lower_bound"] <= 12 <= field["size"]
    assert main(["loops", str(path), "--work-budget", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["sccs"][0]["kappa"] == 3
    for flag in ("--work-budget", "--arcset-budget", "--exact-limit"):
        proc = run(["analyze", "-", flag, "-1"], json.dumps(POPULATION))
        assert proc.returncode == 2 and f"{flag} must be >= 0" in proc.stderr

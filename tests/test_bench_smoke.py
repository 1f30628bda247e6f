"""The benchmark script runs (tiny sizes; it asserts κ agreement, not timings)."""

from __future__ import annotations

import bench_engine


def test_bench_quick_runs(capsys):
    bench_engine.main(["--quick"])
    out = capsys.readouterr().out
    assert "vs networkx" in out and "bitmask" in out and "editor-like" in out
    assert "dense SCCs" in out and "Connect-to previews" in out and "analyze in steps" in out
    assert "κ at every size" in out and "minimum feedback arc sets" in out


def test_memory_bench_quick_runs(capsys):
    import bench_memory

    bench_memory.main(["--quick"])
    out = capsys.readouterr().out
    assert "| sqlite | 2,000 |" in out and "| postgresql | 2,000 |" in out and "machine load after" in out


def test_conversation_store_bench_quick_runs(capsys):
    """bench_turns.py on a short conversation, both stores: the table and its statements."""
    import bench_turns

    bench_turns.main(["--turns", "30", "--rounds", "1"])
    out = capsys.readouterr().out
    assert "| sqlite |" in out and "| postgresql |" in out and "statements" in out


def test_write_effect_bench_quick_runs(capsys):
    import bench_write_effect

    bench_write_effect.main(["--quick", "--calls", "6"])
    out = capsys.readouterr().out
    assert "| 2,000 | inside |" in out and "| 2,000 | related |" in out and "machine load after" in out


def test_time_axis_bench_quick_runs(capsys):
    """bench_time.py against the memory of the revision before versions (loaded from git), tiny."""
    import bench_time

    bench_time.main(["--quick", "--backends", "sqlite,postgresql"])
    out = capsys.readouterr().out
    assert "| sqlite | retrieve |" in out and "| postgresql | edit node |" in out and "machine load after" in out


def test_memory_load_test_runs_and_loses_nothing(capsys):
    """Two MCP servers (stdio) on one PostgreSQL database, 40 mixed calls each: no errors,
    every acknowledged write present (the full run is 8 × 2,000: make load-memory)."""
    import load_memory

    summary = load_memory.main(["--servers", "2", "--calls", "40"])
    out = capsys.readouterr().out
    assert summary["errors"] == 0 and summary["problems"] == [], out
    assert summary["calls"] == 80 and summary["acknowledged_writes"] > 10
    assert "all present" in out and "| retrieve_context |" in out


def test_large_graph_browser_bench_quick_runs(capsys):
    """bench_large.py end to end on tiny graphs: the layout worker, frames, the paint split, a
    drag, Connect-to and Arrange in the page (numbers are not checked, only that it runs and
    that a drag left what is far away where it was and Arrange pinned every card)."""
    import bench_large

    summary = bench_large.main(["--quick"])
    out = capsys.readouterr().out
    assert "| giant | 120 | worker | on |" in out and "main-thread d3 / worker" in out and "machine load after" in out
    drag = summary["drags"][120]  # (a card it is dropped on may make way: a few, never the graph)
    assert drag["far"] > 50 and drag["far_median"] == 0.0 and drag["far_moved"] <= 3


def test_live_editor_bench_quick_runs(capsys):
    """bench_live.py end to end, tiny: the real server and page on SQLite and on PostgreSQL
    (two processes), a few writes at 1, 10 and 100 a second — every card arrives on the page
    (its latency is printed, never checked)."""
    import bench_live

    rows = bench_live.main(["--quick"])
    out = capsys.readouterr().out
    assert [(r["backend"], r["cards"], r["rate"]) for r in rows] == [
        (backend, cards, rate) for backend in ("sqlite", "postgresql") for cards in (0, 60) for rate in (1, 10, 100)
    ]
    assert all(r["missing"] == 0 for r in rows), rows
    assert "change-to-page latency" in out and "machine load after" in out


def test_live_page_work_bench_runs(capsys):
    """bench_live_work.py, small: every change's merge, κ and plan are timed (never checked)."""
    import bench_live_work

    medians = bench_live_work.main(["--cards", "60", "--changes", "3", "--per", "2"])
    out = capsys.readouterr().out
    assert set(medians) == {"merge", "kappa", "plan"} and "ms of CPU per change" in out


def test_live_kappa_bench_runs(capsys):
    """bench_live_kappa.py, small: frames and slices while cards arrive (when κ was first exact
    is printed, never checked)."""
    import bench_live_kappa

    found = bench_live_kappa.main(["--cards", "60", "--every", "20", "--seconds", "0.3"])
    out = capsys.readouterr().out
    assert set(found) == {"exact_at_ms", "recomputes", "kappa_ms_per_s"} and "κ first exact" in out


def test_live_time_bench_quick_runs(capsys):
    """bench_live_time.py end to end, tiny: two loops whose edge is invalidated leave the page's
    HUD, and the time control's slider brings each back (the times are printed, never checked)."""
    import bench_live_time

    found = bench_live_time.main(["--quick"])
    out = capsys.readouterr().out
    assert {k: len(v) for k, v in found.items()} == {"invalidation": 2, "step back": 2, "back to now": 2}
    assert "invalidation" in out and "load average" in out


def test_retrieval_quality_bench_runs(capsys):
    import bench_retrieval
    import pytest

    if not (bench_retrieval.DATASET / "corpus.jsonl").exists():
        pytest.skip(f"the SciFact data is not at {bench_retrieval.DATASET}")
    results = bench_retrieval.main(["--claims", "15", "--documents", "200", "--variants", "lexical,expanded-1"])
    out = capsys.readouterr().out
    assert "| lexical |" in out and "| expanded-1 |" in out and "machine load after" in out
    assert results["lexical"]["recall@100"] > 0.5  # (the evidence of 15 claims among 200 other abstracts)


def test_kappa_in_the_page_bench_quick_runs(capsys):
    """bench_kappa_page.py end to end on small regions: the page's κ and its count of the
    fewest edges that break every loop agree with the engine here (asserted by the script;
    timings are printed, never checked)."""
    import bench_kappa_page

    summary = bench_kappa_page.main(["--quick"])
    out = capsys.readouterr().out
    assert [row["cards"] for row in summary["rows"]] == [30, 300] and "machine load after" in out
    assert summary["cuts"][0]["lower"] == summary["cuts"][0]["size"]  # a small region: exact


def test_hand_bench_quick_runs(capsys):
    """bench_hand.py end to end on a tiny graph: a drag with real mouse moves, Connect to…,
    Arrange on a region and on a mixed graph, load → rest, a live burst (numbers are printed,
    never checked; only that each figure was measured and Arrange pinned every card)."""
    import bench_hand

    result = bench_hand.main(["--quick"])
    out = capsys.readouterr().out
    figures = result["figures"]
    assert figures["drag"][150]["region"] > 10 and figures["drag"][150]["zoom"] == 1
    assert figures["connect"][150]["items"] > 0
    assert all(a["pinned"] == 150 for a in figures["arrange"].values())
    assert [r["backend"] for r in result["live"]] == ["sqlite"] and result["live"][0]["missing"] == 0
    assert "| drag at zoom ≈ 1: frame interval" in out and "machine load after" in out
    assert figures["rest"][150]["frames"] > 10 and "| baseline, the page at rest (2 s)" in out


def test_raster_bench_quick_runs(capsys):
    """bench_raster.py on a tiny graph, against this tree's own scene (numbers printed, never checked)."""
    import bench_raster

    bench_raster.main(["--quick", "--against", str(bench_raster.ROOT)])
    out = capsys.readouterr().out
    assert "150 cards, zoom 1.00" in out and "layer, against" in out and "edges" in out and "machine load after" in out


def test_tune_folds_chooses_on_the_other_conversations():
    """tune_folds: the value best on the pair (recall@10, then recall@5), never one that lowers
    single-hop or temporal there; the held-out conversation does not choose."""
    import tune_folds

    def rows(single: float, temporal: float, at5: float) -> list:
        return [tune_folds.Row(4, single, at5, False), tune_folds.Row(2, temporal, at5, True)]

    found = {
        "a": {0.0: rows(0.5, 0.5, 0.5), 1.0: rows(0.5, 0.5, 0.9), 2.0: rows(1.0, 0.4, 0.5)},
        "b": {0.0: rows(0.5, 0.5, 0.5), 1.0: rows(0.5, 0.5, 0.9), 2.0: rows(1.0, 0.4, 0.5)},
        "c": {0.0: rows(0.0, 0.0, 0.0), 1.0: rows(0.0, 0.0, 0.0), 2.0: rows(1.0, 1.0, 1.0)},
    }
    # (2.0 scores best on a+b but lowers temporal there; 1.0 ties 0.0 at recall@10, wins at recall@5)
    assert tune_folds.choose(found, [0.0, 1.0, 2.0], "c") == 1.0
    # (leaving a out: on b+c together 2.0 raises temporal too, so it is chosen)
    assert tune_folds.choose(found, [0.0, 1.0, 2.0], "a") == 2.0
    assert tune_folds.summary(found["a"][0.0])["asked_n"] == 1


def test_toast_spot_bench_runs(capsys):
    """bench_toast_spot.py, small: a placement's work is timed and its reads counted."""
    import bench_toast_spot

    result = bench_toast_spot.main(["--cards", "50", "--repeats", "2"])
    assert result["cards_in_sight"] == 50 and "reads a box" in capsys.readouterr().out

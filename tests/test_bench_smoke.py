"""The benchmark script runs (tiny sizes; it asserts κ agreement, not timings)."""

from __future__ import annotations

import bench_engine


def test_bench_quick_runs(capsys):
    bench_engine.main(["--quick"])
    out = capsys.readouterr().out
    assert "vs networkx" in out and "bitmask" in out and "editor-like" in out
    assert "dense SCCs" in out and "Connect-to previews" in out and "analyze in steps" in out


def test_memory_bench_quick_runs(capsys):
    import bench_memory

    bench_memory.main(["--quick"])
    out = capsys.readouterr().out
    assert "| 2,000 |" in out and "machine load after" in out

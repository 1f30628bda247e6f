"""What the Makefile's serving targets run (``make -n``: printed, not run)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_serve_memory_serves_the_live_editor_not_a_silent_stdio_server():
    """``make serve-memory`` ran the stdio MCP server: a person saw one line and nothing to open
    (and make's own echo of the command on stdout would break an MCP client's stream)."""
    printed = subprocess.run(["make", "-n", "serve-memory", "MEMORY_PORT=9876"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "bendscope-memory serve --http 9876 --editor" in printed, printed

"""The documentation site's generated pages are what the code says (the build itself runs in
``make docs``, warnings as errors)."""

from __future__ import annotations

from pathlib import Path

from bendscope.memory.mcp.schema import reference
from bendscope.memory.mcp.tools import TOOLS

ROOT = Path(__file__).resolve().parents[1]


def test_the_tools_reference_is_generated_from_the_tools():
    page = (ROOT / "docs" / "memory" / "tools.md").read_text(encoding="utf-8")
    assert page == reference(TOOLS), "run `make docs` (it writes docs/memory/tools.md from the code)"
    for tool in TOOLS:
        assert f"## `{tool.name}`" in page
        for name in tool.request.arguments():
            assert f"| `{name}` |" in page


def test_the_readme_counts_the_tools_the_agent_gets():
    import re

    said = re.search(r"The agent gets (\d+) tools", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert said is not None and int(said.group(1)) == len(TOOLS)

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


def test_the_conversation_examples_are_what_the_server_answers_now():
    """The calls the conversations page shows, replayed by a real server over stdio on fresh
    stores, answer exactly what the page shows (but the times of the writes)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("doc_examples", ROOT / "scripts" / "doc_examples.py")
    assert spec is not None and spec.loader is not None
    examples = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = examples  # (its dataclass is looked up there)
    spec.loader.exec_module(examples)
    page = (ROOT / "docs" / "memory" / "conversations.md").read_text(encoding="utf-8")
    done = examples.replay(page)
    assert len(done) >= 10
    wrong = [(e.tool, e.call, sent) for e, sent in done if not examples.same(e.answer, sent)]
    assert not wrong, "run `python scripts/doc_examples.py docs/memory/conversations.md --write`"


def test_the_quick_start_answers_are_what_the_cli_says(tmp_path, capsys):
    """The shell session of the memory's quick start, run on its facts.json: each retrieve's
    routing and `why`, and the import's counts, are what the page shows."""
    import json
    import re

    from bendscope.memory.cli import main

    page = (ROOT / "docs" / "memory" / "index.md").read_text(encoding="utf-8")
    facts = re.search(r"```json\n(\{\"nodes\".*?)```", page, re.S)
    session = re.search(r"```\n(\$ bendscope-memory import.*?)```", page, re.S)
    assert facts is not None and session is not None
    (tmp_path / "facts.json").write_text(facts.group(1), encoding="utf-8")
    steps = re.findall(
        r"^\$ bendscope-memory (\w+) (\"[^\"]*\"|\S+) --store \S+\n(\{.*?\})\n(?=\$|\Z)", session.group(1), re.S | re.M
    )
    assert [command for command, *_ in steps] == ["import", "retrieve", "retrieve"]
    for command, argument, shown in steps:
        given = str(tmp_path / "facts.json") if command == "import" else argument.strip('"')
        assert main([command, given, "--store", str(tmp_path / "memory.sqlite3")]) == 0
        answer = json.loads(capsys.readouterr().out)
        for name, value in re.findall(r'"(\w+)": ("(?:[^"\\]|\\.)*"|\d+)', shown.replace("\n ", " ")):
            assert answer[name] == json.loads(value), (command, argument, name)

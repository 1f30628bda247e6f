"""Replay the MCP calls a docs page shows and check (or write) the answers it shows beside them.

A page's example is a tool's name in backticks, its arguments in a ```json block, then
``answers`` and the answer's text in a ```json block. Each section of the page (a ``##`` or
``###`` heading) holding examples is replayed in order on a fresh SQLite store by a real
``bendscope-memory serve`` over stdio; an answer is the text the server sent. What differs from
run to run (the times writes were made) is left out when comparing.

    python scripts/doc_examples.py docs/memory/conversations.md           # check
    python scripts/doc_examples.py docs/memory/conversations.md --write   # the answers anew
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = re.compile(
    r"^`(?P<tool>\w+)`\n```json\n(?P<call>.*?)\n?```[ \t]*\n\nanswers\n```json\n(?P<answer>.*?)\n?```",
    re.MULTILINE | re.DOTALL,
)
HEADING = re.compile(r"^#{2,3} ", re.MULTILINE)
#: what changes from one run to the next: when a write was made
VOLATILE = re.compile(r'"(created_at|updated_at|recorded_at|last_accessed_at|last_activated_at)":"[^"]*"')


@dataclass
class Example:
    tool: str
    call: str
    answer: str
    start: int  # where the shown answer is in the page
    end: int


def examples(page: str) -> list[list[Example]]:
    """The page's examples, by section (sections without one left out)."""
    cuts = [m.start() for m in HEADING.finditer(page)] + [len(page)]
    sections = []
    for start, end in zip([0, *cuts], cuts, strict=False):
        found = [
            Example(m["tool"], m["call"], m["answer"], start + m.start("answer"), start + m.end("answer"))
            for m in EXAMPLE.finditer(page[start:end])
        ]
        if found:
            sections.append(found)
    return sections


async def _replay(section: list[Example], store: Path) -> list[str]:
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "BENDSCOPE_MEMORY_STORE": str(store), "PYTHONPATH": str(ROOT / "py")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "bendscope.memory", "serve"], env=env)
    answers = []
    async with Client(params, cache=None) as client:
        for example in section:
            result = await client.call_tool(example.tool, json.loads(example.call))
            answers.append(result.content[0].text)
    return answers


def replay(page: str) -> list[tuple[Example, str]]:
    """Each example with the answer a fresh server gives now."""
    done = []
    with tempfile.TemporaryDirectory() as folder:
        for i, section in enumerate(examples(page)):
            answers = asyncio.run(_replay(section, Path(folder) / f"s{i}.sqlite3"))
            done += list(zip(section, answers, strict=True))
    return done


def same(shown: str, sent: str) -> bool:
    """Whether a shown answer is the one sent, but for what changes from run to run."""
    return VOLATILE.sub(r'"\1":…', shown) == VOLATILE.sub(r'"\1":…', sent)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("--write", action="store_true", help="write the answers sent into the page")
    args = parser.parse_args(argv)
    page = args.page.read_text(encoding="utf-8")
    done = replay(page)
    wrong = [(e, sent) for e, sent in done if not same(e.answer, sent)]
    if args.write:
        for example, sent in sorted(wrong, key=lambda w: -w[0].start):
            page = page[: example.start] + sent + page[example.end :]
        args.page.write_text(page, encoding="utf-8")
        print(f"{len(done)} examples, {len(wrong)} answers written anew")
        return 0
    for example, sent in wrong:
        print(f"{example.tool} {example.call[:80]!r}…\n  shown: {example.answer}\n  sent:  {sent}\n")
    print(f"{len(done)} examples, {len(wrong)} differ")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())

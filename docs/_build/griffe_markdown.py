"""A griffe extension for the site's API reference (mkdocstrings): the code's docstrings are
written for ``help()`` and doctest, in reStructuredText habits; this reads them as Markdown.

- a doctest (``>>>`` and its continuation and output lines, up to a blank line) becomes a
  fenced ``pycon`` block, so its brackets are not read as Markdown links;
- a Sphinx role (``:func:`~pkg.mod.name``` , ``:class:`Name```) becomes a code span of the
  name as written (``~`` keeps the last part only);
- a paragraph ending in ``::`` (an RST literal block follows) ends in ``:``.

Nothing in the code changes; only what the site shows. Loaded by ``mkdocs.yml``
(``extensions: [docs/_build/griffe_markdown.py]``); excluded from the site itself.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|const):`~?([^`]+)`")


def _role(match: re.Match[str]) -> str:
    whole = match.group(0)
    name = match.group(1)
    if "`~" in whole:
        name = name.rsplit(".", 1)[-1]
    return f"`{name}`"


def as_markdown(text: str) -> str:
    r"""The docstring ``text`` with its doctests fenced and its roles as code spans.

    >>> as_markdown("Use :func:`~a.b.run`::\n\n" + ">" * 3 + " run([1][0])\n1\n\nDone.").split("\n")
    ['Use `run`:', '', '```pycon', '>>> run([1][0])', '1', '```', '', 'Done.']
    """
    out: list[str] = []
    in_fence = False  # a fence the docstring wrote itself
    in_doctest = False
    indent = ""
    for line in text.split("\n"):
        stripped = line.strip()
        if in_doctest:
            if stripped:
                out.append(line[len(indent) :] if line.startswith(indent) else stripped)
                continue
            out.append(f"{indent}```")
            in_doctest = False
        if stripped.startswith("```"):
            in_fence = not in_fence
        elif not in_fence and stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            out.append(stripped)
            in_doctest = True
            continue
        if not in_fence:
            line = ROLE.sub(_role, line)
            if line.endswith("::") and not line.rstrip(":").endswith(" "):
                line = line[:-1]
        out.append(line)
    if in_doctest:
        out.append(f"{indent}```")
    return "\n".join(out)


class DocstringsAsMarkdown(Extension):
    """Rewrite every loaded object's docstring as Markdown (module's words)."""

    def on_object(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = as_markdown(obj.docstring.value)

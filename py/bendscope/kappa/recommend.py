"""The human sentence of the spec's analyze_topology response."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["recommendation", "short_name"]


def short_name(text: str, limit: int = 40) -> str:
    """A short form of a node's text to name it by beside its id (the memory's loop names,
    the editor's topology export): one line, at most ``limit`` characters. O(len(text)).

    >>> short_name("Revenue follows   market share and customer retention")
    'Revenue follows market share and custom…'
    """
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _plural(count: int, word: str, plural: str) -> str:
    return f"{count} {word if count == 1 else plural}"


def _escaped(text: str) -> str:
    r"""``text`` for inside double quotes: backslashes and quotes escaped, one line.

    >>> _escaped('say "hi"\\now\nthen')
    'say \\"hi\\"\\\\now then'
    """
    return " ".join(text.replace("\\", "\\\\").replace('"', '\\"').split())


def recommendation(result: Mapping[str, Any], names: Mapping[str, str] | None = None) -> str:
    """Say in one paragraph what an ``analyze`` result means for an agent; ``names`` (a
    short form of what a node holds, by id) are written beside the ids they name.

    >>> recommendation({"sccs": [], "dag_nodes": ["a"], "routing": "fast", "max_kappa": 0, "scc_count": 0})
    'This knowledge region is acyclic (κ=0): answer with a single retrieval pass.'
    >>> loop = {"id": "scc-0", "nodes": ["a", "b"], "kappa": 1, "approximate": False,
    ...         "fault_line_edges": [{"source": "a", "target": "b"}]}
    >>> text = recommendation({"sccs": [loop], "max_kappa": 1}, {"a": "Revenue", "b": "R&D budget"})
    >>> text[text.index("[") : text.index("]") + 1]
    '[a "Revenue", b "R&D budget"]'
    """

    def named(node: str) -> str:
        name = (names or {}).get(node)
        return node if not name else f'{node} "{_escaped(name)}"'

    sccs = list(result["sccs"])
    if not sccs:
        return "This knowledge region is acyclic (κ=0): answer with a single retrieval pass."
    if len(sccs) == 1:
        scc = sccs[0]
        sign = "≈" if scc["approximate"] else "="
        head = f"This knowledge region contains 1 strongly connected component with κ{sign}{scc['kappa']}."
    else:
        count = _plural(len(sccs), "strongly connected component", "strongly connected components")
        head = f"This knowledge region contains {count} with max κ={result['max_kappa']}."
    groups = " ".join(f"The concepts [{', '.join(map(named, scc['nodes']))}] are mutually dependent." for scc in sccs)
    faults = [f"{e['source']}→{e['target']}" for scc in sccs for e in scc["fault_line_edges"]]
    sentence = f"{head} {groups}"
    if faults:
        noun = "fault line" if len(faults) == 1 else "fault lines"
        sentence += f" Deliberate on the {noun} before answering: {', '.join(faults)}."
    if any(scc["approximate"] for scc in sccs):
        sentence += " Some components are too large for an exact κ: their κ is their size, an upper bound."
    return sentence

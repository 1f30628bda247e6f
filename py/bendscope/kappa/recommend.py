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


def _edges(count: int) -> str:
    return _plural(count, "edge", "edges")


def recommendation(result: Mapping[str, Any], names: Mapping[str, str] | None = None) -> str:
    """Say in one paragraph what an ``analyze`` result means for an agent; ``names`` (a
    short form of what a node holds, by id) are written beside the ids they name.

    What it says is what κ is: the fewest edges whose removal splits a loop region (leaves
    it no longer strongly connected); the fault lines are the edges of that weakest cut,
    whose removal splits the region but need not break every loop in it. An approximate κ
    (past the work budget) is said as the range it is known to lie in.

    >>> recommendation({"sccs": [], "dag_nodes": ["a"], "routing": "fast", "max_kappa": 0, "scc_count": 0})
    'This knowledge region is acyclic (κ=0): answer with a single retrieval pass.'
    >>> loop = {"id": "scc-0", "nodes": ["a", "b"], "kappa": 1, "approximate": False,
    ...         "fault_line_edges": [{"source": "a", "target": "b"}]}
    >>> text = recommendation({"sccs": [loop], "max_kappa": 1}, {"a": "Revenue", "b": "R&D budget"})
    >>> text[text.index("[") : text.index("]") + 1]
    '[a "Revenue", b "R&D budget"]'
    >>> print(recommendation({"sccs": [loop], "max_kappa": 1}))  # doctest: +NORMALIZE_WHITESPACE
    This knowledge region contains 1 strongly connected component with κ=1: removing 1 edge splits it,
    and no fewer would. The concepts [a, b] are mutually dependent. Deliberate on the fault line before
    answering (the edges of the weakest cut: removing them splits the component but need not break every
    loop in it): a→b.
    """

    def named(node: str) -> str:
        name = (names or {}).get(node)
        return node if not name else f'{node} "{_escaped(name)}"'

    sccs = list(result["sccs"])
    if not sccs:
        return "This knowledge region is acyclic (κ=0): answer with a single retrieval pass."
    approximate = [scc for scc in sccs if scc["approximate"]]
    if len(sccs) == 1:
        scc = sccs[0]
        kappa = scc["kappa"]
        if scc["approximate"]:
            lower = scc.get("kappa_range", [1, kappa])[0]
            head = (
                f"This knowledge region contains 1 strongly connected component with κ≤{kappa}: removing "
                f"{_edges(kappa)} splits it, and no fewer than {lower} would (the fewest is between {lower} and "
                f"{kappa}: the component is too large to search fully within the work budget)."
            )
        else:
            head = (
                f"This knowledge region contains 1 strongly connected component with κ={kappa}: removing "
                f"{_edges(kappa)} splits it, and no fewer would."
            )
    else:
        count = _plural(len(sccs), "strongly connected component", "strongly connected components")
        top = result["max_kappa"]
        sign = "=" if any(not s["approximate"] and s["kappa"] == top for s in sccs) else "≤"
        head = (
            f"This knowledge region contains {count} with max κ{sign}{top} "
            "(κ: the fewest edges whose removal splits a component)."
        )
        if approximate:
            ranges = ", ".join(
                f"{s['id']} between {s.get('kappa_range', [1, s['kappa']])[0]} and {s['kappa']}" for s in approximate
            )
            head += (
                f" Not exact for {ranges}: too large to search fully within the work budget, their κ is the "
                "smallest cut found, an upper bound."
            )
    groups = " ".join(f"The concepts [{', '.join(map(named, scc['nodes']))}] are mutually dependent." for scc in sccs)
    faults = [f"{e['source']}→{e['target']}" for scc in sccs for e in scc["fault_line_edges"]]
    sentence = f"{head} {groups}"
    if faults:
        noun = "fault line" if len(faults) == 1 else "fault lines"
        if len(sccs) == 1:
            whose = "the smallest cut found" if approximate else "the weakest cut"
        else:
            whose = "each component's weakest cut" + (
                " (the smallest found where κ is not exact)" if approximate else ""
            )
        sentence += (
            f" Deliberate on the {noun} before answering (the edges of {whose}: removing them splits the "
            f"component but need not break every loop in it): {', '.join(faults)}."
        )
    return sentence

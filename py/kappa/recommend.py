"""The human sentence of the spec's analyze_topology response."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["recommendation"]


def _plural(count: int, word: str, plural: str) -> str:
    return f"{count} {word if count == 1 else plural}"


def recommendation(result: Mapping[str, Any]) -> str:
    """Say in one paragraph what an ``analyze`` result means for an agent.

    >>> recommendation({"sccs": [], "dag_nodes": ["a"], "routing": "fast", "max_kappa": 0, "scc_count": 0})
    'This knowledge region is acyclic (κ=0): answer with a single retrieval pass.'
    """
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
    groups = " ".join(f"The concepts [{', '.join(scc['nodes'])}] are mutually dependent." for scc in sccs)
    faults = [f"{e['source']}→{e['target']}" for scc in sccs for e in scc["fault_line_edges"]]
    sentence = f"{head} {groups}"
    if faults:
        noun = "fault line" if len(faults) == 1 else "fault lines"
        sentence += f" Deliberate on the {noun} before answering: {', '.join(faults)}."
    if any(scc["approximate"] for scc in sccs):
        sentence += " Some components are too large for an exact κ: their κ is their size, an upper bound."
    return sentence

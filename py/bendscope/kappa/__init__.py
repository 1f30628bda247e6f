"""κ (kappa): the cyclicity invariant of a knowledge graph, exactly.

Pure Python, standard library only; runs the same in CPython and in Pyodide.

>>> from bendscope.kappa import analyze
>>> analyze(["a", "b"], [{"source": "a", "target": "b", "kind": "causal"}])["routing"]
'fast'
"""

from .analyze import DEFAULT_EXACT_LIMIT, KappaCache, analyze
from .budget import deliberation_budget
from .digraph import DIRECTED_KINDS
from .preview import preview_edge_impact, preview_edge_impacts, preview_edge_removal
from .recommend import recommendation

__all__ = [
    "DEFAULT_EXACT_LIMIT",
    "DIRECTED_KINDS",
    "KappaCache",
    "analyze",
    "deliberation_budget",
    "preview_edge_impact",
    "preview_edge_impacts",
    "preview_edge_removal",
    "recommendation",
]

__version__ = "0.1.0"

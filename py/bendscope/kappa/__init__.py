"""κ (kappa): the cyclicity invariant of a knowledge graph, exactly.

Pure Python, standard library only; runs the same in CPython and in Pyodide.

κ of a loop region (a strongly connected component over causal/temporal edges) is the
fewest edges whose removal splits it; ``analyze`` gives it per region, exactly within a
work budget and as a range past it (``kappa.analyze``). Breaking *every* loop of a region
can take more edges: that is its minimum feedback arc set (``kappa.arcset``).

>>> from bendscope.kappa import analyze
>>> analyze(["a", "b"], [{"source": "a", "target": "b", "kind": "causal"}])["routing"]
'fast'
"""

from .analyze import DEFAULT_EXACT_LIMIT, DEFAULT_WORK_BUDGET, KappaCache, analyze
from .arcset import DEFAULT_ARCSET_BUDGET, feedback_arc_set_field, minimum_feedback_arc_set
from .budget import deliberation_budget
from .digraph import DIRECTED_KINDS
from .preview import preview_edge_impact, preview_edge_impacts, preview_edge_impacts_in, preview_edge_removal
from .recommend import recommendation

__all__ = [
    "DEFAULT_ARCSET_BUDGET",
    "DEFAULT_EXACT_LIMIT",
    "DEFAULT_WORK_BUDGET",
    "DIRECTED_KINDS",
    "KappaCache",
    "analyze",
    "deliberation_budget",
    "feedback_arc_set_field",
    "minimum_feedback_arc_set",
    "preview_edge_impact",
    "preview_edge_impacts",
    "preview_edge_impacts_in",
    "preview_edge_removal",
    "recommendation",
]

__version__ = "0.1.0"

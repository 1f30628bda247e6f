"""κ decisions for the menus: Connect-to previews, Bend's target, Unbend's edge.

Menu labels show the κ of the loop the edge touches (the engine's
``scc_kappa_before`` → ``scc_kappa_after``): "creates feedback loop" reads
"κ: 0→1" even when another loop elsewhere on the plane has a larger κ.
"""

from __future__ import annotations

from dataclasses import dataclass

from kappa import DEFAULT_EXACT_LIMIT, preview_edge_impacts, preview_edge_removal

from .editor import Editor
from .topology import plane_graph

RADIUS = 500.0
MAX_CANDIDATES = 50  # the Connect-to submenu lists at most this many (nearest first)
CHANGE_TONE = "kappa"  # cyan in the menu
NO_CHANGE_TONE = "muted"  # grey


def _limit(editor: Editor) -> int:
    return DEFAULT_EXACT_LIMIT if editor.exact_limit is None else editor.exact_limit


def display_name(editor: Editor, node_id: str, limit: int = 28) -> str:
    """A node's first text line (markdown markers stripped), or its id."""
    node = editor.plane.nodes.get(node_id)
    text = node.text.strip() if node else ""
    first = text.split("\n", 1)[0].lstrip("#>-*+ ").strip() if text else ""
    first = first or node_id
    return first if len(first) <= limit else first[: limit - 1] + "…"


@dataclass(frozen=True)
class ConnectPreview:
    target: str
    label: str
    tone: str
    closes_cycle: bool
    kappa_before: int
    kappa_after: int
    description: str


def _short(description: str) -> str:
    return "no change" if description == "no topological change" else description


def connect_previews(
    editor: Editor, node_id: str, radius: float = RADIUS, limit: int | None = None
) -> list[ConnectPreview]:
    """The nodes within ``radius`` of ``node_id`` (the ``limit`` nearest, if given), nearest
    first, with the impact of adding a causal edge to each. One batched engine call on
    the cached topology."""
    candidates = [n.id for n in editor.nodes_near(node_id, radius)][:limit]
    if not candidates:
        return []
    nodes, edges = plane_graph(editor.plane)
    topology = editor.topology()
    impacts = preview_edge_impacts(nodes, edges, node_id, candidates, base=topology.result, exact_limit=_limit(editor))
    out = []
    for target in candidates:
        p = impacts[target]
        before, after = p["scc_kappa_before"], p["scc_kappa_after"]
        closes = bool(p["merged_scc_nodes"])
        changed = p["description"] != "no topological change"
        label = f"→ {display_name(editor, target)} (κ: {before}→{after} — {_short(p['description'])})"
        out.append(
            ConnectPreview(
                target, label, CHANGE_TONE if changed else NO_CHANGE_TONE, closes, before, after, p["description"]
            )
        )
    return out


def in_loop(editor: Editor, node_id: str) -> bool:
    """Whether the node is in an SCC with κ > 0."""
    scc = editor.topology().scc(node_id)
    return scc is not None and scc["kappa"] > 0


def bend_target(editor: Editor, node_id: str, radius: float = RADIUS) -> str | None:
    """The nearest node within ``radius`` (ties by id) such that node → it closes a
    cycle, i.e. one that already reaches the node along causal/temporal edges.

    One backward reachability pass, no κ computation, so the node menu can grey
    the item out as it opens. O(n + m).
    """
    preds: dict[str, list[str]] = {}
    for e in editor.plane.edges.values():
        if e.props.kind in ("causal", "temporal") and e.a != e.b:
            preds.setdefault(e.b, []).append(e.a)
    reaches = {node_id}
    stack = [node_id]
    while stack:
        for p in preds.get(stack.pop(), ()):
            if p not in reaches:
                reaches.add(p)
                stack.append(p)
    for node in editor.nodes_near(node_id, radius):
        if node.id in reaches:
            return node.id
    return None


@dataclass(frozen=True)
class UnbendChoice:
    edge_id: str
    source: str
    target: str
    kappa_before: int
    kappa_after: int
    description: str
    question: str


def unbend_choice(editor: Editor, node_id: str) -> UnbendChoice | None:
    """The fault-line edge Unbend removes for ``node_id``'s loop, with its confirmation.

    Among the SCC's fault-line arcs (sorted by source, target) the first one touching
    the node is chosen, else the first one; the edge is the first causal/temporal edge
    of the plane drawing that arc.
    """
    topology = editor.topology()
    scc = topology.scc(node_id)
    if scc is None or scc["kappa"] <= 0 or not scc["fault_line_edges"]:
        return None
    arcs = [(f["source"], f["target"]) for f in scc["fault_line_edges"]]
    touching = [a for a in arcs if node_id in a]
    source, target = (touching or arcs)[0]
    edge_id = next(
        e.id
        for e in editor.plane.edges.values()
        if e.a == source and e.b == target and e.props.kind in ("causal", "temporal")
    )
    nodes, edges = plane_graph(editor.plane)
    p = preview_edge_removal(nodes, edges, source, target, base=topology.result, exact_limit=_limit(editor))
    before, after = p["scc_kappa_before"], p["scc_kappa_after"]
    question = (
        f"Remove edge {display_name(editor, source)}→{display_name(editor, target)}? "
        f"This breaks the feedback loop (κ: {before}→{after})."
    )
    return UnbendChoice(edge_id, source, target, before, after, p["description"], question)

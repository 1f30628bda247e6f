"""κ decisions for the menus: Connect-to previews, Bend's target, Unbend's edge.

Menu labels show the κ of the loop the edge touches (the engine's
``scc_kappa_before`` → ``scc_kappa_after``): "creates feedback loop" reads
"κ: 0→1" even when another loop elsewhere on the plane has a larger κ. A loop whose κ is
past the engine's work budget shows its bounds ("κ: 1–3→1–4"), never its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view.explain import kappa_span, span_text
from bendscope.bend.kappa_view.topology_cache import plane_graph
from bendscope.bend.render.textlayout import first_line
from bendscope.kappa import DEFAULT_EXACT_LIMIT, DIRECTED_KINDS, preview_edge_impacts_in, preview_edge_removal
from bendscope.kappa.digraph import reaching

RADIUS = 500.0
MAX_CANDIDATES = 50  # the Connect-to submenu lists at most this many (nearest first)
CHANGE_TONE = "kappa"  # cyan in the menu: the edge changes the loops
NO_CHANGE_TONE = ""  # the menu's ink: an edge that changes no loop
CONNECTED_TONE = "connected"  # grey, italic, with a check mark: there already (not a choice)


def _limit(editor: Editor) -> int:
    return DEFAULT_EXACT_LIMIT if editor.exact_limit is None else editor.exact_limit


#: what a card without text is called wherever a card is named (never its internal id)
EMPTY_NAME = "(empty card)"


def _first_line(editor: Editor, node_id: str) -> str:
    node = editor.plane.nodes.get(node_id)
    return first_line(node.text, len(node.text)) if node else ""


def display_name(editor: Editor, node_id: str, limit: int = 28) -> str:
    """A node's first text line (markdown markers stripped, ``textlayout.first_line``), or
    :data:`EMPTY_NAME` for a card without text — an id is internal and never shown."""
    node = editor.plane.nodes.get(node_id)
    return (first_line(node.text, limit) if node else "") or EMPTY_NAME


def telling_name(editor: Editor, node_id: str, limit: int = 28) -> str:
    """:func:`display_name`, an empty card told apart from others by where it is: beside the
    nearest card with text ("(empty card below Revenue)"). O(nodes) for an empty card, O(1) else."""
    if _first_line(editor, node_id) or node_id not in editor.plane.nodes:
        return display_name(editor, node_id, limit)
    me = editor.plane.nodes[node_id]
    named = [n for n in editor.plane.nodes.values() if n.id != node_id and _first_line(editor, n.id)]
    if not named:
        return EMPTY_NAME
    near = min(named, key=lambda n: ((n.x - me.x) ** 2 + (n.y - me.y) ** 2, n.id))
    dx, dy = me.x - near.x, me.y - near.y
    side = ("right of" if dx > 0 else "left of") if abs(dx) > abs(dy) else ("below" if dy > 0 else "above")
    return f"(empty card {side} {display_name(editor, near.id, limit)})"


@dataclass(frozen=True)
class ConnectPreview:
    target: str
    label: str
    tone: str
    closes_cycle: bool
    kappa_before: int
    kappa_after: int
    description: str
    connected: bool = False  # a causal edge node → target exists: Connect-to would add nothing


def _short(description: str, approximate: bool = False) -> str:
    """The engine's description as a menu says it; past the work budget a rise is one of the
    upper bound only ("may strengthen loop")."""
    if approximate and description == "strengthens loop":
        return "may strengthen loop"
    return "no change" if description == "no topological change" else description


def connect_previews(
    editor: Editor, node_id: str, radius: float = RADIUS, limit: int | None = None
) -> list[ConnectPreview]:
    """The nodes within ``radius`` of ``node_id`` (the ``limit`` nearest, if given), nearest
    first, with the impact of adding a causal edge to each; targets it already has a
    causal edge to are marked ``connected``. One batched engine call on the cached
    topology."""
    return previews_for(editor, node_id, [n.id for n in editor.nodes_near(node_id, radius)][:limit])


def connect_preview(editor: Editor, node_id: str, target: str, kind: str | None = None) -> ConnectPreview:
    """The preview of one new edge ``node_id → target`` of ``kind`` (the editor's connect kind
    if not given) for drag-to-connect, worded as in the Connect-to submenu."""
    return previews_for(editor, node_id, [target], kind)[0]


def previews_for(editor: Editor, node_id: str, candidates: list[str], kind: str | None = None) -> list[ConnectPreview]:
    """Previews of a new ``node_id → t`` edge of ``kind`` (the editor's connect kind if not
    given) for the given targets, in their order (one engine call on the cached topology, none
    for a kind loops do not follow: it changes nothing); targets with an edge of that kind from
    the node already are ``connected``."""
    if not candidates:
        return []
    kind = kind or editor.connect_kind
    connected = {e.b for e in editor.plane.edges.values() if e.a == node_id and e.props.kind == kind}
    impacts: Mapping[str, Any] = {}
    if kind in DIRECTED_KINDS:
        topology = editor.topology()
        cache = editor.topology_cache
        impacts = preview_edge_impacts_in(
            cache.digraph(editor.plane),
            node_id,
            candidates,
            base=topology.result,
            exact_limit=_limit(editor),
            pred=cache.predecessors(editor.plane),
        )
    out = []
    for target in candidates:
        if target in connected:
            label = f"✓ {telling_name(editor, target)} — already connected"
            out.append(ConnectPreview(target, label, CONNECTED_TONE, False, 0, 0, "already connected", True))
            continue
        if kind not in DIRECTED_KINDS:
            # the κ around the two ends (the larger of their loops'), which the edge leaves as it is
            sccs = [editor.topology().scc(n) for n in (node_id, target)]
            kappa = max((int(s["kappa"]) for s in sccs if s is not None), default=0)
            spans = [kappa_span(s) for s in sccs if s is not None]
            shown = span_text(max((s[0] for s in spans), default=0), kappa)
            label = f"→ {telling_name(editor, target)} (κ: {shown}→{shown} — no change: {kind} edges are in no loop)"
            out.append(ConnectPreview(target, label, NO_CHANGE_TONE, False, kappa, kappa, "no topological change"))
            continue
        p = impacts[target]
        before, after = p["scc_kappa_before"], p["scc_kappa_after"]
        closes = bool(p["merged_scc_nodes"])
        changed = p["description"] != "no topological change"
        said = _short(p["description"], _bound(p))
        label = f"→ {telling_name(editor, target)} (κ: {_change(editor, node_id, p)} — {said})"
        if p["description"] == "merges feedback loops":  # ("κ: 2→1" read as a loop weakened)
            label = f"→ {telling_name(editor, target)} ({_merge_words(editor, p)})"
        out.append(
            ConnectPreview(
                target, label, CHANGE_TONE if changed else NO_CHANGE_TONE, closes, before, after, p["description"]
            )
        )
    return out


def _bound(p: Mapping[str, Any]) -> bool:
    """Whether the region's κ in the preview ``p`` are upper bounds (past the work budget); the
    graph's max κ may be one while they are exact (``approximate`` then says so, not this)."""
    return bool(p.get("scc_approximate"))


def _change(editor: Editor, node_id: str, p: Mapping[str, Any]) -> str:
    """κ before → after as a menu says it. Past the work budget (``approximate``) the engine's
    values are upper bounds (real cuts) and the region's lower bound stands on both sides:
    adding an arc never lowers κ; removing one lowers it by one at most (and a region that
    breaks has none). O(1)."""
    before, after = int(p["scc_kappa_before"]), int(p["scc_kappa_after"])
    if p.get("enlarges_existing_scc"):  # loops merge into one of κ 1: before, the largest of theirs
        topology = editor.topology()
        spans = [kappa_span(s) for s in {id(s): s for s in map(topology.scc, p["merged_scc_nodes"]) if s}.values()]
        return f"{span_text(max(s[0] for s in spans), max(s[1] for s in spans))}→{after}"
    if not _bound(p):
        return f"{before}→{after}"
    scc = editor.topology().scc(node_id)
    lower = kappa_span(scc)[0] if scc is not None else before
    if after >= before:  # (an edge added)
        return f"{span_text(min(lower, before), before)}→{span_text(min(lower, after), after)}"
    floor = 1 if after > 0 else 0  # (a loop that remains has κ ≥ 1)
    return f"{span_text(min(lower, before), before)}→{span_text(min(max(floor, lower - 1), after), after)}"


def _merge_words(editor: Editor, p: Mapping[str, Any]) -> str:
    """An added arc that merges loops, said as Unbend says a split: the loops' κ, then the
    merged region's — "merges 2 loop regions, of κ 2 each, into one of κ 1" — where "κ: 2→1"
    read as a loop weakened. Past the work budget a loop's κ is its bounds. O(merged cards).

    >>> from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
    >>> plane = Plane("p")
    >>> for node_id in "abcd":
    ...     plane.add_node(Node(node_id, node_id.upper()))
    >>> for k, (a, b) in enumerate(["ab", "ba", "cd", "dc", "bc"]):
    ...     plane.add_edge(Edge(f"e{k}", a, b, EdgeProps(kind="causal")))
    >>> ed = Editor(Document([plane], "p"))
    >>> _merge_words(ed, {"merged_scc_nodes": list("abcd"), "scc_kappa_after": 1})
    'merges 2 loop regions, of κ 1 each, into one of κ 1'
    """
    topology = editor.topology()
    sccs = {id(s): s for s in map(topology.scc, p["merged_scc_nodes"]) if s}.values()
    kappas = [span_text(*kappa_span(s)) for s in sccs]
    return f"merges {len(kappas)} loop regions, {_kappas_of(kappas)}, into one of κ {p['scc_kappa_after']}"


def in_loop(editor: Editor, node_id: str) -> bool:
    """Whether the node is in an SCC with κ > 0."""
    scc = editor.topology().scc(node_id)
    return scc is not None and scc["kappa"] > 0


def bend_target(editor: Editor, node_id: str, radius: float = RADIUS) -> str | None:
    """The nearest node within ``radius`` (ties by id) such that node → it closes a
    cycle, i.e. one that already reaches the node along causal/temporal edges, and
    that the node has no such arc to yet.

    One backward reachability pass on the plane's digraph (built once per structure: the
    topology cache's), no κ computation, so the node menu can grey the item out as it
    opens. O(what reaches the node) + O(n) for the nodes near it.
    """
    cache = editor.topology_cache
    graph = cache.digraph(editor.plane)
    u = graph.index.get(node_id)
    if u is None:
        return None
    reaches = reaching(cache.predecessors(editor.plane), u)
    has_arc = set(graph.out[u])
    for node in editor.nodes_near(node_id, radius):
        v = graph.index.get(node.id)
        if v is not None and v != u and reaches[v] and v not in has_arc:
            return node.id
    return None


def bend_preview(editor: Editor, node_id: str) -> ConnectPreview | None:
    """What Bend would do for ``node_id``: its target and the κ change, worded as the
    Connect-to previews are; None when Bend has no target."""
    target = bend_target(editor, node_id)
    if target is None:
        return None
    (p,) = previews_for(editor, node_id, [target], "causal")  # (Bend's edge is causal, whatever the connect kind)
    return replace(p, label="Bend " + p.label, tone=CHANGE_TONE)


def _names(editor: Editor, ids: list[str], shown: int = 3) -> str:
    names = [display_name(editor, i) for i in ids[:shown]]
    if len(ids) > shown:
        names.append(f"{len(ids) - shown} more")
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _kappas_of(groups: list[str]) -> str:
    """The κ of loops as a sentence says them, most tied first: "of κ 2 each", "of κ 2",
    "1 of κ 2 and 3 of κ 1" (``groups``: each loop's κ as :func:`span_text` writes it). O(n log n).

    >>> _kappas_of(["2", "2"]), _kappas_of(["3"]), _kappas_of(["1", "2", "1", "1–3"])
    ('of κ 2 each', 'of κ 3', '1 of κ 1–3, 1 of κ 2 and 2 of κ 1')
    """
    counts: dict[str, int] = {}
    for text in sorted(groups, key=lambda t: [-int(v) for v in reversed(t.split("–"))]):
        counts[text] = counts.get(text, 0) + 1
    if len(counts) == 1:
        return f"of κ {groups[0]}" + (" each" if len(groups) > 1 else "")
    said = [f"{count} of κ {text}" for text, count in counts.items()]
    return ", ".join(said[:-1]) + " and " + said[-1]


def _remaining(p: Mapping[str, Any]) -> list[str]:
    """Each loop left by a removal previewed in ``p``: its κ, or its bounds past the budget."""
    ranges = p.get("remaining_scc_kappa_ranges")
    if ranges is not None:
        return [span_text(int(lower), int(upper)) for lower, upper in ranges]
    kappas = p.get("remaining_scc_kappas")
    if kappas is None:  # (a preview from before the engine listed them: the largest for each)
        return [str(p["scc_kappa_after"])] * len(p.get("remaining_scc_nodes") or [])
    return [str(k) for k in kappas]


def removal_effect(editor: Editor, loop_nodes: list[str], p: Mapping[str, Any]) -> str:
    """One sentence on what removing the arc previewed in ``p`` does to the loop made
    of ``loop_nodes``, following the real change (breaks, weakens, splits, nodes leave).
    Where loops remain that are more tightly tied than the loop was (a split, or a shrink that
    drops the cards it hung on by), their κ is said apart from the loop's: "κ: 1→2" read as κ
    rising when an edge was taken away.

    >>> from bendscope.bend.model.demo import demo_document
    >>> ed = Editor(demo_document())
    >>> removal_effect(ed, ["a", "b"], {"description": "weakens loop", "scc_kappa_before": 2,
    ...                                 "scc_kappa_after": 1, "remaining_scc_nodes": [["a", "b"]]})
    'This weakens the feedback loop; a loop remains (κ: 2→1).'
    >>> removal_effect(ed, list("abcdef"), {"description": "splits loop", "scc_kappa_before": 1,
    ...     "scc_kappa_after": 2, "remaining_scc_nodes": [list("abc"), list("def")], "remaining_scc_kappas": [2, 2]})
    'This splits the loop region (κ 1) into 2 loop regions, of κ 2 each.'
    """
    before, after = p["scc_kappa_before"], p["scc_kappa_after"]
    change = _change(editor, loop_nodes[0], p) if loop_nodes else f"{before}→{after}"
    kappa = f"(κ: {change})"
    was = change.split("→", 1)[0]  # (the loop's κ, or its bounds)
    remaining = p.get("remaining_scc_nodes") or []
    description = p["description"]
    if description == "breaks feedback loop":
        return f"This breaks the feedback loop {kappa}."
    if description == "weakens loop":  # (past the work budget only the upper bound is known to fall)
        verb = "may weaken" if _bound(p) else "weakens"
        return f"This {verb} the feedback loop; a loop remains {kappa}."
    if description == "splits loop":
        parts = _kappas_of(_remaining(p))
        return f"This splits the loop region (κ {was}) into {len(remaining)} loop regions, {parts}."
    if description == "shrinks loop":
        kept = set(remaining[0]) if remaining else set()
        left = sorted(n for n in loop_nodes if n not in kept)
        verb = "leaves" if len(left) == 1 else "leave"
        if after > before:
            rest = f"a loop {_kappas_of(_remaining(p)[:1])} (the whole had κ {was})"
            return f"{_names(editor, left)} {verb} the feedback loop; the rest stays {rest}."
        return f"{_names(editor, left)} {verb} the feedback loop; the rest stays a loop {kappa}."
    return f"The feedback loop stays as it is {kappa}."


@dataclass(frozen=True)
class UnbendChoice:
    edge_id: str
    source: str
    target: str
    kappa_before: int
    kappa_after: int
    description: str
    question: str
    edge_ids: tuple[str, ...] = ()  # every causal/temporal edge drawing the arc (parallel copies)


def unbend_choice(editor: Editor, node_id: str) -> UnbendChoice | None:
    """The fault-line arc Unbend removes for ``node_id``'s loop, with its confirmation.

    Among the SCC's fault-line arcs (sorted by source, target) the first one touching
    the node is chosen, else the first one; every causal/temporal edge of the plane
    drawing that arc is removed (one alone would leave the arc in place). The question
    says what really happens to the loop (``removal_effect``).
    """
    topology = editor.topology()
    scc = topology.scc(node_id)
    if scc is None or scc["kappa"] <= 0 or not scc["fault_line_edges"]:
        return None
    arcs = [(f["source"], f["target"]) for f in scc["fault_line_edges"]]
    touching = [a for a in arcs if node_id in a]
    source, target = (touching or arcs)[0]
    edge_ids = tuple(
        e.id
        for e in editor.plane.edges.values()
        if e.a == source and e.b == target and e.props.kind in ("causal", "temporal")
    )
    nodes, edges = plane_graph(editor.plane)
    p = preview_edge_removal(nodes, edges, source, target, base=topology.result, exact_limit=_limit(editor))
    before, after = p["scc_kappa_before"], p["scc_kappa_after"]
    what = "edge" if len(edge_ids) == 1 else f"the {len(edge_ids)} edges"
    question = f"Remove {what} {display_name(editor, source)}→{display_name(editor, target)}? " + removal_effect(
        editor, list(scc["nodes"]), p
    )
    return UnbendChoice(edge_ids[0], source, target, before, after, p["description"], question, edge_ids)

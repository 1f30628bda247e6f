"""What the inspector says about the selected card, edge or cards: plain sentences, κ in
words (``bend.kappa_view.explain``), the loops through them when the loop list is known, and the
fewest edges that break every loop of the region (``bend.kappa_view.loop_cuts``: not κ, which only
splits it) with a button that shows them on the canvas (the action ``show-cuts``, K).

>>> from bendscope.bend.editor.editor import Editor
>>> from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
>>> plane = Plane("p")
>>> for node_id, text in (("a", "Births"), ("b", "Population")):
...     plane.add_node(Node(node_id, text))
>>> plane.add_edge(Edge("e1", "a", "b", EdgeProps(kind="causal", polarity="+")))
>>> plane.add_edge(Edge("e2", "b", "a", EdgeProps(kind="causal", polarity="+")))
>>> editor = Editor(Document([plane], "p"))
>>> editor.select(["a"])
>>> for text, _ in inspector_rows(editor, editor.topology(), editor.loops(wait=True), editor.loop_cuts(wait=True))[1]:
...     print(text)
Births
normal card
in loop region 1 (2 cards)
κ = 1: removing 1 edge (the fault line) splits this region; the loops inside each part remain
1 edge breaks every loop here (the fewest)
Show them (K)
on 1 loop: 1 reinforcing
"""

from __future__ import annotations

from typing import Any

from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view.explain import kappa_sentence, kappa_span, loops_sentence, max_kappa_span, region_name
from bendscope.bend.kappa_view.kappa_ui import display_name
from bendscope.bend.kappa_view.loop_cuts import CutReport, RegionCuts, cut_words
from bendscope.bend.kappa_view.loop_list import LoopReport
from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import POLAR_KINDS

#: a row: its text and its CSS classes ("title", "row", "row kappa")
Row = tuple[str, str]
POLARITY_WORDS = {"+": "+ (same direction)", "-": "− (opposite direction)"}
#: how to set an edge's polarity, with keys (False) or with a finger (True)
UNSET_POLARITY = {False: "S or the edge's menu sets it", True: "long-press the edge, then Polarity, to set it"}


def memory_summary(data: dict[str, Any] | None) -> str:
    """The line "semantic · confidence 0.9" for a node that came from the agent memory
    (its fields travel in ``data["memory"]``, see memory.interop); "" for other nodes.

    >>> memory_summary({"memory": {"node_type": "semantic", "confidence": 0.9}}), memory_summary(None)
    ('semantic · confidence 0.9', '')
    """
    fields = (data or {}).get("memory")
    if not isinstance(fields, dict):
        return ""
    parts = []
    if isinstance(fields.get("node_type"), str):
        parts.append(fields["node_type"])
    confidence = fields.get("confidence")
    if isinstance(confidence, (int, float)) and not isinstance(confidence, bool):
        parts.append(f"confidence {confidence:g}")
    return " · ".join(parts)


def _loops_row(report: LoopReport | None, count: tuple[int, dict[str, int]], complete: bool) -> list[Row]:
    """The loops through a card or an edge of a loop region — always on one at least (its region's
    cards all reach one another), even when none of those listed passes through it."""
    if report is None:
        return [("loops: counting…", "row")]
    if count[0] == 0 and not complete:
        return [("on loops longer than those listed (the Loops panel lists this region's shortest)", "row kappa")]
    return [(loops_sentence(count[0], count[1], complete), "row kappa")]


#: the row of a button: its text and "button <action id>"
SHOW_CUTS = "button show-cuts"


def _cut_rows(
    editor: Editor, cuts: CutReport | None, region: RegionCuts | None, where: str, touch: bool = False
) -> list[Row]:
    """What breaking every loop of ``where`` takes, and the button that shows those edges
    (``touch``: without its key)."""
    if cuts is None:
        return [("edges that break every loop: counting…", "row")]
    lower, size = (region.lower, region.size) if region is not None else (cuts.lower, cuts.size)
    if lower == size:
        text = f"{cut_words(lower, size)} {where} (the fewest)"
    else:
        text = f"{cut_words(lower, size)} {where} (bounds: the exact fewest is past this page's work budget)"
    button = "Hide them" if editor.cuts_shown else "Show them"
    return [(text, "row kappa"), (button if touch else f"{button} (K)", SHOW_CUTS)]


def inspector_rows(
    editor: Editor,
    topo: Topology,
    loops: LoopReport | None = None,
    cuts: CutReport | None = None,
    *,
    touch: bool = False,
) -> tuple[tuple[Any, ...] | None, list[Row]]:
    """(a key that changes when the rows do, the rows) for the editor's selection, with
    ``topo`` the topology the frame shows, ``loops`` the loop list of that scope and ``cuts``
    its fewest edges that break every loop (None: not known yet). ``touch``: the words name a
    finger's gestures, not keys. O(1) lookups plus the rows."""
    plane = editor.plane
    report_id = (id(loops) if loops is not None else None, id(cuts) if cuts is not None else None, editor.cuts_shown,
                 touch)  # fmt: skip
    if editor.selected_edge and editor.selected_edge in plane.edges:
        e = plane.edges[editor.selected_edge]
        fault = e.id in topo.fault_edges and not topo.pending
        in_scc = not topo.pending and topo.scc(e.a) is not None and topo.scc(e.a) is topo.scc(e.b)
        key: tuple[Any, ...] | None = ("edge", e.id, e.a, e.b, e.props, fault, in_scc, report_id)
        rows = [
            (f"{display_name(editor, e.a)} → {display_name(editor, e.b)}", "title"),
            (f"{e.props.kind} edge · strength {e.props.strength}", "row"),
        ]
        if e.props.kind in POLAR_KINDS:
            sign = e.props.polarity
            rows.append(
                (
                    f"polarity: {POLARITY_WORDS[sign]}" if sign else f"polarity: not set ({UNSET_POLARITY[touch]})",
                    "row",
                )
            )
        if e.props.label:
            rows.append((f"label: {e.props.label}", "row"))
        if fault:
            rows.append(("fault line: removing it with its region's other fault lines splits the region "
                         "(the loops inside each part remain)", "row kappa"))  # fmt: skip
        if cuts is not None and in_scc and e.id in cuts.edges:
            shows = "" if touch else " (K shows them)"
            rows.append((f"one of the fewest edges that break every loop{shows}", "row kappa"))
        if in_scc and e.props.kind in POLAR_KINDS:
            group = _group_complete(loops, topo.scc(e.a))
            rows += _loops_row(loops, loops.through_edge(e.id) if loops else (0, {}), group)
        return key, rows
    if len(editor.selection) > 1:
        key = ("selection", len(editor.selection), topo.max_kappa, topo.scc_count, topo.result["routing"], report_id)
        lower, upper = max_kappa_span(topo.result)
        kappa = f"=\u00a0{upper}" if lower == upper else f"{lower}–{upper} (bounds)"
        rows = [
            (f"{len(editor.selection)} nodes selected", "title"),  # (a figure stays with its words: no-break spaces)
            (f"κ of the selection {kappa} · loop\u00a0regions:\u00a0{topo.scc_count}", "row kappa"),
            (routing_words(topo.max_kappa), "row"),
        ]
        if loops is not None and loops.groups:
            total = sum(len(g.loops) for g in loops.groups)
            counts = {c: sum(g.counts[c] for g in loops.groups) for c in ("R", "B", "?")}
            rows.append((loops_sentence(total, counts, loops.complete).replace("on ", "", 1), "row kappa"))
        if topo.max_kappa > 0:
            rows += _cut_rows(editor, cuts, None, "of the selection", touch)
        return key, rows
    if len(editor.selection) == 1 and editor.selection[0] in plane.nodes:
        n = plane.nodes[editor.selection[0]]
        scc = topo.scc(n.id)
        key = ("node", n.id, n.text, n.type, n.pinned, id(n.data), None if scc is None else (scc["id"], scc["kappa"]),
               topo.pending, report_id)  # fmt: skip
        rows = [
            (display_name(editor, n.id, 60), "title"),
            (f"{n.type} card{' · pinned (stays put)' if n.pinned else ''}", "row"),
        ]
        memory = memory_summary(n.data)
        if memory:
            rows.append((memory, "row"))
        if topo.pending:
            rows.append(("κ: computing…", "row"))
        elif scc is not None:
            rows.append((f"in {region_name(scc['id'])} ({len(scc['nodes']):,} cards)", "row kappa"))
            rows.append((kappa_sentence(scc["kappa"], scc["approximate"], kappa_span(scc)[0]), "row kappa"))
            region = None if cuts is None else cuts.region(scc["id"])
            rows += _cut_rows(editor, None if region is None else cuts, region, "here", touch)
            rows += _loops_row(loops, loops.through_node(n.id) if loops else (0, {}), _group_complete(loops, scc))
        else:
            rows.append(("on no feedback loop", "row"))
        return key, rows
    return None, []


def _group_complete(loops: LoopReport | None, scc: dict[str, Any] | None) -> bool:
    """Whether every loop of the SCC is listed (so a count through it is exact)."""
    if loops is None or scc is None:
        return False
    return all(g.complete for g in loops.groups if g.scc_id == scc["id"])


def routing_words(max_kappa: int) -> str:
    """How an agent would read the selection, in words (the engine's ``routing`` explained).

    >>> routing_words(2), routing_words(0)
    ('routing: deliberate (loops: reason them through)', 'routing: fast (one retrieval pass)')
    """
    return "routing: deliberate (loops: reason them through)" if max_kappa else "routing: fast (one retrieval pass)"

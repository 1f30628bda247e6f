"""What the Loops panel shows, as plain text records (the page turns them into DOM with
textContent only): a summary, then per loop region its title (κ, size, counts per class)
and its loops shortest first, each as its mark (its class and its number among the loops of
that class, "R1", "B2", as causal loop diagrams number them), its cards in order and the
fault lines it runs through; long lists shortened with a "more" line. The loops shown are
the ones the canvas marks when the panel's markers are on (``PanelView.markers``).

>>> from bendscope.bend.editor.editor import Editor
>>> from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
>>> plane = Plane("p")
>>> for node_id, text in (("a", "Births"), ("b", "Population"), ("c", "Deaths")):
...     plane.add_node(Node(node_id, text))
>>> for k, (a, b, sign) in enumerate([("a", "b", "+"), ("b", "a", "+"), ("b", "c", "+"), ("c", "b", "-")]):
...     plane.add_edge(Edge(f"e{k}", a, b, EdgeProps(kind="causal", polarity=sign)))
>>> editor = Editor(Document([plane], "p"))
>>> view = panel_view(editor, editor.loops(wait=True))
>>> view.summary
'2 loops in 1 region: 1 reinforcing (R) · 1 balancing (B)'
>>> view.groups[0].title
'Loop region 1 · κ = 1 · 3 cards · 1 reinforcing · 1 balancing'
>>> [(item.mark, item.text) for item in view.groups[0].items]
[('R1', 'Births → Population → Births'), ('B1', 'Population → Deaths → Population')]
>>> [(m.label, m.nodes) for m in view.markers]
[('R1', ('a', 'b')), ('B1', ('b', 'c'))]
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view.explain import kappa_span, region_name
from bendscope.bend.kappa_view.kappa_ui import display_name
from bendscope.bend.kappa_view.loop_cuts import CutReport, cut_words
from bendscope.bend.kappa_view.loop_list import LoopReport
from bendscope.bend.render.scene import LoopMarker

#: loops of a region shown before its "more" button, and regions before theirs
LOOPS_SHOWN = 12
GROUPS_SHOWN = 20
NAME_LENGTH = 24  # characters of a card's text in a loop's line
CLASS_WORDS = {"R": "reinforcing", "B": "balancing", "?": "polarity not known (an edge has no + or −)"}
#: the letter of a loop's mark by its class, as causal loop diagrams mark them (R1, B2); a loop
#: whose polarity is not known (an edge on it has no + or −) is L1, L2…, not "?1"
MARK_LETTER = {"R": "R", "B": "B", "?": "L"}
#: a loop class's words in the counts (``_counts``)
COUNT_WORDS = {"R": "reinforcing", "B": "balancing", "?": "without polarity"}
#: the counts' words once more in the summary, with the mark they go by
SUMMARY_WORDS = {"R": "reinforcing (R)", "B": "balancing (B)", "?": "without polarity (L: an edge on it has no + or −)"}


@dataclass(frozen=True)
class ItemView:
    key: str  # "group index:loop index", what the page's buttons carry
    polarity: str
    text: str
    length: int
    fault_lines: int
    mark: str = ""  # its class and number ("R1"), as its marker on the canvas reads

    @property
    def label(self) -> str:
        """What a screen reader says for the loop's button."""
        faults = (
            f", through {self.fault_lines} fault line{'s' if self.fault_lines != 1 else ''}" if self.fault_lines else ""
        )
        kind = CLASS_WORDS[self.polarity].split(" (")[0]
        return f"{self.mark}: {kind} loop of {self.length} cards: {self.text}{faults}"


@dataclass(frozen=True)
class GroupView:
    index: int
    title: str
    items: tuple[ItemView, ...]
    more: str  # "" or a sentence: loops left out here (shown on asking) or not searched
    expandable: bool  # whether the more line is a button showing the rest


@dataclass(frozen=True)
class PanelView:
    heading: str
    summary: str
    groups: tuple[GroupView, ...]
    more_groups: int  # regions not shown (a button shows them)
    markers: tuple[LoopMarker, ...] = ()  # the loops listed, as the canvas marks them


def loop_marks(report: LoopReport) -> list[list[str]]:
    """Each listed loop's mark, by group and loop: its class and its number among the loops
    of that class in the panel's order ("R1", "R2", "B1", "L1"), counted over every loop of
    the report, so a loop keeps its number whatever is expanded. O(loops)."""
    counts = {"R": 0, "B": 0, "?": 0}
    marks = []
    for group in report.groups:
        row = []
        for loop in group.loops:
            counts[loop.polarity] += 1
            row.append(f"{MARK_LETTER[loop.polarity]}{counts[loop.polarity]}")
        marks.append(row)
    return marks


def _counts(counts: dict[str, int], words: dict[str, str] = COUNT_WORDS) -> str:
    """The loops of each class in words ("1 reinforcing · 2 without polarity")."""
    return " · ".join(f"{counts[c]} {words[c]}" for c in ("R", "B", "?") if counts.get(c))


def panel_view(
    editor: Editor,
    report: LoopReport | None,
    expanded: Collection[int] = (),
    all_groups: bool = False,
    cuts: CutReport | None = None,
) -> PanelView:
    """The panel for ``report`` (None: still searching). ``expanded``: regions whose every
    listed loop is shown; ``all_groups``: every region shown; ``cuts``: the fewest edges that
    break every loop of the scope (each region's in its title, the sum in the summary).
    O(what is shown)."""
    scope = editor.loop_scope()
    heading = "Loops of the plane" if scope is None else f"Loops of the selection ({len(scope)} cards)"
    if report is None:
        return PanelView(heading, "Looking for loops…", (), 0)
    if not report.groups:
        where = "the selection" if scope is not None else "this plane"
        return PanelView(heading, f"No feedback loop in {where}: κ = 0, one retrieval pass reads it.", (), 0)
    total = report.loop_count
    counts = {c: sum(g.counts[c] for g in report.groups) for c in ("R", "B", "?")}
    regions = len(report.groups)
    summary = (
        f"{'at least ' if not report.complete else ''}{total:,} loop{'s' if total != 1 else ''} in {regions:,} "
        f"region{'s' if regions != 1 else ''}: {_counts(counts, SUMMARY_WORDS)}"
    )
    if cuts is not None and cuts.regions:
        where = "of the selection" if scope is not None else "of the plane"
        summary += f". {cut_words(cuts.lower, cuts.size)} {where}{' (the fewest)' if cuts.exact else ' (bounds)'}"
    shown = report.groups if all_groups else report.groups[:GROUPS_SHOWN]
    topology_sccs = {s["id"]: s for s in report.topology["sccs"]} if report.topology is not None else {}
    marks = loop_marks(report)
    markers: list[LoopMarker] = []
    groups = []
    for g_index, group in enumerate(shown):
        scc = topology_sccs.get(group.scc_id)
        lower, upper = kappa_span(scc) if scc is not None else (group.kappa, group.kappa)
        kappa = f"= {upper}" if lower == upper else f"{lower}–{upper}"
        title = f"{region_name(group.scc_id).capitalize()} · κ {kappa} · {group.size:,} cards · {_counts(group.counts)}"
        region = None if cuts is None else cuts.region(group.scc_id)
        if region is not None:
            title += f" · {cut_words(region.lower, region.size)}"
        loops = group.loops if g_index in expanded else group.loops[:LOOPS_SHOWN]
        items = tuple(
            ItemView(
                f"{g_index}:{k}",
                loop.polarity,
                " → ".join(display_name(editor, n, NAME_LENGTH) for n in (*loop.nodes, loop.nodes[0])),
                loop.length,
                loop.fault_lines,
                marks[g_index][k],
            )
            for k, loop in enumerate(loops)
        )
        markers.extend(LoopMarker(marks[g_index][k], loop.polarity, loop.nodes) for k, loop in enumerate(loops))
        hidden = len(group.loops) - len(loops)
        more, expandable = "", False
        if hidden:
            more, expandable = f"Show {hidden} more loop{'s' if hidden != 1 else ''}", True
        elif not group.complete:
            more = "More loops exist: longer ones, or past the first listed (the search is bounded)."
        groups.append(GroupView(g_index, title, items, more, expandable))
    return PanelView(heading, summary, tuple(groups), len(report.groups) - len(shown), tuple(markers))

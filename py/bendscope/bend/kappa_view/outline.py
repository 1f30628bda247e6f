"""The graph as text a screen reader reads: an outline of the active plane that follows
every edit (WAI-ARIA: the canvas is a picture, so what it shows is also given as a
document). A summary (cards, edges, κ, mode), each feedback loop with its members, and
each card with its text, its kind of card and its edges by kind and direction.

>>> from bendscope.bend.editor.editor import Editor
>>> from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
>>> plane = Plane("p")
>>> for node_id, text in (("a", "Rain"), ("b", "Wet streets"), ("c", "# Umbrellas")):
...     plane.add_node(Node(node_id, text))
>>> plane.add_edge(Edge("e1", "a", "b", EdgeProps(kind="causal")))
>>> plane.add_edge(Edge("e2", "b", "a", EdgeProps(kind="causal")))
>>> plane.add_edge(Edge("e3", "c", "a", EdgeProps("keeps dry", kind="associative")))
>>> out = outline_of(Editor(Document([plane], "p")))
>>> out.summary
'3 cards, 3 edges. κ 1: 1 feedback loop. Mode: deliberation.'
>>> out.loops
('Loop region 1, κ 1, 2 cards: Rain, Wet streets.',)
>>> out.cards[0]
'Rain. In loop region 1. Causes Wet streets. Caused by Wet streets. Associated with Umbrellas (keeps dry).'
"""

from __future__ import annotations

from dataclasses import dataclass

from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view.explain import kappa_span, max_kappa_span, region_name, span_text
from bendscope.bend.kappa_view.kappa_ui import display_name
from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.render.textlayout import TOUCH_PLACEHOLDER

#: cards listed one by one; beyond, the outline says how many more there are (Find reaches
#: them); a card's first MAX_LINKS edges are worded. The outline is rebuilt on the main thread
#: after edits, so it is kept small: O(E) set lookups plus O(MAX_CARDS × MAX_LINKS) words
MAX_CARDS = 200
MAX_LINKS = 12
#: what an edge of each kind says, from its source's side and from its target's side
_VERBS = {
    "causal": ("Causes", "Caused by"),
    "temporal": ("Comes before", "Comes after"),
    "associative": ("Associated with", "Associated with"),
    "context": ("Context for", "In the context of"),
    "user": ("Linked to", "Linked from"),
    "related": ("Related to", "Related to"),
    "contradicts": ("Contradicts", "Contradicted by"),
    "supports": ("Supports", "Supported by"),
    "derived_from": ("Derived from", "Source of"),
}


@dataclass(frozen=True)
class Outline:
    """Plain text lines: ``summary``, one line per loop, one per card (at most MAX_CARDS)."""

    summary: str
    loops: tuple[str, ...]
    cards: tuple[str, ...]
    more_cards: int


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


#: what the outline of an empty plane adds, by whether the main pointer is a finger
EMPTY_PLANE = {
    False: " The plane is empty: double-click, or Shift+F10 then New node here, to add a card.",
    True: " The plane is empty: double-tap, or long-press then New node here, to add a card.",
}


def outline_of(editor: Editor, topo: Topology | None = None) -> Outline:
    """The outline of the editor's active plane with ``topo`` (by default its exact
    topology, computed now if need be). O(n + E) cheap steps, O(MAX_CARDS × MAX_LINKS) words."""
    plane = editor.plane
    topo = topo or editor.topology()
    result = topo.result
    sccs = result["sccs"]
    mode = "deliberation" if result["max_kappa"] > 0 else "retrieval"
    summary = (
        f"{_plural(len(plane.nodes), 'card')}, {_plural(len(plane.edges), 'edge')}. "
        f"κ {span_text(*max_kappa_span(result))}: {_plural(len(sccs), 'feedback loop')}. Mode: {mode}."
    )
    if not plane.nodes:
        summary += EMPTY_PLANE[editor.placeholder == TOUCH_PLACEHOLDER]  # (a touch screen's words)

    def name(node_id: str) -> str:
        return display_name(editor, node_id, 60)

    loops = tuple(
        f"{region_name(s['id']).capitalize()}, κ {span_text(*kappa_span(s))}, {_plural(len(s['nodes']), 'card')}: "
        + ", ".join(name(n) for n in s["nodes"][:20])
        + (f" and {len(s['nodes']) - 20} more" if len(s["nodes"]) > 20 else "")
        + "."
        for s in sccs
    )
    listed = list(plane.nodes)[:MAX_CARDS]
    shown = set(listed)
    links: dict[str, list[tuple[str, str, str, bool]]] = {node_id: [] for node_id in listed}
    extra: dict[str, int] = {}
    for edge in plane.edges.values():  # (only the listed cards' first MAX_LINKS edges are worded)
        for here, there, side in ((edge.a, edge.b, 0), (edge.b, edge.a, 1)):
            if here not in shown or (side and edge.a == edge.b):
                continue
            if len(links[here]) < MAX_LINKS:
                links[here].append((edge.props.kind, there, edge.props.label, side == 1))
            else:
                extra[here] = extra.get(here, 0) + 1
    cards = []
    for node_id in listed:
        node = plane.nodes[node_id]
        parts = [f"{name(node_id)}."]
        if node.type == "stargate":
            parts.append("Stargate to a plane of its own.")
        scc = topo.scc(node_id)
        if scc is not None:
            parts.append(f"In {region_name(scc['id'])}.")
        for kind, there, label, incoming in links[node_id]:
            verb = _VERBS.get(kind, ("Linked to", "Linked from"))[1 if incoming else 0]
            parts.append(f"{verb} {name(there)}{f' ({label})' if label else ''}.")
        if extra.get(node_id):
            parts.append(f"And {extra[node_id]:,} more edges.")
        cards.append(" ".join(parts))
    return Outline(summary, loops, tuple(cards), max(0, len(plane.nodes) - MAX_CARDS))


#: lines an outline rebuild writes into the page per step. The page lays out what a step
#: wrote in the frame after it (about five layout objects a line, its text shaped), so a
#: step costs that frame a few milliseconds, where a whole outline of MAX_CARDS cards cost
#: one frame 10–40 ms.
WRITE_STEP = 40


class OutlineWriter:
    """What the page's outline shows, brought to a new outline ``step`` lines at a time.

    ``aim`` sets the outline to show; each ``next_step`` says what to write now: lines
    ``("loops" | "cards", index, text)`` to set (an index one past the end appends), then
    ``(list, index, None)`` to drop the lines from that index on, and ``("summary", 0, text)``
    last, once both lists are right (so the summary naming a new state means all of it is
    shown). A line already right is not written again. Each step is O(lines looked at).

    >>> writer = OutlineWriter(step=2)
    >>> writer.aim("3 cards.", ("Loop 1.",), ("a.", "b.", "c."))
    >>> writer.next_step()
    [('loops', 0, 'Loop 1.'), ('cards', 0, 'a.')]
    >>> writer.next_step()
    [('cards', 1, 'b.'), ('cards', 2, 'c.')]
    >>> writer.next_step(), writer.done
    ([('summary', 0, '3 cards.')], True)
    >>> writer.aim("2 cards.", ("Loop 1.",), ("a.", "c."))
    >>> writer.next_step(), writer.done
    ([('cards', 1, 'c.'), ('cards', 2, None)], False)
    """

    def __init__(self, step: int = WRITE_STEP) -> None:
        self.step = max(1, step)
        #: the lines the page shows now (it starts with none)
        self.summary = ""
        self.lines: dict[str, list[str]] = {"loops": [], "cards": []}
        self._aim: tuple[str, dict[str, tuple[str, ...]]] | None = None
        self._from = {"loops": 0, "cards": 0}  # lines before these are known to be right

    @property
    def done(self) -> bool:
        """Whether the page shows the outline aimed at."""
        return self._aim is None

    def aim(self, summary: str, loops: tuple[str, ...], cards: tuple[str, ...]) -> None:
        """Set the outline the page is to show (a new aim replaces one not yet shown)."""
        self._aim = (summary, {"loops": tuple(loops), "cards": tuple(cards)})
        self._from = {"loops": 0, "cards": 0}

    def next_step(self) -> list[tuple[str, int, str | None]]:
        """What to write now: at most ``step`` lines (a drop of lines counts as one)."""
        if self._aim is None:
            return []
        summary, wanted = self._aim
        ops: list[tuple[str, int, str | None]] = []
        for name in ("loops", "cards"):
            shown, target = self.lines[name], wanted[name]
            index = self._from[name]
            while index < len(target) and len(ops) < self.step:
                if index >= len(shown) or shown[index] != target[index]:
                    ops.append((name, index, target[index]))
                    if index < len(shown):
                        shown[index] = target[index]
                    else:
                        shown.append(target[index])
                index += 1
            self._from[name] = index
            if index < len(target):
                return ops
            if len(shown) > len(target):
                if len(ops) >= self.step:
                    return ops
                ops.append((name, len(target), None))
                del shown[len(target) :]
        if len(ops) >= self.step:
            return ops
        if self.summary != summary:
            ops.append(("summary", 0, summary))
            self.summary = summary
        self._aim = None
        return ops

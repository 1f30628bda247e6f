"""Actions: one object per command, shared by menus, keyboard and automation.

An action names what it does, where it applies (node, edge, background or
global), its shortcut keys, when it is enabled, and how to perform it. Actions
that need a yes/no or a text from the user say so (``confirm`` / ``ask``); the
browser layer asks, then calls ``perform`` with the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bendscope.bend.editor.camera import ZOOM_STEP
from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view import kappa_ui
from bendscope.bend.keys import card_nav
from bendscope.bend.model.elements import EDGE_KINDS, POLAR_KINDS
from bendscope.bend.persist import clipboard


@dataclass(frozen=True)
class Target:
    """What an action applies to: a node, an edge, or a world point."""

    node_id: str | None = None
    edge_id: str | None = None
    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True)
class Action:
    id: str
    label: str
    scope: str  # "node" | "edge" | "background" | "global"
    perform: Callable[[Editor, Target, dict[str, Any]], Any]
    keys: tuple[str, ...] = ()
    enabled: Callable[[Editor, Target], bool] = lambda editor, target: True
    confirm: Callable[[Editor, Target], str | None] | None = None
    ask: Callable[[Editor, Target], tuple[str, str] | None] | None = None  # (question, initial text)
    extra: dict[str, Any] = field(default_factory=dict)


REGISTRY: dict[str, Action] = {}


def action(**kwargs: Any) -> Action:
    act = Action(**kwargs)
    if act.id in REGISTRY:
        raise ValueError(f"duplicate action {act.id}")
    REGISTRY[act.id] = act
    return act


def run(editor: Editor, action_id: str, target: Target | None = None, args: dict[str, Any] | None = None) -> Any:
    """Perform an action if it is enabled; returns its result (None when disabled)."""
    act = REGISTRY[action_id]
    target = target or Target()
    if not act.enabled(editor, target):
        return None
    return act.perform(editor, target, args or {})


def node_of(target: Target) -> str:
    """The target's node id (actions of scope "node" run only with one)."""
    if target.node_id is None:
        raise ValueError("This action needs a node.")
    return target.node_id


def edge_of(target: Target) -> str:
    """The target's edge id (actions of scope "edge" run only with one)."""
    if target.edge_id is None:
        raise ValueError("This action needs an edge.")
    return target.edge_id


def _node(editor: Editor, target: Target) -> bool:
    return target.node_id is not None and target.node_id in editor.plane.nodes


def _edge(editor: Editor, target: Target) -> bool:
    return target.edge_id is not None and target.edge_id in editor.plane.edges


def _is_type(node_type: str) -> Callable[[Editor, Target], bool]:
    return lambda e, t: _node(e, t) and e.plane.nodes[node_of(t)].type == node_type


# ---------------------------------------------------------------- global
action(id="undo", label="Undo", scope="global", keys=("Mod+z",), perform=lambda e, t, a: e.undo(),
       enabled=lambda e, t: e.history.can_undo)  # fmt: skip
action(id="redo", label="Redo", scope="global", keys=("Mod+Shift+z", "Mod+y"), perform=lambda e, t, a: e.redo(),
       enabled=lambda e, t: e.history.can_redo)  # fmt: skip
action(id="zoom-in", label="Zoom in", scope="global", keys=("+", "="), perform=lambda e, t, a: e.zoom_at(ZOOM_STEP))
action(id="zoom-out", label="Zoom out", scope="global", keys=("-", "_"),
       perform=lambda e, t, a: e.zoom_at(1 / ZOOM_STEP))  # fmt: skip
action(id="zoom-reset", label="Reset zoom", scope="global", keys=("0",), perform=lambda e, t, a: e.reset_zoom())
action(id="fit-view", label="Fit view", scope="global", keys=("f",), perform=lambda e, t, a: e.fit_view())
action(id="delete-selection", label="Delete selection", scope="global", keys=("Delete", "Backspace"),
       perform=lambda e, t, a: e.delete_edge(e.selected_edge) if e.selected_edge else e.delete_nodes(e.selection),
       enabled=lambda e, t: bool(e.selection) or e.selected_edge is not None)  # fmt: skip


def _go(editor: Editor, direction: str) -> None:
    """An arrow key in the canvas: the nearest card that way (with none selected, the card
    nearest the middle of the view); the view follows a card it would leave behind."""
    nodes = editor.plane.nodes
    if not nodes:
        return
    current = editor.selection[0] if editor.selection else None
    if current is None or current not in nodes:
        cam = editor.plane.camera
        chosen = card_nav.nearest_to(nodes, cam.x, cam.y)
    else:
        chosen = card_nav.nearest_in_direction(nodes, current, direction)
    if chosen is not None:
        _select_visibly(editor, chosen)


#: how far Shift+arrow moves the selected cards, in screen pixels (whatever the zoom)
NUDGE_PX = 24.0


def _nudge(editor: Editor, direction: str) -> None:
    """Shift+arrow: the selected cards move ``NUDGE_PX`` that way on the screen and are pinned
    there, one undoable step per press (the keyboard's drag); the view follows a card that
    would leave it. O(selected)."""
    plane = editor.plane
    ids = [n for n in editor.selection if n in plane.nodes]
    if not ids:
        return
    dx, dy = card_nav.DIRECTIONS[direction]
    step = NUDGE_PX / plane.camera.zoom
    editor.move_nodes({n: (plane.nodes[n].x + dx * step, plane.nodes[n].y + dy * step) for n in ids})
    if not editor.in_view(ids[0]):
        editor.centre_on(ids[0])


def _select_visibly(editor: Editor, node_id: str) -> None:
    editor.select([node_id])
    if not editor.in_view(node_id):
        editor.centre_on(node_id)


def _end(editor: Editor, last: bool) -> None:
    ids = list(editor.plane.nodes)
    if ids:
        _select_visibly(editor, ids[-1] if last else ids[0])


def _step_edge(editor: Editor, step: int) -> None:
    """E / Shift+E: the next (previous) edge of the selected card, or of the card at the
    selected edge's source end; the edge's menu then opens with Shift+F10."""
    edges = editor.plane.edges
    if editor.selection:
        anchor = editor.selection[0]
        current = None
    elif editor.selected_edge is not None and editor.selected_edge in edges:
        current = editor.selected_edge
        ends = (edges[current].a, edges[current].b)
        anchor = editor.edge_anchor if editor.edge_anchor in ends else ends[0]
    else:
        return
    ids = card_nav.edges_of(edges, anchor)
    if not ids:
        return
    i = ids.index(current) if current in ids else (-1 if step > 0 else 0)
    editor.select_edge(ids[(i + step) % len(ids)])
    editor.edge_anchor = anchor


for _key, _direction in (("ArrowRight", "right"), ("ArrowLeft", "left"), ("ArrowDown", "down"), ("ArrowUp", "up")):
    action(id=f"go-{_direction}", label=f"Select the card {_direction}" if _direction in ("left", "right")
           else f"Select the card {'below' if _direction == 'down' else 'above'}", scope="global", keys=(_key,),
           perform=lambda e, t, a, d=_direction: _go(e, d))  # fmt: skip
for _key, _direction in (("ArrowRight", "right"), ("ArrowLeft", "left"), ("ArrowDown", "down"), ("ArrowUp", "up")):
    action(id=f"move-{_direction}", label=f"Move the selected cards {_direction}", scope="global",
           keys=(f"Shift+{_key}",), perform=lambda e, t, a, d=_direction: _nudge(e, d),
           enabled=lambda e, t: bool(e.selection))  # fmt: skip
action(id="go-first", label="Select the first card", scope="global", keys=("Home",),
       perform=lambda e, t, a: _end(e, False))  # fmt: skip
action(id="go-last", label="Select the last card", scope="global", keys=("End",),
       perform=lambda e, t, a: _end(e, True))  # fmt: skip
action(id="next-edge", label="Select the next edge of the card", scope="global", keys=("e",),
       perform=lambda e, t, a: _step_edge(e, 1),
       enabled=lambda e, t: bool(e.selection) or e.selected_edge is not None)  # fmt: skip
action(id="previous-edge", label="Select the previous edge of the card", scope="global", keys=("E",),
       perform=lambda e, t, a: _step_edge(e, -1),
       enabled=lambda e, t: bool(e.selection) or e.selected_edge is not None)  # fmt: skip
action(id="clear-selection", label="Clear selection", scope="global", keys=("Escape",),
       perform=lambda e, t, a: e.select([]))  # fmt: skip
action(id="freeze-layout", label="Freeze layout", scope="global", keys=("l",),
       perform=lambda e, t, a: e.set_layout_frozen(not e.layout_frozen))  # fmt: skip
# Arrange: a layered drawing of the causal graph, computed off the main thread by the page
# (the "job" outcome); CPython callers use Editor.arrange_job / apply_arrangement directly
action(id="arrange-lr", label="Arrange left to right", scope="global", keys=("L",), perform=lambda e, t, a: None,
       enabled=lambda e, t: bool(e.plane.nodes), extra={"job": "arrange", "direction": "LR"})  # fmt: skip
action(id="arrange-tb", label="Arrange top to bottom", scope="global", keys=("T",), perform=lambda e, t, a: None,
       enabled=lambda e, t: bool(e.plane.nodes), extra={"job": "arrange", "direction": "TB"})  # fmt: skip
action(id="help", label="Help: κ explained, gestures and keys", scope="global", keys=("?",),
       perform=lambda e, t, a: None, extra={"show": "help"})  # fmt: skip
action(id="loops", label="Loops panel: every feedback loop, R or B", scope="global", keys=("o",),
       perform=lambda e, t, a: None, extra={"show": "loops"})  # fmt: skip


def _has_loops(editor: Editor) -> bool:
    return not editor.topology_cache.pending(editor.plane) and editor.topology().max_kappa > 0


def _show_cuts(editor: Editor) -> bool:
    editor.cuts_shown = not editor.cuts_shown
    editor.needs_paint = True
    return editor.cuts_shown


action(id="show-cuts", label="Show or hide the fewest edges that break every loop", scope="global", keys=("k",),
       perform=lambda e, t, a: _show_cuts(e),
       enabled=lambda e, t: e.cuts_shown or _has_loops(e))  # fmt: skip
action(id="duplicate", label="Duplicate", scope="global", keys=("Mod+d",),
       perform=lambda e, t, a: clipboard.duplicate(e, list(e.selection)),
       enabled=lambda e, t: bool(e.selection))  # fmt: skip
action(id="find", label="Find", scope="global", keys=("Mod+f",), perform=lambda e, t, a: None,
       extra={"show": "find"})  # fmt: skip
#: the images Image… makes: the whole plane (or the selection of two or more cards) with its legend
IMAGES = (("svg", "SVG: vector, text as text, with the legend"), ("png", "PNG 1× with the legend"),
          ("png-2x", "PNG 2× with the legend"), ("png-4x", "PNG 4× with the legend"))  # fmt: skip
for _image, _label in IMAGES:
    action(id=f"export-{_image}", label=_label, scope="global", perform=lambda e, t, a: None,
           extra={"show": f"image-{_image}"})  # fmt: skip
#: the files Export… writes: the document, or the plane in another format (``graphformats``)
EXPORTS = (("json", "Bendscope document (JSON)"), ("csv", "CSV: nodes and edge list"), ("graphml", "GraphML"),
           ("dot", "Graphviz DOT"), ("mermaid", "Mermaid flowchart"))  # fmt: skip
for _fmt, _label in EXPORTS:
    action(id=f"export-{_fmt}", label=_label, scope="global", perform=lambda e, t, a: None,
           extra={"show": f"export-{_fmt}"})  # fmt: skip
action(id="export-png-marks", label="PNG of the screen as it is: pins, selection", scope="global",
       perform=lambda e, t, a: None, extra={"show": "png-marks"})  # fmt: skip
action(id="select-all", label="Select all", scope="global", keys=("Mod+a",),
       perform=lambda e, t, a: e.select(list(e.plane.nodes)))  # fmt: skip


def _many(editor: Editor, target: Target) -> bool:
    return len(editor.selection) > 1


action(id="pin-selection", label="Pin selection", scope="global", keys=("p",),
       perform=lambda e, t, a: e.set_pinned_many(list(e.selection), True),
       enabled=lambda e, t: _many(e, t) and not all(e.plane.nodes[n].pinned for n in e.selection))  # fmt: skip
action(id="unpin-selection", label="Unpin selection", scope="global", keys=("p",),
       perform=lambda e, t, a: e.set_pinned_many(list(e.selection), False),
       enabled=lambda e, t: _many(e, t) and all(e.plane.nodes[n].pinned for n in e.selection))  # fmt: skip


# ---------------------------------------------------------------- background
def free_spot(editor: Editor, x: float, y: float, width: float = 180.0, height: float = 60.0) -> tuple[float, float]:
    """(x, y), or the nearest point of a grid around it (a new card's size and a gap a step,
    six steps each way) where a new card covers no other card and lies outside every loop
    region's halo and inside the view (between the toolbar and the HUD; when (x, y) is) — so New node here,
    asked again and again at the same point (the keyboard's menu opens at the middle of the
    view), never stacks cards, never makes a card look like a member of a loop and stays in
    sight. Failing that, the nearest spot that covers no card (in view first). O(n) a spot.

    >>> editor = Editor()
    >>> editor.viewport = (1280.0, 800.0)
    >>> _ = editor.add_node(0.0, 0.0)
    >>> free_spot(editor, 500.0, 0.0), free_spot(editor, 10.0, 5.0)
    ((500.0, 0.0), (10.0, 85.0))
    """
    step_x, step_y = width + GAP, height + GAP
    reach = 6
    far_x, far_y = (reach + 1) * step_x, (reach + 1) * step_y
    near = [
        n for n in editor.plane.nodes.values() if abs(n.x - x) < far_x + n.width and abs(n.y - y) < far_y + n.height
    ]
    cards = [(n.x, n.y, (n.width + width) / 2 + GAP / 2, (n.height + height) / 2 + GAP / 2) for n in near]
    halos = _halo_boxes(editor, width, height)
    view = _view_box(editor, width, height)
    grid = range(-reach, reach + 1)
    spots = sorted(((x + i * step_x, y + j * step_y) for i in grid for j in grid),
                   key=lambda p: ((p[0] - x) ** 2 + (p[1] - y) ** 2, p[1] < y, p[1], p[0]))  # fmt: skip

    def free(p: tuple[float, float], boxes: list[tuple[float, float, float, float]]) -> bool:
        return not any(abs(p[0] - bx) < rx and abs(p[1] - by) < ry for bx, by, rx, ry in boxes)

    in_sight = view[0] <= x <= view[2] and view[1] <= y <= view[3]

    def seen(p: tuple[float, float]) -> bool:  # (a point asked for out of sight keeps its place)
        return not in_sight or (view[0] <= p[0] <= view[2] and view[1] <= p[1] <= view[3])

    for wanted in (lambda p: seen(p) and free(p, halos), seen, lambda p: True):
        for spot in spots:
            if wanted(spot) and free(spot, cards):
                return spot
    return x, y


def _halo_boxes(editor: Editor, width: float, height: float) -> list[tuple[float, float, float, float]]:
    """Each loop region's box (its members' cards and the halo's pad around them), as
    (centre x, centre y, half width, half height) widened by half a new card."""
    topology = editor.shown_topology()
    nodes = editor.plane.nodes
    boxes = []
    for scc in topology.result.get("sccs", ()):
        members = [nodes[n] for n in scc["nodes"] if n in nodes]
        if len(members) < 2:
            continue
        left = min(n.x - n.width / 2 for n in members) - HALO_ROOM
        right = max(n.x + n.width / 2 for n in members) + HALO_ROOM
        top = min(n.y - n.height / 2 for n in members) - HALO_ROOM
        bottom = max(n.y + n.height / 2 for n in members) + HALO_ROOM
        boxes.append(((left + right) / 2, (top + bottom) / 2, (right - left + width) / 2, (bottom - top + height) / 2))
    return boxes


def _view_box(editor: Editor, width: float, height: float) -> tuple[float, float, float, float]:
    """Where a new card's centre may lie for all of it to show: the view between the toolbar
    and the HUD (``CameraControl.bring_into_view``'s area), in world coordinates."""
    w, h = editor.viewport
    left, top = editor.screen_to_world(24.0, 96.0)
    right, bottom = editor.screen_to_world(w - 24.0, h - 56.0)
    return left + width / 2, top + height / 2, right - width / 2, bottom - height / 2


def _new_card_here(editor: Editor, target: Target, node_type: str = "normal") -> str:
    """A new card at the nearest free spot around the target (``free_spot``), the view panned to it."""
    text = "Stargate" if node_type == "stargate" else ""
    made = editor.add_node(*free_spot(editor, target.x, target.y), text, node_type, pinned=True)
    editor.bring_into_view(made)
    return made


GAP = 20.0  # world px between a new card and the one it would have covered
HALO_ROOM = 30.0 + GAP  # a loop region's halo pad around its cards (``theme.HALO_PAD``), and a gap


action(id="new-node", label="New node here", scope="background",
       perform=lambda e, t, a: _new_card_here(e, t), extra={"edit_new": True})  # fmt: skip
action(id="new-stargate", label="New stargate here", scope="background",
       perform=lambda e, t, a: _new_card_here(e, t, "stargate"), extra={"edit_new": True})  # fmt: skip

# ---------------------------------------------------------------- node
action(id="edit-text", label="Edit text", scope="node", keys=("Enter", "F2"), perform=lambda e, t, a: e.set_text(
    t.node_id, a["text"]) if "text" in a else None, enabled=_node, extra={"overlay": True})  # fmt: skip


def _connect(editor: Editor, target: Target, args: dict[str, Any]) -> str | None:
    return editor.add_edge(node_of(target), args["to"], kind=args.get("kind", "causal"))


action(id="connect-kind", label="New edge kind", scope="node", perform=lambda e, t, a: e.set_connect_kind(a["kind"]),
       enabled=_node)  # fmt: skip
action(id="connect", label="Connect to…", scope="node", keys=("c",), perform=_connect,
       enabled=lambda e, t: _node(e, t) and len(e.plane.nodes) > 1, extra={"submenu": True})  # fmt: skip


def _bend_enabled(editor: Editor, target: Target) -> bool:
    return _node(editor, target) and kappa_ui.bend_target(editor, node_of(target)) is not None


def _bend(editor: Editor, target: Target, args: dict[str, Any]) -> str | None:
    node_id = node_of(target)
    to = kappa_ui.bend_target(editor, node_id)
    if to is None:
        return None
    with editor.transaction("Bend"):
        return editor.add_edge(node_id, to, kind="causal", label="")


action(id="bend", label="Bend — Create Feedback Loop", scope="node", keys=("b",), perform=_bend,
       enabled=_bend_enabled, extra={"disabled_label": "No feedback loop possible nearby"})  # fmt: skip


def _unbend_question(editor: Editor, target: Target) -> str | None:
    choice = kappa_ui.unbend_choice(editor, node_of(target))
    return None if choice is None else choice.question


def _unbend(editor: Editor, target: Target, args: dict[str, Any]) -> str | None:
    choice = kappa_ui.unbend_choice(editor, node_of(target))
    if choice is None:
        return None
    with editor.transaction("Unbend"):
        for edge_id in choice.edge_ids:
            editor.delete_edge(edge_id)
    return choice.edge_id


action(id="unbend", label="Unbend — Cut a Fault Line", scope="node", keys=("u",), perform=_unbend,
       enabled=lambda e, t: _node(e, t) and kappa_ui.in_loop(e, t.node_id), confirm=_unbend_question)  # fmt: skip
action(id="fork", label="Fork", scope="node", perform=lambda e, t, a: e.fork(t.node_id), enabled=_node)


def _merge_enabled(editor: Editor, target: Target) -> bool:
    return _node(editor, target) and len(editor.plane.nodes) > 1


action(id="merge", label="Merge with…", scope="node", perform=lambda e, t, a: e.merge(t.node_id, a["with"]),
       enabled=_merge_enabled)  # fmt: skip
action(id="pin", label="Pin", scope="node", keys=("p",), perform=lambda e, t, a: e.set_pinned(t.node_id, True),
       enabled=lambda e, t: _node(e, t) and not e.plane.nodes[t.node_id].pinned)  # fmt: skip
action(id="unpin", label="Unpin", scope="node", keys=("p",), perform=lambda e, t, a: e.set_pinned(t.node_id, False),
       enabled=lambda e, t: _node(e, t) and e.plane.nodes[t.node_id].pinned)  # fmt: skip
action(id="to-stargate", label="Convert to Stargate", scope="node",
       perform=lambda e, t, a: e.set_type(t.node_id, "stargate"), enabled=_is_type("normal"))  # fmt: skip
action(id="to-normal", label="Convert to Normal", scope="node", perform=lambda e, t, a: e.set_type(t.node_id, "normal"),
       enabled=lambda e, t: _is_type("stargate")(e, t) and not e.plane.nodes[t.node_id].portal_plane_id)  # fmt: skip


def _leads_somewhere(editor: Editor, target: Target) -> bool:
    if not _node(editor, target):
        return False
    node = editor.plane.nodes[node_of(target)]
    return node.type == "stargate" or node.portal_plane_id in editor.doc.planes


action(id="enter-stargate", label="Enter stargate", scope="node", keys=("g",),
       perform=lambda e, t, a: e.enter_stargate(node_of(t)), enabled=_leads_somewhere)  # fmt: skip
action(id="delete-node", label="Delete", scope="node", perform=lambda e, t, a: e.delete_nodes([t.node_id]),
       enabled=_node)  # fmt: skip

# ---------------------------------------------------------------- edge
for _kind in EDGE_KINDS:
    action(id=f"kind-{_kind}", label=_kind.capitalize(), scope="edge",
           perform=lambda e, t, a, k=_kind: e.set_edge(t.edge_id, kind=k),
           enabled=lambda e, t, k=_kind: _edge(e, t) and e.plane.edges[t.edge_id].props.kind != k)  # fmt: skip
action(id="reverse-edge", label="Reverse direction", scope="edge", perform=lambda e, t, a: e.reverse_edge(t.edge_id),
       enabled=_edge)  # fmt: skip
action(id="edit-label", label="Edit label…", scope="edge",
       perform=lambda e, t, a: e.set_edge(t.edge_id, label=a["text"][:500]) if "text" in a else None, enabled=_edge,
       ask=lambda e, t: ("Edge label", e.plane.edges[t.edge_id].props.label))  # fmt: skip
for _s in range(1, 6):
    action(id=f"strength-{_s}", label=f"Strength {_s}", scope="edge",
           perform=lambda e, t, a, s=_s: e.set_edge(t.edge_id, strength=s),
           enabled=lambda e, t, s=_s: _edge(e, t) and e.plane.edges[t.edge_id].props.strength != s)  # fmt: skip


def _polar(editor: Editor, target: Target) -> bool:
    return _edge(editor, target) and editor.plane.edges[edge_of(target)].props.kind in POLAR_KINDS


#: polarity as a menu says it, and the order a key cycles through it
POLARITY_WORDS = {"+": "+ same direction", "-": "− opposite direction", None: "none"}
_CYCLE: dict[str | None, str | None] = {None: "+", "+": "-", "-": None}
for _sign, _name in (("+", "plus"), ("-", "minus"), (None, "none")):
    action(id=f"polarity-{_name}", label=f"Polarity {POLARITY_WORDS[_sign]}", scope="edge",
           perform=lambda e, t, a, s=_sign: e.set_edge(edge_of(t), polarity=s),
           enabled=lambda e, t, s=_sign: _polar(e, t) and e.plane.edges[edge_of(t)].props.polarity != s)  # fmt: skip
action(id="polarity-cycle", label="Polarity: next (+, −, none)", scope="edge", keys=("s",),
       perform=lambda e, t, a: e.set_edge(edge_of(t), polarity=_CYCLE[e.plane.edges[edge_of(t)].props.polarity]),
       enabled=_polar)  # fmt: skip
action(id="delete-edge", label="Delete edge", scope="edge", perform=lambda e, t, a: e.delete_edge(t.edge_id),
       enabled=_edge)  # fmt: skip

"""Context-menu models built from actions (the DOM layer only renders them).

A submenu may be lazy (``open_submenu``): the Connect-to previews are computed
when the submenu opens, not on right-click.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bendscope.bend.actions.commands import POLARITY_WORDS, REGISTRY, Target
from bendscope.bend.editor import find
from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view import kappa_ui
from bendscope.bend.keys.shortcuts import key_label
from bendscope.bend.model.elements import EDGE_KINDS, POLAR_KINDS


@dataclass
class MenuItem:
    label: str
    action_id: str | None = None
    enabled: bool = True
    args: dict[str, Any] = field(default_factory=dict)
    submenu: Callable[[], list[MenuItem]] | None = None
    #: type-to-filter: the submenu's items for a typed query (None: the submenu does not filter)
    filter: Callable[[str], list[MenuItem]] | None = None
    tone: str = ""  # "" | "kappa" (cyan) | "muted" (grey) | "danger"
    checked: bool | None = None
    key_hint: str = ""
    item_id: str = ""  # stable DOM id suffix for tests
    #: choosing it keeps its parent submenu open and rebuilds it (a setting of that submenu,
    #: like Connect to…'s edge kind)
    stays_open: bool = False

    @property
    def has_submenu(self) -> bool:
        return self.submenu is not None


#: the Connect-to submenu's last words before the kind row: what typing does
SEARCH_HINT = "Type to search the whole plane"


def menu_item(editor: Editor, target: Target, action_id: str, **kw: Any) -> MenuItem:
    act = REGISTRY[action_id]
    enabled = act.enabled(editor, target)
    label = act.label if enabled or "disabled_label" not in act.extra else act.extra["disabled_label"]
    hint = key_label(act.keys[0]) if act.keys and len(act.keys[0]) == 1 else ""  # ("L" reads Shift+L)
    return MenuItem(label, action_id, enabled, key_hint=hint, item_id=action_id, **kw)


def _found(editor: Editor, node_id: str, query: str) -> list[str]:
    """Other nodes of the plane whose text or id holds ``query``, nearest first (any distance)."""
    origin = editor.plane.nodes[node_id]
    ids = [n for n in find.matching(editor, query) if n != node_id]
    nodes = editor.plane.nodes
    ids.sort(key=lambda n: ((nodes[n].x - origin.x) ** 2 + (nodes[n].y - origin.y) ** 2, n))
    return ids[: kappa_ui.MAX_CANDIDATES]


def connect_submenu(editor: Editor, node_id: str, query: str = "") -> list[MenuItem]:
    """Connect-to's items: the nearest nodes within 500 px, or — with a typed ``query`` —
    the nodes anywhere on the plane whose text matches, each with the κ preview of a new edge
    of the editor's connect kind; last, the row that chooses that kind."""
    searching = bool(query.strip())
    if searching:
        previews = kappa_ui.previews_for(editor, node_id, _found(editor, node_id, query))
    else:
        previews = kappa_ui.connect_previews(editor, node_id, limit=kappa_ui.MAX_CANDIDATES)
    kind = editor.connect_kind

    def kinds() -> list[MenuItem]:
        return [
            MenuItem(k.capitalize(), "connect-kind", True, {"kind": k}, checked=k == kind, item_id=f"connect-kind-{k}",
                     stays_open=True)
            for k in EDGE_KINDS
        ]  # fmt: skip

    # the kind row comes last: the first row stays the nearest node (C, then Enter)
    kind_row = MenuItem(f"New edge kind: {kind}", submenu=kinds, item_id="connect-kind")
    if not previews:
        empty = f"No node matches “{query}”" if searching else "None within 500 px: type to search"
        return [MenuItem(empty, enabled=False, tone="muted", item_id="connect-none"), kind_row]
    items = [
        MenuItem(p.label, "connect", not p.connected, {"to": p.target, "kind": kind}, tone=p.tone,
                 item_id=f"connect-{i}")
        for i, p in enumerate(previews)
    ]  # fmt: skip
    more = 0 if searching else len(editor.nodes_near(node_id)) - len(previews)
    if more > 0:
        items.append(MenuItem(f"…and {more} more farther away", enabled=False, tone="muted", item_id="connect-more"))
    if not searching:  # (the nearest within 500 px are listed; typing looks anywhere)
        items.append(MenuItem(SEARCH_HINT, enabled=False, tone="muted", item_id="connect-search-hint"))
    items.append(kind_row)
    return items


def merge_submenu(editor: Editor, node_id: str, query: str = "") -> list[MenuItem]:
    """Merge-with's items: the nodes within 500 px, or those matching a typed ``query``."""
    node = editor.plane.nodes[node_id]
    items = []
    others = (
        [editor.plane.nodes[n] for n in _found(editor, node_id, query)] if query.strip() else editor.nodes_near(node_id)
    )
    if query.strip() and not others:
        return [MenuItem(f"No node matches “{query}”", enabled=False, tone="muted", item_id="merge-none")]
    for i, other in enumerate(others):
        ok = not (other.portal_plane_id and node.portal_plane_id)
        items.append(
            MenuItem(
                f"⇐ {kappa_ui.display_name(editor, other.id)}", "merge", ok, {"with": other.id}, item_id=f"merge-{i}"
            )
        )
    return items or [MenuItem("No nodes within 500 px", enabled=False, tone="muted", item_id="merge-none")]


def selection_menu(editor: Editor) -> list[MenuItem]:
    """The menu of a multi-selection (right-click on one of its nodes)."""
    count = len(editor.selection)
    target = Target()
    pin = menu_item(
        editor, target, "unpin-selection" if REGISTRY["unpin-selection"].enabled(editor, target) else "pin-selection"
    )
    pin.label = f"{pin.label} ({count} nodes)"
    delete = menu_item(editor, target, "delete-selection", tone="danger")
    delete.label = f"Delete {count} nodes"
    return [pin, delete]


def _searchable(editor: Editor, target: Target, action_id: str, build: Callable[[str], list[MenuItem]]) -> MenuItem:
    """An item whose submenu is ``build("")`` and filters as the user types (``build(query)``)."""
    return menu_item(editor, target, action_id, submenu=lambda: build(""), filter=build)


def node_menu(editor: Editor, node_id: str) -> list[MenuItem]:
    target = Target(node_id=node_id)
    node = editor.plane.nodes[node_id]
    if len(editor.selection) > 1 and node_id in editor.selection:
        return selection_menu(editor)
    items = [
        _searchable(editor, target, "connect", lambda q: connect_submenu(editor, node_id, q)),
    ]
    if kappa_ui.in_loop(editor, node_id):
        items.append(menu_item(editor, target, "unbend", tone="kappa"))
    elif editor.topology().scc(node_id) is None:
        bend = menu_item(editor, target, "bend")
        preview = kappa_ui.bend_preview(editor, node_id) if bend.enabled else None
        if preview is not None:
            bend.label = preview.label
        bend.tone = "kappa" if bend.enabled else "muted"
        items.append(bend)
    items += [
        menu_item(editor, target, "edit-text"),
        menu_item(editor, target, "fork"),
        _searchable(editor, target, "merge", lambda q: merge_submenu(editor, node_id, q)),
        menu_item(editor, target, "unpin" if node.pinned else "pin"),
    ]
    if node.type == "stargate" or node.portal_plane_id in editor.doc.planes:
        items.append(menu_item(editor, target, "enter-stargate"))
    items.append(menu_item(editor, target, "to-normal" if node.type == "stargate" else "to-stargate"))
    items.append(menu_item(editor, target, "delete-node", tone="danger"))
    return items


def edge_menu(editor: Editor, edge_id: str) -> list[MenuItem]:
    target = Target(edge_id=edge_id)
    edge = editor.plane.edges[edge_id]

    def kinds() -> list[MenuItem]:
        return [
            MenuItem(k.capitalize(), f"kind-{k}", True, checked=edge.props.kind == k, item_id=f"kind-{k}")
            for k in EDGE_KINDS
        ]

    def strengths() -> list[MenuItem]:
        return [
            MenuItem(f"{s}", f"strength-{s}", True, checked=edge.props.strength == s, item_id=f"strength-{s}")
            for s in range(1, 6)
        ]

    def polarities() -> list[MenuItem]:
        return [
            MenuItem(POLARITY_WORDS[sign], f"polarity-{name}", True, checked=edge.props.polarity == sign,
                     item_id=f"polarity-{name}")
            for sign, name in (("+", "plus"), ("-", "minus"), (None, "none"))
        ]  # fmt: skip

    fault = edge_id in editor.topology().fault_edges
    items = []
    if fault:
        info = "Fault line: its region's weakest cut"
        items.append(MenuItem(info, enabled=False, tone="kappa", item_id="fault-info"))
    items += [
        MenuItem(f"Kind: {edge.props.kind}", submenu=kinds, item_id="kind"),
        menu_item(editor, target, "reverse-edge"),
        menu_item(editor, target, "edit-label"),
        MenuItem(f"Strength: {edge.props.strength}", submenu=strengths, item_id="strength"),
    ]
    if edge.props.kind in POLAR_KINDS:
        sign = {"+": "+", "-": "−", None: "none"}[edge.props.polarity]
        items.append(MenuItem(f"Polarity: {sign}", submenu=polarities, item_id="polarity"))
    items.append(menu_item(editor, target, "delete-edge", tone="danger"))
    return items


def background_menu(editor: Editor, x: float, y: float) -> list[MenuItem]:
    target = Target(x=x, y=y)
    return [
        menu_item(editor, target, "new-node"),
        menu_item(editor, target, "new-stargate"),
        menu_item(editor, target, "fit-view"),
        menu_item(editor, target, "arrange-lr"),
        menu_item(editor, target, "arrange-tb"),
    ]

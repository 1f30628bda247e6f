"""Key routing: which action a key press runs (the action manager owns the keys).

Each action declares its key test (``Action.keys``: combos such as ``"Mod+z"``).
A key press matches the enabled actions whose test it passes and whose scope fits
the selection; two matches are a :class:`KeyConflict` (a bug in the registry, never
resolved by order). The browser layer only turns DOM key events into
:class:`KeyEvent` records and carries out the :class:`KeyCommand`.

>>> combo(KeyEvent("Z", mod=True, shift=True))
'Mod+Shift+z'
>>> combo(KeyEvent("?", shift=True))
'?'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bendscope.bend.actions.commands import REGISTRY, Action, Target
from bendscope.bend.editor.editor import Editor

#: where a key press happened: the canvas (or the page), a text field, a button
TARGETS = ("canvas", "field", "button")


@dataclass(frozen=True)
class KeyEvent:
    """A key press as a plain record. ``mod`` is Ctrl or ⌘."""

    key: str
    mod: bool = False
    alt: bool = False
    shift: bool = False
    target: str = "canvas"


@dataclass(frozen=True)
class KeyCommand:
    """What a key press asks for: run an action, open a menu, or open a menu's submenu."""

    kind: str  # "action" | "menu" | "submenu"
    action_id: str = ""
    target: Target = field(default_factory=Target)
    menu: str = ""  # for "menu" and "submenu": "node" | "edge" | "background"


class KeyConflict(RuntimeError):
    """Two enabled actions claim the same key press."""


def combo(event: KeyEvent) -> str:
    """The canonical combo of a key press: ``Mod+Alt+Shift+key`` (Shift only where it
    does not already show in the key itself, and letters lower-cased under modifiers)."""
    key = event.key
    parts = []
    if event.mod:
        parts.append("Mod")
    if event.alt:
        parts.append("Alt")
    if event.shift and (len(key) > 1 or parts):
        parts.append("Shift")
    if len(key) == 1 and parts:
        key = key.lower()
    return "+".join([*parts, key])


def _target_for(editor: Editor, act: Action) -> Target | None:
    """The target a key press gives ``act``: the single selected node or the selected edge."""
    if act.scope == "global":
        return Target()
    if act.scope == "node" and len(editor.selection) == 1:
        return Target(node_id=editor.selection[0])
    if act.scope == "edge" and editor.selected_edge is not None:
        return Target(edge_id=editor.selected_edge)
    return None


def matches(editor: Editor, key_combo: str) -> list[tuple[Action, Target]]:
    """Every enabled action whose key test ``key_combo`` passes, with its target. O(actions)."""
    found = []
    for act in REGISTRY.values():
        if key_combo not in act.keys:
            continue
        target = _target_for(editor, act)
        if target is not None and act.enabled(editor, target):
            found.append((act, target))
    return found


def route(editor: Editor, event: KeyEvent) -> KeyCommand | None:
    """The command for a key press, or None when the key is not ours (typing in a
    field, Enter/Space on a button, or no enabled action claims it)."""
    if event.target == "field":
        return None
    if (event.target == "button" and event.key in ("Enter", " ", "Home", "End")) or (
        event.key.startswith("Arrow") and (event.target != "canvas")
    ):
        return None  # a control's own keys (Tab is never ours: it moves between the controls)
    key_combo = combo(event)
    if key_combo in ("Shift+F10", "ContextMenu"):
        if editor.selection:  # one node, or a multi-selection (its node menu is the selection's)
            return KeyCommand("menu", target=Target(node_id=editor.selection[0]), menu="node")
        if editor.selected_edge is not None:
            return KeyCommand("menu", target=Target(edge_id=editor.selected_edge), menu="edge")
        return KeyCommand("menu", menu="background")
    found = matches(editor, key_combo)
    if len(found) > 1:
        raise KeyConflict(f"{key_combo!r} matches {', '.join(act.id for act, _ in found)}")
    if not found:
        return None
    act, target = found[0]
    if act.extra.get("submenu"):
        return KeyCommand("submenu", act.id, target, menu=act.scope)
    return KeyCommand("action", act.id, target)

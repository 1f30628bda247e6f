"""The help sheet (``?``): what κ means (``bend.kappa_view.explain``), then the keys — from the action
registry, so the sheet never drifts from what the keys do — and the pointer gestures; on a
touch device the gestures come before the keys.

>>> key_label("Mod+Shift+z")
'Ctrl/⌘+Shift+Z'
>>> sections = dict(sheet())
>>> ("?", "Help: κ explained, gestures and keys") in sections["Anywhere"]
True
>>> [title for title, _ in sheet()]
['What κ means', 'Anywhere', 'Selected node', 'Selected edge', 'Pointer']
>>> [title for title, _ in sheet(touch=True)]
['What κ means', 'Touch and pointer', 'Anywhere', 'Selected node', 'Selected edge']
"""

from __future__ import annotations

from bendscope.bend.actions.commands import REGISTRY
from bendscope.bend.kappa_view.explain import meaning

#: pointer gestures (mouse, pen, touch) and what they do
GESTURES: list[tuple[str, str]] = [
    ("Double-click · double-tap the background", "new node (type its text; Esc takes it back)"),
    ("Drag the background", "pan (two fingers on touch)"),
    ("Wheel · pinch", "zoom around the pointer"),
    ("Drag a node", "move it; it stays where you drop it (pinned)"),
    ("Drag the dot on a card's right edge", "connect to the node you release on (κ preview on the way; Alt: temporal)"),
    ("Shift+click", "add a node to the selection, or take it out"),
    ("Shift+drag the background", "select the nodes in the band"),
    ("Right-click · long-press", "the menu of what is under the pointer"),
    ("Double-click · double-tap a node", "edit its text (a stargate: open its plane)"),
    ("Tap a loop in the Loops panel", "show it on the canvas (the other cards fade); tap again to let go"),
]

SCOPES = (("global", "Anywhere"), ("node", "Selected node"), ("edge", "Selected edge"))

#: keys handled outside the action registry (menus, the text editor)
OTHER_KEYS: list[tuple[str, str]] = [
    ("Shift+F10 · Menu key", "the menu of the selection (↑/↓, → opens a submenu, ← or Esc closes it)"),
    ("Ctrl/⌘+Enter · Esc", "in the text editor: keep the text · cancel"),
    ("Ctrl/⌘+C · Ctrl/⌘+X · Ctrl/⌘+V", "copy · cut · paste the selected nodes with the edges among them (across tabs)"),
    ("Enter · Shift+Enter · Esc", "in the find bar: next · previous match · close"),
    ("typing in Connect to… / Merge with…", "filters the whole plane by text"),
]


def key_label(combo: str) -> str:
    """How a key combo reads on the sheet (a capital letter is that letter with Shift).

    >>> key_label("Mod+z"), key_label("l"), key_label("L")
    ('Ctrl/⌘+Z', 'L', 'Shift+L')
    """
    parts = combo.split("+") if combo != "+" else ["+"]
    out = []
    for part in parts:
        if part == "Mod":
            out.append("Ctrl/⌘")
        elif len(part) == 1 and part.isalpha():
            out.append(("Shift+" if part.isupper() else "") + part.upper())
        else:
            out.append(part)
    return "+".join(out)


def sheet(touch: bool = False) -> list[tuple[str, list[tuple[str, str]]]]:
    """(section title, [(keys or term, what they do or mean)]) in reading order; actions
    that share keys in one scope (a toggle such as Pin / Unpin) share a line. ``touch``:
    the gestures first. O(actions)."""
    sections: list[tuple[str, list[tuple[str, str]]]] = []
    for scope, title in SCOPES:
        lines: dict[str, list[str]] = {}
        for act in REGISTRY.values():
            if act.scope != scope or not act.keys:
                continue
            keys = " · ".join(key_label(k) for k in act.keys)
            labels = lines.setdefault(keys, [])
            if act.label not in labels:
                labels.append(act.label)
        rows = [(keys, " / ".join(labels)) for keys, labels in lines.items()]
        sections.append((title, rows + (OTHER_KEYS if scope == "global" else [])))
    if touch:
        return [("What κ means", meaning(touch=True)), ("Touch and pointer", list(GESTURES)), *sections]
    return [("What κ means", meaning()), *sections, ("Pointer", list(GESTURES))]

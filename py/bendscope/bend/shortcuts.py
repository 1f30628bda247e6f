"""The shortcut sheet (``?``): keys from the action registry, so it never drifts from
what the keys do, and the pointer gestures.

>>> key_label("Mod+Shift+z")
'Ctrl/⌘+Shift+Z'
>>> sections = dict(sheet())
>>> ("?", "Keyboard shortcuts") in sections["Anywhere"]
True
"""

from __future__ import annotations

from .actions import REGISTRY

#: pointer gestures (mouse, pen, touch) and what they do
GESTURES: list[tuple[str, str]] = [
    ("Double-click the background", "new node (type its text; Esc takes it back)"),
    ("Drag the background", "pan (two fingers on touch)"),
    ("Wheel · pinch", "zoom around the pointer"),
    ("Drag a node", "move it; it stays where you drop it (pinned)"),
    ("Drag the dot on a card's right edge", "connect to the node you release on (κ preview on the way; Alt: temporal)"),
    ("Shift+click", "add a node to the selection, or take it out"),
    ("Shift+drag the background", "select the nodes in the band"),
    ("Right-click · long-press", "the menu of what is under the pointer"),
    ("Double-click a node", "edit its text (a stargate: open its plane)"),
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


def sheet() -> list[tuple[str, list[tuple[str, str]]]]:
    """(section title, [(keys, what they do)]) in reading order; actions that share keys in
    one scope (a toggle such as Pin / Unpin) share a line. O(actions)."""
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
    sections.append(("Pointer", list(GESTURES)))
    return sections

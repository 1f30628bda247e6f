"""Context menus rendered from bend.menus.catalog models, with WAI-ARIA menu semantics.

Keyboard: ↑/↓ move, → or Enter opens a submenu, ←/Esc closes it, Enter/Space
activates, Esc on the top menu closes everything. Submenus are built when they
open (the Connect-to previews are computed then). Pointer: an open submenu stays
open while the pointer heads for it across other items (``bend.menus.aim``).

An item acts only on a whole click or tap on it: the press must begin on that item,
in a menu that was already open then, so the lift of the gesture that opened a menu
(a long press, the tap on "Merge with…") never picks the row that appears under the
finger. A mouse opens submenus by hovering — the items it moves over: a menu a key opens under
a resting pointer is not hovered where it appears (C's Connect to… stays open) —, a finger by
tapping; a submenu opens beside its item, else below or above it, never under the point that
opened it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import js
from pyodide.ffi import create_once_callable

from bendscope.bend.menus.aim import DELAY_MS, MenuAim
from bendscope.bend.menus.catalog import MenuItem

from .dom import el, is_null, on


class Menu:
    def __init__(self, activate: Callable[[MenuItem], None]) -> None:
        self.root = js.document.getElementById("menu-root")
        self.activate = activate
        self.levels: list[tuple[Any, list[MenuItem], list[Any]]] = []  # (element, items, item elements)
        self._serials: list[int] = []  # each level's number, counted up as levels open
        self._opened = 0
        self._pressed: tuple[int, int, int] | None = None  # (depth, index, level serial) of the last press
        self._point: tuple[float, float] | None = None  # where the last press was
        on(js.document, "pointerdown", self._outside, capture=True)
        # event delegation: three listeners for every menu ever shown (items carry data-pos)
        on(self.root, "click", lambda event: self._delegate(event, self._click))
        on(self.root, "pointerover", lambda event: self._delegate(event, self._pointer_over))
        on(self.root, "pointerdown", lambda event: self._delegate(event, self._press))
        self.aim = MenuAim()
        self._hovered: tuple[int, int] | None = None
        self.queries: dict[int, str] = {}  # type-to-filter: the text typed into a submenu level
        self._return_to: Any = None  # the element focused when the menu opened
        self._timer: Any = None
        #: where the pointer was last seen, and where it was when the menu opened while it has not
        #: moved since: a menu a key opens under a resting pointer gets a pointerover there
        #: (Chromium's, as the layout changes), which must not switch its open submenu
        self._pointer_at: tuple[float, float] | None = None
        self._still_at: tuple[float, float] | None = None
        on(js.document, "pointermove", self._track)
        on(self.root, "keydown", lambda event: self._delegate(event, self._key))

    @property
    def open(self) -> bool:
        return bool(self.levels)

    def show(self, items: list[MenuItem], x: float, y: float, label: str = "Context menu") -> None:
        self.close()
        self._return_to = js.document.activeElement  # (where focus goes back once an item is chosen)
        self._still_at = self._pointer_at  # (until it moves, the pointer hovers nothing it is over)
        self._open_level(items, x, y, label)
        self._focus(0, 0)

    def _give_focus_back(self) -> None:
        """Focus where it was when the menu opened (the canvas if that is gone): the menu's own
        element is removed, and focus must not drop to the page's body."""
        back = self._return_to
        if back is None or is_null(back) or not bool(back.isConnected) or str(back.tagName).lower() == "body":
            back = js.document.getElementById("canvas")
        back.focus()

    def close(self) -> None:
        for element, _, _ in self.levels:
            element.remove()
        self.levels = []
        self._serials = []
        self.queries = {}
        self._hovered = None
        if self._timer is not None:
            js.clearTimeout(self._timer)
            self._timer = None

    def _open_level(
        self,
        items: list[MenuItem],
        x: float,
        y: float,
        label: str,
        beside: tuple[float, float, float, float] | None = None,
    ) -> None:
        depth = len(self.levels)
        box = el("div", cls="menu", attrs={"role": "menu", "aria-label": label, "id": f"menu-{depth}"})
        elements = []
        for i, item in enumerate(items):
            role = "menuitemradio" if item.checked is not None else "menuitem"
            attrs = {"role": role, "tabindex": "-1", "id": f"mi-{depth}-{item.item_id or i}"}
            if item.item_id:
                attrs["data-item"] = item.item_id
            if not item.enabled:
                attrs["aria-disabled"] = "true"
            if item.has_submenu:
                attrs["aria-haspopup"] = "menu"
                attrs["aria-expanded"] = "false"
            if item.checked is not None:
                attrs["aria-checked"] = "true" if item.checked else "false"
            children = []
            if item.checked is not None:
                children.append(el("span", text="✓" if item.checked else "", cls="check"))
            children.append(el("span", text=item.label, cls="label"))
            if item.key_hint:
                children.append(el("span", text=item.key_hint, cls="hint"))
            if item.has_submenu:
                children.append(el("span", text="›", cls="chevron"))
            attrs["data-pos"] = f"{depth}:{i}"
            node = el("div", cls=f"tone-{item.tone}" if item.tone else "", attrs=attrs, children=children)
            box.appendChild(node)
            elements.append(node)
        self.root.appendChild(box)
        rect = box.getBoundingClientRect()
        left, top = self._place(float(rect.width), float(rect.height), x, y, beside)
        box.style.left = f"{left:.0f}px"
        box.style.top = f"{top:.0f}px"
        self.levels.append((box, items, elements))
        self._opened += 1
        self._serials.append(self._opened)

    def _place(
        self, w: float, h: float, x: float, y: float, beside: tuple[float, float, float, float] | None
    ) -> tuple[float, float]:
        """Where a w×h menu goes, inside the window: at (x, y), or for a submenu (``beside``
        its parent menu's left and right and its item's top and bottom) on the right of the
        parent, else on its left, below the item or above it — the first that fits and does
        not cover the point of the last press; else on the right, moved inside the window."""
        width, height = float(js.window.innerWidth), float(js.window.innerHeight)

        def inside(left: float, top: float) -> tuple[float, float]:
            return max(4.0, min(left, width - w - 4)), max(4.0, min(top, height - h - 4))

        if beside is None:
            return inside(x, y)
        p_left, p_right, i_top, i_bottom = beside
        candidates = [
            (p_right + 2, i_top - 4, "x"),
            (p_left - w - 2, i_top - 4, "x"),
            (p_left, i_bottom + 2, "y"),
            (p_left, i_top - h - 2, "y"),
        ]
        for left, top, exact in candidates:
            placed = inside(left, top)
            fits = placed[0] == left if exact == "x" else placed[1] == top
            point = self._point
            covers = (
                point is not None and placed[0] <= point[0] <= placed[0] + w and placed[1] <= point[1] <= placed[1] + h
            )
            if fits and not covers:
                return placed
        return inside(p_right + 2, i_top - 4)

    def _delegate(self, event: Any, handler: Callable[[Any, int, int], None]) -> None:
        target = None if is_null(event.target) else event.target.closest("[data-pos]")
        if is_null(target):
            return
        depth, index = (int(part) for part in str(target.getAttribute("data-pos")).split(":"))
        if depth < len(self.levels) and index < len(self.levels[depth][1]):
            handler(event, depth, index)

    def _focus(self, depth: int, index: int) -> None:
        _, _items, elements = self.levels[depth]
        if elements:
            elements[index % len(elements)].focus()

    def _truncate(self, depth: int) -> None:
        while len(self.levels) > depth + 1:
            element, _, _ = self.levels.pop()
            self._serials.pop()  # (kept beside the levels: a replaced level's number goes with it)
            element.remove()
            self.queries.pop(len(self.levels), None)
        for node in self.levels[depth][2]:
            if node.getAttribute("aria-haspopup"):
                node.setAttribute("aria-expanded", "false")

    def _open_submenu(self, depth: int, index: int, focus: bool) -> None:
        _, items, elements = self.levels[depth]
        item = items[index]
        if not item.has_submenu or not item.enabled:
            return
        self._truncate(depth)
        rect = elements[index].getBoundingClientRect()
        parent = self.levels[depth][0].getBoundingClientRect()
        elements[index].setAttribute("aria-expanded", "true")
        beside = (float(parent.left), float(parent.right), float(rect.top), float(rect.bottom))
        self._open_level(item.submenu(), float(parent.right) + 2, float(rect.top) - 4, item.label, beside)
        if focus:
            self._focus(depth + 1, 0)

    def _track(self, event: Any) -> None:
        at = (float(event.clientX), float(event.clientY))
        self._pointer_at = at
        if self.levels:
            self.aim.track(*at, float(js.performance.now()))
        if self._still_at is not None and at != self._still_at:
            self._still_at = None  # (the pointer moved: the items it goes over are hovered)

    def _pointer_over(self, event: Any, depth: int, index: int) -> None:
        if str(event.pointerType or "mouse") != "mouse":  # a finger opens a submenu by tapping it
            return
        if self._still_at == (float(event.clientX), float(event.clientY)):
            return  # the menu came under a pointer at rest (a key opened it): not a hover
        self._hover(depth, index)

    def _press(self, event: Any, depth: int, index: int) -> None:
        self._pressed = (depth, index, self._serials[depth])

    def _hover(self, depth: int, index: int) -> None:
        if depth >= len(self.levels):
            return
        self._hovered = (depth, index)
        if len(self.levels) > depth + 1 and self._aiming(depth, index):
            # heading for the open submenu across this item: decide once the pointer settles
            if self._timer is not None:
                js.clearTimeout(self._timer)
            self._timer = js.setTimeout(self._settled_proxy(), DELAY_MS)
            return
        self._switch(depth, index)

    def _aiming(self, depth: int, index: int) -> bool:
        expanded = self._index_of_expanded(depth)
        if expanded == index or self.levels[depth][2][expanded].getAttribute("aria-expanded") != "true":
            return False
        return self.aim.heading_for(self._rect(depth + 1), float(js.performance.now()))

    def _settled_proxy(self) -> Any:
        return create_once_callable(self._settled)

    def _settled(self) -> None:
        self._timer = None
        hovered = self._hovered
        if hovered is None or hovered[0] >= len(self.levels) or hovered[0] + 1 >= len(self.levels):
            return
        if self.aim.heading_for(self._rect(hovered[0] + 1), float(js.performance.now())):
            self._timer = js.setTimeout(self._settled_proxy(), DELAY_MS)  # still on its way
            return
        self._switch(*hovered)

    def _rect(self, depth: int) -> tuple[float, float, float, float]:
        r = self.levels[depth][0].getBoundingClientRect()
        return (float(r.left), float(r.top), float(r.right), float(r.bottom))

    def _switch(self, depth: int, index: int) -> None:
        items = self.levels[depth][1]
        if items[index].has_submenu:
            if len(self.levels) <= depth + 1 or self.levels[depth][2][index].getAttribute("aria-expanded") != "true":
                self._open_submenu(depth, index, focus=False)
        else:
            self._truncate(depth)

    def _click(self, event: Any, depth: int, index: int) -> None:
        event.stopPropagation()
        synthetic = int(event.detail or 0) == 0  # (a click no pointer made: assistive technology, .click())
        if not synthetic and self._pressed != (depth, index, self._serials[depth]):
            return  # the press began elsewhere, or before this menu opened: not a tap on this item
        self._choose(depth, index)

    def _choose(self, depth: int, index: int) -> None:
        item = self.levels[depth][1][index]
        if not item.enabled:
            return
        if item.has_submenu:
            self._open_submenu(depth, index, focus=True)
            return
        if item.stays_open and depth >= 2:  # a setting of the submenu above: rebuild it, open
            self.activate(item)
            self._refilter(depth - 1)
            return
        self.close()
        self._give_focus_back()  # (before the action: a dialog or the text editor it opens takes focus)
        self.activate(item)

    def _filter_level(self, depth: int) -> int | None:
        """The submenu level that typing filters from a key press at ``depth``: the open
        submenu of a filterable item there, or this level if its parent item filters."""
        for level in (depth + 1, depth):
            if 1 <= level < len(self.levels):
                parent = self.levels[level - 1][1][self._index_of_expanded(level - 1)]
                if parent.filter is not None:
                    return level
        return None

    def _refilter(self, level: int) -> None:
        """Rebuild submenu ``level`` for its query, where it is, the first match focused."""
        parent_items = self.levels[level - 1][1]
        parent = parent_items[self._index_of_expanded(level - 1)]
        if parent.filter is None:
            return
        query = self.queries.get(level, "")
        items = parent.filter(query)
        head = MenuItem(f"Filter: {query}" if query else "Type to filter", enabled=False, tone="muted",
                        item_id="filter")  # fmt: skip
        box = self.levels[level][0]
        x, y = float(str(box.style.left).rstrip("px") or 0), float(str(box.style.top).rstrip("px") or 0)
        while len(self.levels) > level:
            element, _, _ = self.levels.pop()
            self._serials.pop()  # (kept beside the levels: a replaced level's number goes with it)
            element.remove()
        self._open_level([head, *items], x, y, parent.label)
        first = next((i for i, item in enumerate(items, start=1) if item.enabled), 0)
        self._focus(level, first)

    def _key(self, event: Any, depth: int, index: int) -> None:
        key = event.key
        items = self.levels[depth][1]
        handled = True
        plain = len(key) == 1 and not (event.ctrlKey or event.metaKey or event.altKey)
        level = self._filter_level(depth) if plain or key == "Backspace" else None
        begun = level is not None and bool(self.queries.get(level))
        # (a space belongs to a query begun, "Customer r…"; before one, it chooses the item as in any menu)
        typing = plain and (key != " " or begun)
        if level is not None and (typing or (key == "Backspace" and begun)):
            query = self.queries.get(level, "")
            self.queries[level] = query + key if typing else query[:-1]
            self._refilter(level)
            event.preventDefault()
            event.stopPropagation()
            return
        if key == "ArrowDown":
            self._focus(depth, index + 1)
        elif key == "ArrowUp":
            self._focus(depth, index - 1)
        elif key == "Home":
            self._focus(depth, 0)
        elif key == "End":
            self._focus(depth, len(items) - 1)
        elif key == "ArrowRight" and items[index].has_submenu:
            self._open_submenu(depth, index, focus=True)
        elif key in ("ArrowLeft", "Escape"):
            if depth > 0:
                self._truncate(depth - 1)
                self._focus(depth - 1, self._index_of_expanded(depth - 1))
            elif key == "Escape":
                self.close()
                self._give_focus_back()  # (a toolbar button's menu: that button, so Tab goes on from it)
        elif key in ("Enter", " "):
            self._choose(depth, index)
        elif key == "Tab":
            self.close()
            self._give_focus_back()
            return  # (the browser's Tab then moves on from where the menu was opened, not from the page's body)
        else:
            handled = False
        if handled:
            event.preventDefault()
            event.stopPropagation()

    def _index_of_expanded(self, depth: int) -> int:
        for i, node in enumerate(self.levels[depth][2]):
            if node.getAttribute("aria-expanded") == "true":
                return i
        return 0

    def _outside(self, event: Any) -> None:
        self._point = (float(event.clientX), float(event.clientY))
        self._pressed = None  # (set again by _press when the press is on an item)
        if not self.levels:
            return
        target = event.target
        for element, _, _ in self.levels:
            if element.contains(target):
                return
        self.close()

"""The page's input, wired: DOM events (pointer, wheel, keys, clipboard, the toolbar's
buttons) turned into the editor core's plain records (``bend.pointer``, ``bend.keys``), and
what comes back carried out on the canvas and the widgets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import js
from pyodide.ffi import create_once_callable

from bendscope.bend.keys.routing import KeyCommand, KeyEvent
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.elements import empty_document
from bendscope.bend.persist import clipboard
from bendscope.bend.persist.filenames import graph_name
from bendscope.bend.pointer.inputs import LINE_PX, PointerInput, Request, Response, WheelIntent

from .dom import by_id, coarse_pointer, download, follow_media, on
from .images import image_menu

if TYPE_CHECKING:
    from .app import App


class InputWiring:
    """The page's event listeners for one :class:`~bendscope.app.app.App`."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.canvas = app.canvas
        #: where the last touch went down (client px): a long press opens its menu there
        self.press_xy = (0.0, 0.0)
        #: whether the wheel gesture under way pans or zooms
        self.wheel_intent = WheelIntent()

    def wire(self) -> None:
        c = self.canvas
        on(js.window, "resize", self.app.resize)
        # phones: the Loops panel and the inspector go to the bottom dock, above the HUD and the legend
        follow_media(
            "(max-width: 600px)", lambda narrow: by_id("dock" if narrow else "top").appendChild(by_id("sheet"))
        )
        on(c, "pointerdown", self.pointer_down)
        on(c, "pointermove", self.pointer_move)
        on(c, "pointerup", self.pointer_up)
        on(c, "pointercancel", self.pointer_cancel)
        on(c, "dblclick", self.dblclick)
        on(c, "pointerleave", lambda e: self.apply(self.app.tools.leave(), e))
        on(c, "wheel", self.wheel, passive=False)
        on(c, "contextmenu", self.contextmenu)
        on(js.window, "keydown", self.keydown)
        on(js.document, "copy", lambda e: self.clipboard(e, cut=False))
        on(js.document, "cut", lambda e: self.clipboard(e, cut=True))
        on(js.document, "paste", self.paste)
        on(js.window, "pagehide", self.app.saving.flush)
        on(js.document, "visibilitychange", lambda e: js.document.hidden and self.app.saving.flush())
        on(by_id("btn-undo"), "click", lambda e: self.app.perform("undo"))
        on(by_id("btn-redo"), "click", lambda e: self.app.perform("redo"))
        on(by_id("btn-fit"), "click", lambda e: self.app.perform("fit-view"))
        on(by_id("btn-freeze"), "click", lambda e: self.app.perform("freeze-layout"))
        on(by_id("btn-arrange"), "click", lambda e: self.app.perform("arrange-lr"))
        on(by_id("btn-help"), "click", lambda e: self.app.perform("help"))
        on(by_id("btn-loops"), "click", lambda e: self.app.perform("loops"))
        on(by_id("btn-theme"), "click", lambda e: self.app.toggle_theme())
        on(
            by_id("btn-new"),
            "click",
            lambda e: self.app.replace_with(empty_document(), "Start an empty graph?", "New graph"),
        )
        on(
            by_id("btn-demo"),
            "click",
            lambda e: self.app.replace_with(
                demo_document(touch=coarse_pointer()), "Replace the graph with the demo?", "Demo graph"
            ),
        )
        on(by_id("btn-import"), "click", lambda e: by_id("file-input").click())
        on(by_id("file-input"), "change", self.app.import_file)
        on(by_id("btn-export"), "click", self.app.export_menu)
        on(by_id("btn-topology"), "click", lambda e: download(self._topology_name(), self.app.topology_json()))
        on(by_id("btn-link"), "click", lambda e: self.app.spawn(self.app.copy_link()))
        on(js.window, "hashchange", lambda e: self.app.spawn(self.app.open_link()))
        on(by_id("hud-selection"), "click", lambda e: self.app.whole_plane())
        on(by_id("legend-toggle"), "click", lambda e: self.app.legend.toggle())
        on(by_id("btn-png"), "click", lambda event: image_menu(self.app, event))

    def _topology_name(self) -> str:
        """Export topology's file: the graph's name (``bend.persist.filenames``) before it."""
        name = graph_name(self.app.editor.doc, plane=True)
        return f"{name}-topology.json" if name else "topology.json"

    def xy(self, event: Any) -> tuple[float, float]:
        rect = self.canvas.getBoundingClientRect()
        return float(event.clientX - rect.left), float(event.clientY - rect.top)

    def pointer(self, kind: str, event: Any) -> PointerInput:
        x, y = self.xy(event)
        return PointerInput(
            kind,
            int(event.pointerId),
            x,
            y,
            int(event.button),
            str(event.pointerType or "mouse"),
            bool(event.shiftKey),
            bool(event.ctrlKey or event.metaKey),
            bool(event.altKey),
        )

    def apply(self, response: Response, event: Any) -> None:
        if response.commit_text:
            self.app.overlay.commit()
        if response.capture:
            self.canvas.setPointerCapture(event.pointerId)
        if response.cursor is not None:
            classes = self.canvas.classList
            for name in ("over-node", "panning", "dragging", "connecting"):
                classes.toggle(name, name == response.cursor)
        if response.long_press > 0:
            pointer_id = int(event.pointerId)
            self.press_xy = (float(event.clientX), float(event.clientY))
            js.setTimeout(create_once_callable(lambda: self.long_press(pointer_id)), response.long_press)
        if response.edit_new is not None:
            self.app.start_text_edit(response.edit_new, fresh=True)
        if response.repaint:
            self.app.request_frame()

    def long_press(self, pointer_id: int) -> None:
        """A finger held still: the context menu of what is under it (touch users' right-click)."""
        try:
            request = self.app.tools.long_press(pointer_id)
            if request is None:
                return
            self.app.editor.needs_paint = True
            x, y = self.press_xy
            if request.kind == "menu":
                self.app.open_menu(request.menu, x, y, node_id=request.target.node_id, edge_id=request.target.edge_id)
            self.app.request_frame()
        except Exception as exc:  # a timer callback: report, never crash the page
            self.app.report(exc)

    def pointer_down(self, event: Any) -> None:
        self.app.ahead.pressed()
        self.canvas.focus()
        self.apply(self.app.tools.pointer(self.pointer("down", event)), event)

    def pointer_move(self, event: Any) -> None:
        self.apply(self.app.tools.pointer(self.pointer("move", event)), event)

    def pointer_up(self, event: Any) -> None:
        self.apply(self.app.tools.pointer(self.pointer("up", event)), event)

    def pointer_cancel(self, event: Any) -> None:
        self.apply(self.app.tools.pointer(self.pointer("cancel", event)), event)

    def dblclick(self, event: Any) -> None:
        self.carry_out(self.app.tools.double_click(*self.xy(event)), event)

    def wheel(self, event: Any) -> None:
        event.preventDefault()
        x, y = self.xy(event)
        dx, dy, mode = float(event.deltaX), float(event.deltaY), int(event.deltaMode)
        if self.wheel_intent.pans(float(event.timeStamp), dx, dy, bool(event.ctrlKey)):
            # a sideways wheel or a trackpad's two-finger swipe pans, a whole swipe at a time (a
            # mouse's wheel, and a pinch — a wheel with Ctrl —, zoom)
            unit = LINE_PX if mode == 1 else 1.0
            self.app.editor.pan_by(-dx * unit, -dy * unit)
            self.apply(Response(repaint=True), event)
            return
        self.apply(self.app.tools.wheel(x, y, dy, mode), event)

    def contextmenu(self, event: Any) -> None:
        event.preventDefault()
        self.app.overlay.commit()
        self.carry_out(self.app.tools.context_menu(*self.xy(event)), event)

    def carry_out(self, request: Request, event: Any) -> None:
        target = request.target
        if request.kind == "edit-text" and target.node_id is not None:
            self.app.start_text_edit(target.node_id, fresh=request.fresh)
        elif request.kind == "action":
            self.app.perform(request.action_id, target)
        elif request.kind == "menu":
            x, y = float(event.clientX), float(event.clientY)
            self.app.open_menu(request.menu, x, y, node_id=target.node_id, edge_id=target.edge_id)
        self.app.request_frame()

    def in_field(self, event: Any) -> bool:
        """Whether a clipboard event belongs to a text field or a dialog (their own copy/paste)."""
        tag = str(getattr(event.target, "tagName", "") or "").lower()
        busy = self.app.menu.open or self.app.dialog.open or self.app.help.open or self.app.overlay.node_id is not None
        busy = busy or self.app.tools.state_name != "idle"  # never cut or paste in the middle of a gesture
        return busy or tag in ("input", "textarea") or bool(getattr(event.target, "isContentEditable", False))

    def clipboard(self, event: Any, cut: bool) -> None:
        """Copy / cut the selected nodes (with the edges among them) as a fragment: plain
        JSON text on the system clipboard, so pasting works in another tab too."""
        if self.in_field(event) or not self.app.editor.selection:
            return
        event.preventDefault()
        editor = self.app.editor
        event.clipboardData.setData("text/plain", clipboard.copy_fragment(editor, list(editor.selection)))
        if cut:
            self.app.perform("delete-selection")
        self.app.request_frame()

    def paste(self, event: Any) -> None:
        if self.in_field(event):
            return
        event.preventDefault()
        text = str(event.clipboardData.getData("text/plain") or "")
        try:
            clipboard.paste(self.app.editor, text, self.app.tools.paste_point())
        except ValueError as exc:  # a damaged fragment or over the limits: nothing changed
            self.app.toast.show(str(exc), error=True)
        self.app.request_frame()

    def keydown(self, event: Any) -> None:
        if self.app.menu.open or self.app.dialog.open or self.app.help.open or self.app.overlay.node_id is not None:
            return
        tag = str(getattr(event.target, "tagName", "") or "").lower()
        field = tag in ("input", "textarea", "select") or bool(getattr(event.target, "isContentEditable", False))
        where = "field" if field else ("button" if tag == "button" else "canvas")
        key = KeyEvent(
            str(event.key), bool(event.ctrlKey or event.metaKey), bool(event.altKey), bool(event.shiftKey), where
        )
        command = self.app.tools.key(key)
        if command is None:
            return
        event.preventDefault()
        self.run_key(command)

    def run_key(self, command: KeyCommand) -> None:
        target = command.target
        if command.kind == "action":
            self.app.perform(command.action_id, target)
        elif command.kind == "submenu" and target.node_id is not None:
            self.app.open_submenu_for(target.node_id, command.action_id)
        elif command.kind == "menu":
            w, h = self.app.editor.viewport
            if target.node_id is not None:
                x, y = self.app.editor.screen_position(target.node_id) or (w / 2, h / 2)
                self.app.open_menu("node", x, y, node_id=target.node_id)
            elif target.edge_id is not None:
                self.app.open_menu("edge", w / 2, h / 2, edge_id=target.edge_id)
            else:
                self.app.open_menu("background", w / 2, h / 2)
        self.app.request_frame()

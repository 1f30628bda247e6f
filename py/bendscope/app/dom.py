"""DOM helpers. User text is only ever set with textContent, never as HTML."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import js
from pyodide.ffi import create_once_callable, create_proxy, jsnull, to_js

if TYPE_CHECKING:
    from bendscope.bend.editor.editor import Editor

_KEEP: list[Any] = []  # proxies live as long as the page


def _warn(exc: BaseException) -> None:
    js.console.warn(f"Bendscope: {exc!r}")


#: called with the exception when an event handler raises (the app shows a toast)
on_error: Callable[[BaseException], None] = _warn


def is_null(value: Any) -> bool:
    """JS null and undefined arrive as JsNull or None."""
    return value is None or value is jsnull


def _guarded(handler: Callable) -> Callable:
    if inspect.iscoroutinefunction(handler):

        async def call_async(*args: Any) -> Any:
            try:
                return await handler(*args)
            except Exception as exc:  # a failing handler must not break the page
                on_error(exc)
                return None

        return call_async

    def call(*args: Any) -> Any:
        try:
            return handler(*args)
        except Exception as exc:
            on_error(exc)
            return None

    return call


def proxy(fn: Callable) -> Any:
    """A JS-callable proxy of ``fn`` that is never garbage collected."""
    p = create_proxy(fn)
    _KEEP.append(p)
    return p


def on(target: Any, event: str, handler: Callable, *, passive: bool | None = None, capture: bool = False) -> None:
    options = {"capture": capture}
    if passive is not None:
        options["passive"] = passive
    target.addEventListener(event, proxy(_guarded(handler)), js_obj(options))


def js_obj(value: Any) -> Any:
    """Python dict/list → plain JS object/array."""
    return to_js(value, dict_converter=js.Object.fromEntries)


def follow_media(query: str, apply: Callable[[bool], None]) -> None:
    """Run ``apply(matches)`` now and whenever the media ``query`` starts or stops matching."""
    media = js.window.matchMedia(query)
    apply(bool(media.matches))
    media.addEventListener("change", proxy(lambda event: apply(bool(event.matches))))


def coarse_pointer() -> bool:
    """The main pointer is a finger (a phone or tablet): the words name touch gestures."""
    return bool(js.window.matchMedia("(pointer: coarse)").matches)


#: the empty plane's hint where the main pointer is a finger (no keyboard to ask for shortcuts)
TOUCH_EMPTY_HINT = "Double-tap to add a node · long-press for more"


def name_finger_gestures(editor: Editor) -> None:
    """Where the main pointer is a finger, an empty card and the empty plane's hint name the
    finger's gestures (a double-tap, a long press), not a mouse's or a key."""
    if coarse_pointer():
        editor.set_touch(True)
        by_id("empty-hint").textContent = TOUCH_EMPTY_HINT


def focus_back(opener: Any) -> None:
    """Focus ``opener`` — what had the focus when a sheet or a dialog opened — if it is still on
    the page and shown, else the canvas (focus must not drop to the page's body)."""
    shown = opener is not None and not is_null(opener) and bool(opener.isConnected)
    if not shown or str(opener.tagName).lower() == "body" or opener.getClientRects().length == 0:
        opener = js.document.getElementById("canvas")
    opener.focus()


def by_id(element_id: str) -> Any:
    return js.document.getElementById(element_id)


def el(tag: str, *, text: str | None = None, cls: str = "", attrs: dict[str, str] | None = None, children=()) -> Any:
    node = js.document.createElement(tag)
    if cls:
        node.className = cls
    if text is not None:
        node.textContent = text
    for key, value in (attrs or {}).items():
        node.setAttribute(key, value)
    for child in children:
        node.appendChild(child)
    return node


def clear(node: Any) -> None:
    while node.firstChild:
        node.removeChild(node.firstChild)


def download(filename: str, data: str, mime: str = "application/json") -> None:
    blob = js.Blob.new(to_js([data]), js_obj({"type": mime}))
    download_blob(filename, blob)


def download_blob(filename: str, blob: Any) -> None:
    url = js.URL.createObjectURL(blob)
    link = el("a", attrs={"href": url, "download": filename})
    js.document.body.appendChild(link)
    link.click()
    link.remove()
    js.setTimeout(create_once_callable(lambda: js.URL.revokeObjectURL(url)), 1000)


class CanvasMeasure:
    """Callable ``measure(text, font) -> CSS px`` backed by measureText."""

    def __init__(self) -> None:
        self.ctx = js.document.createElement("canvas").getContext("2d")
        self.cache: dict[tuple[str, str], float] = {}
        self.font = ""

    def __call__(self, text: str, font: str) -> float:
        key = (font, text)
        width = self.cache.get(key)
        if width is None:
            if font != self.font:
                self.ctx.font = self.font = font
            width = float(self.ctx.measureText(text).width)
            if len(self.cache) > 50_000:
                self.cache.clear()
            self.cache[key] = width
        return width

"""Text measuring through a canvas context, cached per (font, text)."""

from __future__ import annotations

import js


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

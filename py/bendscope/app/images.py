"""Exported files: images of the plane or the selection, with their legend (SVG, or PNG at 1×,
2×, 4× drawn by a painter of their own), and the document or the plane in a file format."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import js
from pyodide.ffi import create_once_callable

from bendscope.bend.actions.commands import IMAGES, Target
from bendscope.bend.menus import catalog
from bendscope.bend.persist.filenames import file_name
from bendscope.bend.render.scene import FROZEN_PULSE, Overlay
from bendscope.bend.render.svgexport import image_view, plane_svg
from bendscope.shared.graphformats import SAVED_AS

from .dom import by_id, download, download_blob
from .painter import Painter

if TYPE_CHECKING:
    from .app import App

MAX_IMAGE_SIDE = 16_384  # px: an exported PNG's largest side (Chromium's canvas allows 32,767)
MAX_IMAGE_PIXELS = 40_000_000  # an exported PNG's pixels (160 MB of canvas)


def export_image(app: App, image: str) -> None:
    """Download the plane (or the selection) with its legend: SVG, or PNG at 1×, 2×, 4×
    — drawn by a painter of its own on a canvas of the image's size, at most
    MAX_IMAGE_SIDE px a side and MAX_IMAGE_PIXELS in all (the scale is lowered to fit,
    and the toast says so)."""
    editor = app.editor
    ids = image_ids(app)
    markers = app.loops_panel.markers()
    if image == "svg":
        svg = plane_svg(editor, ids, markers)  # (with the memory's ended cards and edges, when shown)
        download(
            file_name(editor.doc, ".svg", plane=True),
            svg if app.live is None else app.live.time.with_ended(svg),
            "image/svg+xml",
        )
        return
    view = image_view(editor, ids, markers)
    asked = {"png": 1.0, "png-2x": 2.0, "png-4x": 4.0}[image]
    scale = min(asked, MAX_IMAGE_SIDE / max(view.width, view.height),
                math.sqrt(MAX_IMAGE_PIXELS / (view.width * view.height)))  # fmt: skip
    if scale < 0.25:
        app.toast.show("The graph is too large for a PNG here: SVG (Image…) draws it at any size.", error=True)
        return
    graph = js.document.createElement("canvas")
    painter = Painter(graph, detail=True)
    painter.after = None if app.live is None else app.live.time.ended_hook()
    painter.paint(
        view.plane, editor.card, viewport=(view.width, view.graph_height), dpr=scale, grid=None,
        doc_version=editor.version, topology=view.topology, selection=(), selected_edge=None, dimmed=(),
        editing=None, measure=app.measure, pulse=FROZEN_PULSE, overlay=Overlay(), pins=False,
        camera=view.camera, markers=view.markers, tree_epoch=editor.rests,
    )  # fmt: skip
    canvas = js.document.createElement("canvas")  # the graph, and the legend's strip below it
    canvas.width = graph.width
    canvas.height = max(1, round(view.height * scale))
    ctx = canvas.getContext("2d")
    ctx.drawImage(graph, 0, 0)
    painter.legend(ctx, view.legend, view.graph_height, view.width, scale)

    def done(blob: Any) -> None:
        if blob:
            download_blob(file_name(editor.doc, ".png", plane=True), blob)

    canvas.toBlob(create_once_callable(done), "image/png")
    if scale < asked:
        app.toast.show(f"The image is made at {scale:.2f}×: the largest this page makes is "
                        f"{MAX_IMAGE_SIDE:,} px a side, {MAX_IMAGE_PIXELS / 1e6:.0f} megapixels.")  # fmt: skip


def image_menu(app: App, event: Any) -> None:
    """Image…: a menu of the images (the vector one first)."""
    box = by_id("btn-png").getBoundingClientRect()
    app._menu_target = Target()
    items = [catalog.menu_item(app.editor, Target(), f"export-{image}") for image, _ in IMAGES]
    items.append(catalog.menu_item(app.editor, Target(), "export-png-marks"))
    chosen = image_ids(app)
    title = "Image menu" if chosen is None else f"Image menu: the {len(chosen)} selected cards"
    app.menu.show(items, float(box.left), float(box.bottom) + 4, title)


def image_ids(app: App) -> list[str] | None:
    """What an image shows: the selection of two or more cards (not all), else the plane."""
    scope = app.editor.loop_scope()
    return None if scope is None else sorted(scope)


def export_png(app: App, marks: bool) -> None:
    """Download the canvas as a PNG as the screen shows it (``marks``: pins, selection, fading)."""

    def done(blob: Any) -> None:
        if blob:
            download_blob(file_name(app.editor.doc, ".png", plane=True), blob)

    if not marks:
        app.paint(js.performance.now(), clean=True)
    app.canvas.toBlob(create_once_callable(done), "image/png")
    if not marks:
        app.request_frame()


def export_file(app: App, fmt: str) -> None:
    """Download the document (json), or the plane as CSV, GraphML, DOT or Mermaid, named after
    the graph (``bend.persist.filenames``)."""
    extension, mime = SAVED_AS[fmt]
    text = app.editor.export() if fmt == "json" else app.editor.export_as(fmt)
    download(file_name(app.editor.doc, extension, plane=fmt != "json"), text, mime)

"""Share links: the graph carried in a link's fragment (``bend.persist.share``), opened
without overwriting the visitor's own graph, and copied to the clipboard."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import js

from bendscope.bend.persist.filenames import file_name
from bendscope.bend.persist.share import LinkTooLong, has_graph, link_error, read_fragment, share_fragment

from .dom import download

if TYPE_CHECKING:
    from .app import App


async def open_link(app: App) -> None:
    """A graph in the URL's fragment (``bend.persist.share``): shown, as one undoable step, without
    overwriting the visitor's own graph — unsaved edits are saved first, and the next save
    keeps the saved graph as a saved copy. The fragment is then taken off the address (a
    reload shows the saved graph). Nothing a link holds can stop the page: any failure is
    a message and the graph stays as it was."""
    fragment = str(js.window.location.hash or "")
    if not has_graph(fragment) or app._live_refuses("Opening a shared link"):
        return
    with contextlib.suppress(Exception):  # (an old browser: the fragment just stays)
        js.history.replaceState(js.history.state, "", str(js.window.location.href).split("#", 1)[0])
    saver = app.saving.saver
    try:
        text = read_fragment(fragment)
        if saver is not None and saver.dirty:
            await app.saving.save_now()  # (the visitor's latest edits, before another graph)
        error = app.editor.load(text, label="Open a shared link")
    except Exception as exc:  # (a damaged link: DocumentError; anything else: still only a message)
        error = str(exc) or type(exc).__name__
    if error:
        app.toast.show(link_error(error), error=True, ms=8000)
        app.request_frame()
        return
    if saver is not None:
        saver.keep_aside_before_next_save("shared-link")
    app.editor.opening_view()
    app.toast.show(
        "Opened the graph from the link. Your own graph is kept: Undo goes back to it, and once this one "
        "is saved, Saved copies… holds yours.",
        ms=9000,
    )
    app.request_frame()


async def copy_link(app: App) -> None:
    """Put a link holding the document on the clipboard (or show it to copy by hand)."""
    try:
        fragment = share_fragment(app.editor.export(indent=None))
    except LinkTooLong as exc:
        app.dialog.confirm(
            str(exc),
            lambda ok: ok and download(file_name(app.editor.doc, ".json"), app.editor.export()),
            ok_label="Export JSON",
        )
        return
    location = js.window.location
    link = f"{location.origin}{location.pathname}#{fragment}"
    try:
        await js.navigator.clipboard.writeText(link)
    except Exception:  # no clipboard here (permissions, an insecure origin): the link to copy by hand
        app.dialog.prompt("Copy this link (Ctrl/⌘+C):", link, lambda text: None, ok_label="Done")
        return
    app.toast.show(
        f"Link copied ({len(link) / 1024:,.1f} KB). The graph is in the link itself: nothing is sent to a server."
    )

"""Autosave in the page: the Saver (bend.persist.autosave) on IndexedDB, the tab that owns the
save, the persistent save banner and the saved-copies panel."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import js
from pyodide.ffi import create_proxy

from bendscope.bend.editor.editor import Editor
from bendscope.bend.persist import autosave
from bendscope.bend.persist.filenames import file_name

from .dom import by_id, clear, download, el, on, proxy
from .storage import IdbStore, LocalStore, Tabs, open_store

TICK_MS = 150.0


def _clock() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()) + " UTC"


async def _pause() -> None:
    """Let the page run (frames, input) between the slices of a save."""
    await asyncio.sleep(0)


class SaveController:
    """Owns the autosave: when to save, which tab saves, and what the user is told."""

    def __init__(self, editor: Editor, *, toast: Callable[[str], None], request_frame: Callable[[], None]) -> None:
        self.editor = editor
        self.toast = toast
        self.request_frame = request_frame
        self.store: IdbStore | LocalStore | None = None
        self.saver: autosave.Saver | None = None
        self.tabs = Tabs()
        self.timer: Any = None
        self._tick_proxy = proxy(self._tick)
        self._tasks: set[Any] = set()
        self.waiting_for_lock = False
        self.banner = by_id("save-banner")
        self.banner_text = by_id("save-banner-text")
        self.takeover_button = by_id("save-banner-takeover")
        self.copies_button = by_id("btn-copies")
        self.copies_box = by_id("copies-backdrop")
        self.copies_list = by_id("copies-list")
        self.note: str | None = None  # e.g. "saving to localStorage"
        self.handed_over = False
        on(
            by_id("save-banner-export"),
            "click",
            lambda e: download(file_name(self.editor.doc, ".json"), self.editor.export()),
        )
        on(self.takeover_button, "click", lambda e: self._ask_take_over())
        on(self.copies_button, "click", lambda e: self._spawn(self.show_copies()))
        on(by_id("copies-close"), "click", lambda e: self.hide_copies())
        on(self.copies_box, "keydown", self._copies_key)

    # ------------------------------------------------------------ boot
    async def start(self) -> autosave.Restored:
        """Open the store, find out whether this tab owns the save, and read the save."""
        self.store, self.note = await open_store()
        self.saver = autosave.Saver(
            self.editor, self.store, clock=_clock, pause=_pause, timer=lambda: float(js.performance.now())
        )
        owner = await self.tabs.acquire(False)
        if not owner:
            self.saver.resign()
            self._wait_for_lock()
        self.tabs.listen(create_proxy(self._on_message))
        restored = await self.saver.restore()
        await self.refresh_copies_button()
        self.update_banner()
        return restored

    # ------------------------------------------------------------ saving
    def schedule(self) -> None:
        saver = self.saver
        if saver is None or self.timer is not None or not saver.dirty:
            return
        saver.due(js.performance.now())  # notes when the change was first seen
        self.timer = js.setTimeout(self._tick_proxy, TICK_MS)

    def _tick(self) -> None:
        self.timer = None
        saver = self.saver
        if saver is None:
            return
        if saver.due(js.performance.now(), moving=self.editor.animating):  # (a layout moving: after it)
            self._spawn(self._save())
        elif saver.dirty and saver.owner and saver.blocked is None:
            self.schedule()

    async def _save(self) -> None:
        saver = self.saver
        if saver is None:
            return
        await saver.save()
        self.update_banner()
        if saver.dirty and saver.error is None:
            self.schedule()

    async def save_now(self) -> bool:
        """Save at once (automation and tests); returns whether it was written."""
        return False if self.saver is None else await self.saver.save()

    def flush(self, *_: Any) -> None:
        """The page is being hidden or closed: start the write now, without waiting."""
        saver, store = self.saver, self.store
        if saver is None or store is None or not saver.owner or saver.blocked or not saver.dirty:
            return
        items = saver.flush_items()
        if items is not None:
            try:
                store.put_now(items)
            except Exception as exc:
                js.console.warn(f"Bendscope: the last save on leaving failed: {exc}")

    def status(self) -> dict[str, Any]:
        saver = self.saver
        return {
            "store": "" if self.store is None else self.store.name,
            "owner": bool(saver and saver.owner),
            "dirty": bool(saver and saver.dirty),
            "saves": 0 if saver is None else saver.saves,
            "error": None if saver is None else saver.error,
            "blocked": None if saver is None else saver.blocked,
            "tabs_coordinated": self.tabs.supported,
        }

    # ------------------------------------------------------------ the banner
    def update_banner(self) -> None:
        saver = self.saver
        if saver is None:
            return
        message, follower = "", False
        if saver.blocked:
            message = saver.blocked
        elif saver.error:
            message = saver.error
        elif not saver.owner:
            follower = True
            message = (
                "This graph was taken over by another tab, which now saves it. Changes made here are not saved."
                if self.handed_over
                else "This graph is open in another tab, which saves it. Changes made here are not saved."
            )
        elif self.note:
            message = self.note
        self.banner.hidden = not message
        self.banner.className = "follower" if follower else ""
        self.banner_text.textContent = message
        self.takeover_button.hidden = not follower

    # ------------------------------------------------------------ tabs
    def _wait_for_lock(self) -> None:
        if not self.waiting_for_lock:
            self.waiting_for_lock = True
            self._spawn(self._wait())

    async def _wait(self) -> None:
        """Queue for the lock; once this tab gets it, it owns the save."""
        await self.tabs.acquire(True)
        self.waiting_for_lock = False
        saver = self.saver
        if saver is None:
            return
        doc = await saver.take_over()
        self.handed_over = False
        if doc is not None:
            self.editor.replace_document(doc, alpha=0.0)
            self.toast("This tab now saves the graph (it shows the latest save).")
        elif await saver.save() and saver.last_copy is not None:
            self.toast("This tab now saves the graph; the other tab's graph is kept under Saved copies.")
        elif saver.error is None:
            self.toast("This tab now saves the graph.")
        await self.refresh_copies_button()
        self.update_banner()
        self.request_frame()

    def _ask_take_over(self) -> None:
        self.tabs.post({"type": "take-over"})

    def _on_message(self, message: Any) -> None:
        kind = str(getattr(message, "type", ""))
        if kind == "take-over" and self.saver is not None and self.saver.owner:
            self._spawn(self._hand_over())
        elif kind == "take-over-refused" and self.saver is not None and not self.saver.owner:
            self.toast(str(getattr(message, "reason", "The other tab could not hand over the save.")))

    async def _hand_over(self) -> None:
        """Another tab asked for the save: save what we have, then let it go — but never
        with changes that could not be saved (they would exist only on this screen)."""
        saver = self.saver
        if saver is None:
            return
        while saver.saving:
            await asyncio.sleep(0.05)
        if saver.dirty:
            await saver.save()
        if saver.dirty:
            reason = saver.blocked or saver.error or "it has changes it could not save yet"
            self.tabs.post({"type": "take-over-refused", "reason": f"The other tab keeps the save: {reason}"})
            self.toast("Another tab asked to take over, but this tab's changes could not be saved first.")
            return
        saver.resign()
        self.handed_over = True
        self.tabs.release()
        self._wait_for_lock()
        self.update_banner()

    # ------------------------------------------------------------ saved copies
    async def refresh_copies_button(self) -> None:
        saver = self.saver
        copies = [] if saver is None else await saver.copies()
        self.copies_button.hidden = not copies
        self.copies_button.textContent = f"Saved copies ({len(copies)})…"

    async def show_copies(self) -> None:
        saver = self.saver
        if saver is None:
            return
        clear(self.copies_list)
        for copy in await saver.copies():
            item = el("li", attrs={"data-key": copy.key})
            item.appendChild(el("span", text=copy.label, cls="label"))
            for label, handler in (
                ("Download", self._download),
                ("Open", self._open),
                ("Delete", self._delete),
            ):
                button = el("button", text=label, attrs={"type": "button"})
                on(button, "click", lambda e, key=copy.key, handler=handler: self._spawn(handler(key)))
                item.appendChild(button)
            self.copies_list.appendChild(item)
        self.copies_box.hidden = False
        by_id("copies-close").focus()

    def hide_copies(self) -> None:
        self.copies_box.hidden = True
        by_id("canvas").focus()

    def _copies_key(self, event: Any) -> None:
        if event.key == "Escape":
            event.preventDefault()
            self.hide_copies()

    async def _download(self, key: str) -> None:
        text = None if self.saver is None else await self.saver.read_copy(key)
        if text is not None:
            download("bendscope-saved-copy.json", text)

    async def _open(self, key: str) -> None:
        text = None if self.saver is None else await self.saver.read_copy(key)
        if text is None:
            return
        error = self.editor.load(text, label="Open saved copy")
        self.toast(f"This copy cannot be opened here: {error}" if error else "Opened the saved copy (Undo goes back).")
        if error is None:
            self.hide_copies()
            self.editor.fit_view()
            self.request_frame()

    async def _delete(self, key: str) -> None:
        if self.saver is not None:
            await self.saver.delete_copy(key)
        await self.refresh_copies_button()
        if self.copies_button.hidden:
            self.hide_copies()
        else:
            await self.show_copies()

    # ------------------------------------------------------------ tasks
    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)  # keep a reference until it finishes
        task.add_done_callback(self._done)

    def _done(self, task: Any) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            js.console.warn(f"Bendscope: {type(exc).__name__}: {exc}")
            self.toast(f"Something went wrong while saving: {exc}")

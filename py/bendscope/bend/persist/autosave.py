"""Autosave and restore against an asynchronous key-value store (IndexedDB in the
browser, localStorage as its fallback, a dict in tests). DOM-free.

Slots:

* ``CURRENT`` — the latest save;
* ``PREVIOUS`` — the save before it, kept as a snapshot; only a readable save is ever
  rotated into it, so it always holds a document this editor can open;
* ``ASIDE_PREFIX…`` — saved copies: a save this editor cannot read (damaged, or written
  by a newer Bendscope), or one another tab's graph replaced, is moved here under its
  own key and never overwritten; the user downloads, opens or deletes it.

Rules: a document this session never changed is never written (a fresh or demo graph
cannot overwrite a save); saves are debounced; a write is all or nothing, so a failed
write (a full quota) leaves the last good save in place, and the error stays until a
save succeeds; only the tab that owns the save writes (``owner``; the browser layer
decides ownership with Web Locks); and a save this tab did not write itself (another
tab's, where Web Locks are missing) is never rotated away but kept as a saved copy.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.document import (
    MAX_BYTES,
    DocumentError,
    NewerVersion,
    parse_document,
    positions_of,
    serialized_pieces,
)
from bendscope.bend.model.elements import Document

KEY = "bendscope:document"
PREVIOUS_KEY = "bendscope:document:previous"
ASIDE_PREFIX = "bendscope:aside:"
REASONS = {
    "unreadable": "could not be read",
    "newer-version": "was written by a newer Bendscope",
    "replaced": "was replaced by another tab's graph",
    "shared-link": "was your graph when a shared link opened another",
}


class StringStore(Protocol):
    """An asynchronous string store. ``put`` writes all items or none."""

    async def get(self, key: str) -> str | None: ...
    async def put(self, items: Mapping[str, str]) -> None: ...
    async def delete(self, key: str) -> None: ...
    async def keys(self) -> list[str]: ...


class QuotaError(OSError):
    """The store is full."""


class MemoryStore:
    """A dict-backed StringStore for tests: ``quota`` (total characters) and ``fail_writes``
    imitate a full or broken browser store."""

    def __init__(self, quota: int | None = None) -> None:
        self.data: dict[str, str] = {}
        self.quota = quota
        self.fail_writes = False

    async def get(self, key: str) -> str | None:
        return self.data.get(key)

    async def put(self, items: Mapping[str, str]) -> None:
        if self.fail_writes:
            raise OSError("the store refused the write")
        after = {**self.data, **items}
        if self.quota is not None and sum(len(v) for v in after.values()) > self.quota:
            raise QuotaError("QuotaExceededError: the quota has been exceeded")
        self.data = after

    async def delete(self, key: str) -> None:
        self.data.pop(key, None)

    async def keys(self) -> list[str]:
        return sorted(self.data)


#: a save builds the document's text in slices of about this many ms (with a pause)
SLICE_MS = 8.0
#: after this many sliced saves given up in a row (the document changed meanwhile), one go
MAX_MISSES = 2
#: while the layout moves cards, a save due waits up to this many ms more (its slices would
#: sit between the layout's frames; a page going away writes at once all the same)
HOLD_MS = 5000.0
#: a save of the view alone (the camera moved, the plane shown changed: no edit) waits this many
#: ms more, so that panning does not save a large graph again and again (leaving writes it at once)
VIEW_HOLD_MS = 2400.0


def view_of(doc: Document) -> tuple[object, ...]:
    """What a reload shows of ``doc`` besides its content: the plane shown and each plane's
    camera (both in the document format already). O(planes)."""
    return (doc.active_plane_id, *((p.id, p.camera.x, p.camera.y, p.camera.zoom) for p in doc.planes.values()))


@dataclass(frozen=True)
class SavedCopy:
    """A save moved aside: ``key`` in the store, ``reason`` (a REASONS key), when, how big."""

    key: str
    reason: str
    when: str
    size: int

    @property
    def label(self) -> str:
        return f"{self.when} — {REASONS.get(self.reason, self.reason)} ({self.size / 1e6:.2f} MB)"


@dataclass
class Restored:
    """What ``restore`` found: the document (or None), where from, and what to tell the user."""

    doc: Document | None
    source: str | None = None  # KEY or PREVIOUS_KEY
    notes: list[str] = field(default_factory=list)


def failure_message(exc: BaseException) -> str:
    """A user-facing sentence for a failed write."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if "quota" in text.lower():
        return "Autosave failed: the browser's storage for this site is full. " + _KEPT
    return f"Autosave failed ({text}). " + _KEPT


_KEPT = "The last good save is kept; Export JSON saves this graph to a file."


class Saver:
    """Debounced autosave of one editor's document, and restore.

    ``clock()`` names saved copies (a sortable timestamp string). All methods that
    touch the store are coroutines; ``due`` is the synchronous debounce check.
    """

    def __init__(
        self,
        editor: Editor,
        store: StringStore,
        *,
        clock: Callable[[], str],
        debounce_ms: float = 600.0,
        pause: Callable[[], Awaitable[None]] | None = None,
        timer: Callable[[], float] | None = None,
    ) -> None:
        self.editor = editor
        self.store = store
        self.clock = clock
        #: with ``pause`` (and a ``timer`` in ms) the document's text is built in slices of
        #: SLICE_MS with a pause between them (the page: frames go on while a large graph is saved)
        self.pause = pause
        self.timer = timer
        self._misses = 0  # sliced saves given up in a row because the document changed meanwhile
        self.debounce_ms = debounce_ms
        self.owner = True  # only the owning tab writes
        self.error: str | None = None  # the last write failed (cleared by a good save)
        self.blocked: str | None = None  # autosave is off to protect a save it could not move aside
        self.saved_version = editor.version
        #: the view the save holds (``view_of``), and the document it is of: the view of a graph
        #: this session edited, or restored from the save, is saved when it changes
        self.saved_view = view_of(editor.doc)
        self._viewed: Document | None = None
        self.pending_since: float | None = None
        self.saves = 0
        self.saving = False
        self._last_text: str | None = None  # what CURRENT holds, known readable
        self._replace_reason: str | None = None  # move CURRENT aside before the next write
        self.last_copy: SavedCopy | None = None  # the copy the last save kept aside, if any

    # ------------------------------------------------------------ restore
    async def restore(self) -> Restored:
        """The saved document, else the snapshot before it; unreadable saves are moved
        aside (never deleted) and named in ``notes``."""
        restored = Restored(None)
        for slot, name in ((KEY, "last save"), (PREVIOUS_KEY, "snapshot before it")):
            text = await self.store.get(slot)
            if not text:
                continue
            try:
                doc = parse_document(text)
            except DocumentError as exc:
                reason = "newer-version" if isinstance(exc, NewerVersion) else "unreadable"
                if self.owner:
                    restored.notes.append(await self._set_aside(slot, text, reason, name, str(exc)))
                else:  # the owning tab deals with it; this one changes nothing
                    restored.notes.append(f"The {name} {REASONS[reason]} ({exc}).")
                continue
            if slot == KEY:
                self._last_text = text
                self._viewed, self.saved_view = doc, view_of(doc)
            else:
                restored.notes.append("Restored the snapshot before the last save.")
            restored.doc, restored.source = doc, slot
            return restored
        return restored

    async def _set_aside(self, slot: str, text: str, reason: str, name: str, problem: str) -> str:
        copy = await self._copy_aside(text, reason)
        if copy is None:
            self.blocked = (
                f"The {name} {REASONS[reason]} ({problem}) and could not be kept as a copy, so autosave is "
                "off to leave it untouched. Export JSON saves your work to a file."
            )
            return self.blocked
        with contextlib.suppress(Exception):  # the copy exists; the slot is simply overwritten later
            await self.store.delete(slot)
        return (
            f"The {name} {REASONS[reason]} ({problem}). It is kept as a saved copy from {copy.when}: "
            "Saved copies… downloads or opens it."
        )

    async def _aside_key(self, reason: str, size: int) -> SavedCopy:
        """A new aside key (never one that exists) for a copy of ``size`` characters."""
        existing = set(await self.store.keys())
        when = self.clock()
        key = f"{ASIDE_PREFIX}{when}:{reason}"
        n = 2
        while key in existing:
            key = f"{ASIDE_PREFIX}{when}-{n}:{reason}"
            n += 1
        return _copy(key, size)

    async def _copy_aside(self, text: str, reason: str) -> SavedCopy | None:
        """Write ``text`` under a new aside key. None if the write failed."""
        copy = await self._aside_key(reason, len(text))
        try:
            await self.store.put({copy.key: text})
        except Exception:
            return None
        return copy

    # ------------------------------------------------------------ saving
    @property
    def dirty(self) -> bool:
        """Whether the save is behind: an edit, or a move of the view of a graph this session edited
        or restored (a demo or a shared graph only looked at writes nothing). O(planes)."""
        return (self.editor.edited and self.editor.version != self.saved_version) or self._view_moved

    @property
    def _view_moved(self) -> bool:
        editor = self.editor
        return (editor.edited or editor.doc is self._viewed) and view_of(editor.doc) != self.saved_view

    def due(self, now_ms: float, moving: bool = False) -> bool:
        """Call often: true once ``debounce_ms`` have passed since the first unsaved change
        (a throttle, on purpose: under continuous editing a save still happens at least
        that often, so no more than ``debounce_ms`` of work is ever unsaved) — or, while the
        layout moves cards (``moving``: a graph just loaded comes apart), once it rests or
        :data:`HOLD_MS` more have passed.

        >>> from bendscope.bend.editor.editor import Editor
        >>> editor = Editor()
        >>> saver = Saver(editor, MemoryStore(), clock=lambda: "now")
        >>> editor.edited = True
        >>> editor.add_node(0.0, 0.0) is not None
        True
        >>> saver.due(0.0), saver.due(700.0, moving=True), saver.due(700.0), saver.due(5600.0, moving=True)
        (False, False, True, True)
        """
        if not self.dirty:
            self.pending_since = None
            return False
        if self.pending_since is None:
            self.pending_since = now_ms
        view_only = not (self.editor.edited and self.editor.version != self.saved_version)
        wait = self.debounce_ms + (HOLD_MS if moving else 0.0) + (VIEW_HOLD_MS if view_only else 0.0)
        return now_ms - self.pending_since >= wait and self.owner and self.blocked is None

    async def save(self) -> bool:
        """Write the document now; returns whether anything was written. A save already
        under way (a large graph's text is built in slices) is waited for first (up to 30 s)."""
        for _ in range(3000):
            if not self.saving:
                break
            await asyncio.sleep(0.01)
        if not self.owner or self.blocked is not None or not self.dirty or self.saving:
            return False
        self.saving = True
        try:
            return await self._save()
        finally:
            self.saving = False

    async def _text(self) -> str | None:
        """The document's text (as ``Editor.export``), built in slices when the saver may pause;
        None when the document changed during a pause (the next save tries again; after
        MAX_MISSES such misses in a row the text is built in one go, so that continuous
        editing never starves the autosave)."""
        if self.pause is None or self.timer is None or self._misses >= MAX_MISSES:
            self._misses = 0
            return self.editor.export(indent=None)
        editor, timer = self.editor, self.timer
        version, doc = editor.version, editor.doc
        parts: list[str] = []
        start = timer()
        # where the cards are now: the layout moves them during the pauses (not an edit), and
        # one save must not hold positions of different frames
        snapshot = positions_of(doc)
        for k, piece in enumerate(serialized_pieces(doc, snapshot)):
            parts.append(piece)
            if k % 64 == 63 and timer() - start > SLICE_MS:
                await self.pause()
                if editor.version != version or editor.doc is not doc:
                    self._misses += 1  # (the pieces' generator is never resumed on a changed document)
                    return None
                start = timer()
        self._misses = 0
        return "".join(parts)

    async def _save(self) -> bool:
        version, view = self.editor.version, view_of(self.editor.doc)
        # what this save moves aside is decided now, with the text it writes: a reason set
        # while it awaits (a shared link opening another graph) is for the next save
        reason_now = self._replace_reason
        text = await self._text()
        if text is None:
            return False
        try:
            if len(text) > MAX_BYTES:  # the editor keeps documents below this; never write what cannot load
                raise OSError(f"the graph is {len(text) / 1e6:.1f} MB, more than a save may hold")
            items = {KEY: text}
            copy: SavedCopy | None = None
            current = await self.store.get(KEY)
            if current and current != text:
                if current == self._last_text and reason_now is None:
                    items[PREVIOUS_KEY] = current  # our own last save: known readable
                else:
                    # written by someone else (another tab, without Web Locks), or to be replaced
                    # on purpose: keep it as a saved copy, in the same all-or-nothing write
                    reason = reason_now or ("replaced" if _readable(current) else "unreadable")
                    copy = await self._aside_key(reason, len(current))
                    items[copy.key] = current
            await self.store.put(items)
        except Exception as exc:
            self.error = failure_message(exc)
            return False
        self.error = None
        self.last_copy = copy
        self._last_text = text
        if self._replace_reason == reason_now:
            self._replace_reason = None
        self.saved_version, self.saved_view = version, view
        self._viewed = self.editor.doc
        self.pending_since = None
        self.saves += 1
        return True

    def flush_items(self) -> dict[str, str] | None:
        """What to write without waiting when the page goes away (no reads possible then):
        the document, and the known-readable current save as the snapshot. None when
        nothing may or need be written."""
        if not self.owner or self.blocked is not None or not self.dirty or self._replace_reason is not None:
            return None
        text = self.editor.export(indent=None)
        items = {KEY: text}
        if self._last_text is not None and self._last_text != text:
            items[PREVIOUS_KEY] = self._last_text
        return items

    def keep_aside_before_next_save(self, reason: str) -> None:
        """The save the store holds now is moved to a saved copy (``reason``) by the next
        save, in the same all-or-nothing write — e.g. the visitor's own graph when a shared
        link opens another. Nothing is copied if the store holds no save."""
        self._replace_reason = reason

    # ------------------------------------------------------------ tabs
    def resign(self) -> None:
        """Another tab owns the save now: stop writing."""
        self.owner = False

    async def take_over(self) -> Document | None:
        """This tab owns the save from now on. With no edits of its own it continues from
        the latest save (returned, for the caller to install); with edits, its graph will
        replace the save, and the other tab's graph is first kept as a saved copy."""
        self.owner = True
        if self.editor.edited:
            self._replace_reason = "replaced"
            self.saved_version = -1  # write this tab's graph soon
            return None
        self._last_text = None
        restored = await self.restore()
        return restored.doc

    # ------------------------------------------------------------ saved copies
    async def copies(self) -> list[SavedCopy]:
        """The saved copies, newest first."""
        out = []
        for key in await self.store.keys():
            if key.startswith(ASIDE_PREFIX):
                text = await self.store.get(key)
                out.append(_copy(key, len(text or "")))
        return sorted(out, key=lambda c: c.key, reverse=True)

    async def read_copy(self, key: str) -> str | None:
        return await self.store.get(key) if key.startswith(ASIDE_PREFIX) else None

    async def delete_copy(self, key: str) -> None:
        if key.startswith(ASIDE_PREFIX):
            await self.store.delete(key)


def _readable(text: str) -> bool:
    try:
        parse_document(text)
    except DocumentError:
        return False
    return True


def _copy(key: str, size: int) -> SavedCopy:
    rest = key[len(ASIDE_PREFIX) :]
    when, _, reason = rest.rpartition(":")
    return SavedCopy(key, reason, when, size)

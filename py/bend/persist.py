"""Autosave and restore, against any key-value store (localStorage in the browser).

Rules: saves are debounced; a document this session never changed is never
written (so a fresh or demo graph cannot overwrite a saved one); before each
write the previous save is kept under a second key, so a corrupt save can be
recovered from the snapshot before it.
"""

from __future__ import annotations

from typing import Protocol

from .document import DocumentError, parse_document
from .editor import Editor
from .model import Document

KEY = "bendscope:document"
PREVIOUS_KEY = "bendscope:document:previous"


class Store(Protocol):
    def get(self, key: str) -> str | None: ...
    def set(self, key: str, value: str) -> None: ...


class MemoryStore:
    """A dict-backed Store (tests)."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}
        self.fail_writes = False

    def get(self, key: str) -> str | None:
        return self.data.get(key)

    def set(self, key: str, value: str) -> None:
        if self.fail_writes:
            raise OSError("quota exceeded")
        self.data[key] = value


def restore(store: Store) -> tuple[Document | None, str | None]:
    """The saved document (or the previous snapshot) and a message for the user.

    Returns (None, None) when nothing is saved.
    """
    for key, note in (
        (KEY, None),
        (PREVIOUS_KEY, "The last autosave was unreadable; restored the snapshot before it."),
    ):
        try:
            text = store.get(key)
        except Exception:
            return None, "Local storage is not available; changes will not be saved."
        if not text:
            continue
        try:
            return parse_document(text), note
        except DocumentError:
            continue
    if store.get(KEY) or store.get(PREVIOUS_KEY):
        return None, "The saved graph could not be read; it is kept in local storage untouched."
    return None, None


class Autosave:
    """Debounced saving of an Editor's document into a Store."""

    def __init__(self, editor: Editor, store: Store, debounce_ms: float = 600.0) -> None:
        self.editor = editor
        self.store = store
        self.debounce_ms = debounce_ms
        self.saved_version = editor.version
        self.pending_since: float | None = None
        self.saves = 0
        self.error: str | None = None

    def poll(self, now_ms: float) -> bool:
        """Call often; saves once the document has been still for the debounce time."""
        if self.editor.version == self.saved_version:
            self.pending_since = None
            return False
        if self.pending_since is None:
            self.pending_since = now_ms
        if now_ms - self.pending_since < self.debounce_ms:
            return False
        return self.save()

    def save(self) -> bool:
        """Save now (page unload); returns whether anything was written."""
        if not self.editor.edited or self.editor.version == self.saved_version:
            return False
        text = self.editor.export(indent=None)
        try:
            current = self.store.get(KEY)
            if current and current != text:
                self.store.set(PREVIOUS_KEY, current)
            self.store.set(KEY, text)
        except Exception as exc:
            self.error = f"Autosave failed: {exc}"
            return False
        self.error = None
        self.saved_version = self.editor.version
        self.pending_since = None
        self.saves += 1
        return True

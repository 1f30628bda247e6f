"""localStorage as a bend.persist.Store (errors surface as exceptions)."""

from __future__ import annotations

import js
from pyodide.ffi import jsnull


class LocalStore:
    def get(self, key: str) -> str | None:
        value = js.window.localStorage.getItem(key)
        return None if value is None or value is jsnull else str(value)

    def set(self, key: str, value: str) -> None:
        js.window.localStorage.setItem(key, value)

"""The autosave's stores: IndexedDB (static/storage.js), localStorage as the fallback,
and the tab lock. Each store implements bend.persist.autosave.StringStore (errors surface as exceptions)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import js

from bendscope.bend.persist import autosave

from .dom import is_null, js_obj

_OLD_KEYS = (autosave.KEY, autosave.PREVIOUS_KEY)  # where earlier versions saved (localStorage)


def _message(exc: Any) -> str:
    return str(getattr(exc, "message", "") or exc)


class IdbStore:
    """IndexedDB through window.bendscopeStorage: multi-key writes are one transaction."""

    name = "IndexedDB"

    def __init__(self) -> None:
        self.js = js.window.bendscopeStorage

    async def get(self, key: str) -> str | None:
        value = await self.js.get(key)
        return None if is_null(value) else str(value)

    async def put(self, items: Mapping[str, str]) -> None:
        await self.js.putMany(js_obj(dict(items)))

    async def delete(self, key: str) -> None:
        await getattr(self.js, "del")(key)

    async def keys(self) -> list[str]:
        return [str(k) for k in (await self.js.keys())]

    def put_now(self, items: Mapping[str, str]) -> None:
        """Start a write without waiting (the page is being hidden or closed)."""
        self.js.putMany(js_obj(dict(items)))


class LocalStore:
    """localStorage (about 5 MB): used only when IndexedDB cannot be opened. A failed
    multi-key write puts back the keys it had already written."""

    name = "localStorage"

    async def get(self, key: str) -> str | None:
        value = js.window.localStorage.getItem(key)
        return None if is_null(value) else str(value)

    async def put(self, items: Mapping[str, str]) -> None:
        self.put_now(items)

    def put_now(self, items: Mapping[str, str]) -> None:
        storage = js.window.localStorage
        done: list[tuple[str, Any]] = []
        try:
            for key, value in items.items():
                done.append((key, storage.getItem(key)))
                storage.setItem(key, value)
        except Exception:
            for key, old in reversed(done):
                if is_null(old):
                    storage.removeItem(key)
                else:
                    storage.setItem(key, old)
            raise

    async def delete(self, key: str) -> None:
        js.window.localStorage.removeItem(key)

    async def keys(self) -> list[str]:
        storage = js.window.localStorage
        return [str(storage.key(i)) for i in range(int(storage.length))]


async def open_store() -> tuple[IdbStore | LocalStore, str | None]:
    """IndexedDB if it opens (moving saves of earlier versions over from localStorage),
    else localStorage with a note for the user."""
    try:
        await js.window.bendscopeStorage.open()
        store = IdbStore()
    except Exception as exc:
        return LocalStore(), f"Saving to localStorage (about 5 MB): IndexedDB is not available ({_message(exc)})."
    try:
        await _migrate(store)
    except Exception as exc:  # the old saves stay where they are
        js.console.warn(f"Bendscope: could not move old saves to IndexedDB: {_message(exc)}")
    return store, None


async def _migrate(store: IdbStore) -> None:
    local = js.window.localStorage
    found = {k: str(local.getItem(k)) for k in _OLD_KEYS if not is_null(local.getItem(k))}
    if not found or await store.get(autosave.KEY) is not None:
        return
    await store.put(found)
    for key in found:
        local.removeItem(key)


class Tabs:
    """The tab lock (the holder owns the save) and messages between tabs."""

    def __init__(self) -> None:
        self.js = js.window.bendscopeTabs

    @property
    def supported(self) -> bool:
        return bool(self.js.supported)

    async def acquire(self, wait: bool) -> bool:
        return bool(await self.js.acquire(wait))

    def release(self) -> None:
        self.js.release()

    def post(self, message: dict[str, str]) -> None:
        self.js.post(js_obj(message))

    def listen(self, callback: Any) -> None:
        self.js.listen(callback)

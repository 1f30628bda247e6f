"""The errors a caller can cause; their messages are meant for the caller (or an agent)."""

from __future__ import annotations


class InvalidInput(ValueError):
    """An argument is malformed, out of range or too large; nothing was changed."""


class NotFound(InvalidInput):
    """An id names no node or edge; nothing was changed."""


class StoreUnavailable(RuntimeError):
    """The store cannot be opened or used (a locked, read-only or foreign file)."""

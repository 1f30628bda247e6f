"""The errors a caller can cause; their messages are meant for the caller (or an agent)."""

from __future__ import annotations


class InvalidInput(ValueError):
    """An argument is malformed, out of range or too large; nothing was changed."""


class NotFound(InvalidInput):
    """An id names no node or edge; nothing was changed."""


class StoreUnavailable(RuntimeError):
    """The store cannot be opened or used (a locked, read-only or foreign file)."""


class Conflict(InvalidInput):
    """What was given derives the id of a different node or edge; nothing was changed."""


class ReadOnly(StoreUnavailable):
    """The store is open read-only (``--read-only``, or a damaged store); nothing was written."""

"""The limits of the HTTP transport (see ``http``): what one server lets its clients hold."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import InvalidInput


@dataclass(frozen=True)
class Limits:
    """What one HTTP server lets its clients hold (seconds and counts)."""

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 256
    max_sessions: int = 1000
    session_idle: float = 600.0

    def check(self) -> Limits:
        """These limits, or InvalidInput naming the one out of range."""
        for name in ("header_timeout", "body_timeout", "session_idle"):
            value = getattr(self, name)
            if not 0 < value <= 86_400:
                raise InvalidInput(f"{name.replace('_', '-')} must be from 0 to 86400 seconds, got {value}")
        for name in ("max_connections", "max_sessions"):
            value = getattr(self, name)
            if not 1 <= value <= 100_000:
                raise InvalidInput(f"{name.replace('_', '-')} must be from 1 to 100000, got {value}")
        return self

"""When the live page fetches the memory's changes during a burst of an agent's writes.

Each fetch the page brings in costs it a merge and a frame that shows the change (the scene
plan's update, κ's step, the paint); on a large memory those frames are the slow ones of a
burst. So above :data:`BIG` cards a fetch waits, at most, for two things:

- :data:`FETCH_GAP_MS` since the fetch before began;
- the frame that shows what the fetch before brought in: until it has been painted, the
  changes that arrive are left for one fetch after it (one merge for all of them, not one per
  frame). A page whose frames do not come (a hidden tab) waits no more than
  :data:`PAINT_WAIT_MS` for it.

The writes that arrive meanwhile are brought in together, so a slower page (a busy machine,
a memory served from PostgreSQL whose answers come a few writes at a time) makes fewer,
larger merges instead of falling further behind.
"""

from __future__ import annotations

__all__ = ["BIG", "FETCH_GAP_MS", "PAINT_WAIT_MS", "POLL_MS", "fetch_wait_ms"]

#: above this many cards on the page, fetches are paced (below, each change is fetched at once)
BIG = 500
#: ms between the starts of two fetches (three frames)
FETCH_GAP_MS = 50.0
#: the longest a fetch waits for the frame showing the change before it (ms after it was brought in)
PAINT_WAIT_MS = 250.0
#: how often a fetch waiting for that frame looks again (ms)
POLL_MS = 8.0


def fetch_wait_ms(cards: int, now: float, fetched_at: float, unpainted_since: float | None) -> float:
    """How many ms the next fetch waits (0: it goes now), as the module says. ``cards``: on
    the page; ``fetched_at``: when the fetch before began; ``unpainted_since``: when the change
    brought in last was brought in, if no frame has shown it yet (else None). O(1).

    >>> fetch_wait_ms(100, 10.0, 0.0, 5.0)  # (a small memory: at once)
    0.0
    >>> fetch_wait_ms(2000, 20.0, 0.0, None)  # (the gap since the fetch before)
    30.0
    >>> fetch_wait_ms(2000, 80.0, 0.0, 60.0)  # (its change is not painted yet: looked at again soon)
    8.0
    >>> fetch_wait_ms(2000, 80.0, 0.0, None)  # (painted: it goes)
    0.0
    >>> fetch_wait_ms(2000, 400.0, 0.0, 60.0)  # (no frame for 250 ms: it goes anyway)
    0.0
    """
    if cards <= BIG:
        return 0.0
    wait = max(0.0, fetched_at + FETCH_GAP_MS - now)
    if unpainted_since is not None:
        left = unpainted_since + PAINT_WAIT_MS - now
        if left > 0:
            wait = max(wait, min(POLL_MS, left))
    return wait

"""Resumable computations: generators that pause every so much work.

The engine's long loops are written as *steps* — generators that ``yield`` (nothing)
whenever their :class:`Meter` says a quantum of work has been used up — so a caller
with a frame to keep (the editor in the browser) can run an analysis in slices of a
few milliseconds, and everyone else runs it to the end in one go with :func:`finish`.
The yields never change a result: the same steps run to the same end, however they are
sliced.

>>> def count(n, meter):
...     total = 0
...     for i in range(n):
...         total += i
...         if meter.spend(1):
...             yield
...     return total
>>> finish(count(10, Meter()))
45
>>> steps = count(10, Meter(quantum=4))
>>> advance(steps, lambda: True)  # one slice: out of time at the first pause
(False, None)
>>> finish(steps)
45
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator
from typing import TypeVar

__all__ = ["Meter", "Steps", "advance", "finish"]

T = TypeVar("T")

_NEVER = 1 << 62  # (a Python int on every platform: Pyodide's sys.maxsize is 2**31 - 1)

#: a computation that pauses by yielding None and returns a T
Steps = Generator[None, None, T]


class Meter:
    """Counts units of work (arcs or nodes visited); :meth:`spend` says when to pause.

    ``Meter()`` never pauses; ``Meter(quantum=k)`` pauses at the first checkpoint after
    every ``k`` units. Loops over nodes report their work every ~1,000 units and the cut
    search after every augmenting path, so a pause comes at least that often.

    ``total`` counts every unit ever spent: a computation with a *work budget* (the κ cut
    search, the feedback arc set) stops once ``total`` passes the value :meth:`deadline`
    gave it when it began. Units are counted the same way on every machine, so a budget
    gives the same answer everywhere, however the work is sliced.

    >>> meter = Meter()
    >>> end = meter.deadline(10)
    >>> meter.spend(4), meter.total >= end, meter.spend(6), meter.total >= end
    (False, False, False, True)
    """

    __slots__ = ("quantum", "total", "used")

    def __init__(self, quantum: int = 0) -> None:
        if isinstance(quantum, bool) or not isinstance(quantum, int) or quantum < 0:
            raise ValueError(f"quantum must be an int >= 0, got {quantum!r}")
        self.quantum = quantum or sys.maxsize
        self.used = 0
        self.total = 0

    def deadline(self, budget: int | None) -> int:
        """The value of ``total`` at which a computation given ``budget`` more units stops
        (``None``: never). O(1)."""
        return _NEVER if budget is None else self.total + budget

    def spend(self, units: int) -> bool:
        """Record ``units`` of work; True when a quantum is used up (then pause). O(1)."""
        self.total += units
        self.used += units
        if self.used >= self.quantum:
            self.used = 0
            return True
        return False


def finish(steps: Steps[T]) -> T:
    """Run ``steps`` to the end and return its result."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


def advance(steps: Steps[T], out_of_time: Callable[[], bool]) -> tuple[bool, T | None]:
    """Run ``steps`` until it ends or, after a pause, ``out_of_time()`` is true.

    Returns ``(True, result)`` when it ended, else ``(False, None)`` (call again to go on).
    """
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return True, done.value
        if out_of_time():
            return False, None

"""Python's cycle collector kept out of a live burst's frames (``bend.live.burst_collector``): off
from the first change brought in until the changes have stopped a while, the young objects
collected between frames, given back with one run at the burst's end (not during a gesture);
what a burst leaves stays bounded."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.live.burst_collector import BurstCollector
from bendscope.bend.pointer.collector import GestureCollector


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def cycles(count: int) -> None:
    """``count`` garbage cycles (two containers each): only the collector frees them."""
    for _ in range(count):
        a: list[object] = []
        b: list[object] = [a]
        a.append(b)


def test_off_from_the_first_change_until_the_changes_stopped_a_while() -> None:
    gc.enable()
    c = BurstCollector(quiet_ms=1000.0)
    c.arrived(0.0)
    assert not gc.isenabled() and c.held
    c.arrived(800.0)  # (the burst goes on: its end counts from the last change)
    assert not c.due(1500.0, gesture=False)
    assert c.due(1800.0, gesture=False)
    c.release()
    assert gc.isenabled() and not c.held and c.runs == 1
    assert not c.due(5000.0, gesture=False)  # (nothing held: nothing to give back)


def test_no_automatic_collection_runs_during_a_burst() -> None:
    """The collector's automatic runs — where a frame may be — never happen while it is held;
    the young collections between frames are the only ones (generation 0)."""
    gc.enable()
    gc.collect()
    runs: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        c = BurstCollector(young=5_000)
        c.arrived(0.0)
        for frame in range(60):
            cycles(2_000)  # (a frame's and a fetch's garbage: far over the automatic threshold)
            if frame % 3 == 0:
                c.between()  # (a fetch's or an intake's task)
        assert runs and set(runs) == {0} and len(runs) == c.young_runs
    finally:
        gc.callbacks.remove(seen)


def test_a_gesture_during_the_burst_keeps_collection_off_until_it_ended() -> None:
    gc.enable()
    burst, gesture = BurstCollector(quiet_ms=100.0), GestureCollector()
    burst.arrived(0.0)
    gesture.pressed()  # (off already: the gesture leaves it to the burst)
    assert not gesture.held
    assert not burst.due(500.0, gesture=True)
    assert not gc.isenabled()
    assert burst.due(600.0, gesture=False)
    burst.release()
    assert gc.isenabled()


def test_a_burst_during_a_gesture_leaves_it_to_the_gesture() -> None:
    gc.enable()
    burst, gesture = BurstCollector(quiet_ms=100.0), GestureCollector()
    gesture.pressed()
    burst.arrived(0.0)
    assert not burst.held and not burst.due(500.0, gesture=False)
    assert gesture.frame(gesture=False, resting=True, now_ms=500.0)
    gesture.release()
    assert gc.isenabled()
    burst.arrived(600.0)  # (the burst goes on after the gesture: held again)
    assert burst.held and not gc.isenabled()


def test_a_runtime_with_the_collector_off_keeps_it_off() -> None:
    gc.disable()
    c = BurstCollector(quiet_ms=0.0)
    c.arrived(0.0)
    assert not c.held and not c.due(10.0, gesture=False) and not c.between()
    c.release()
    assert not gc.isenabled()


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=3_000), min_size=1, max_size=30))
def test_what_a_burst_leaves_stays_bounded(per_task: list[int]) -> None:
    """However long a burst and however much garbage each change makes, after each task
    between frames the young objects are within the limit."""
    gc.enable()
    gc.collect()
    c = BurstCollector(young=2_000)
    for k, count in enumerate(per_task):
        c.arrived(float(k))
        cycles(count)
        assert c.waiting() == (gc.get_count()[0] > c.young)  # (a frame asks for a task between frames then)
        c.between()
        assert gc.get_count()[0] <= c.young + 100, (gc.get_count(), count)
        assert not c.waiting()
    assert not gc.isenabled()
    c.release()
    assert gc.isenabled()

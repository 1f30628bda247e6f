"""The live page's fetch pacing during a burst (``bend.live.pacing``): a fetch waits for the gap
and for the frame showing the change before, never longer than the paint wait."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bendscope.bend.live.pacing import BIG, FETCH_GAP_MS, PAINT_WAIT_MS, POLL_MS, fetch_wait_ms

times = st.floats(min_value=0.0, max_value=1e6, allow_nan=False)


@given(st.integers(0, 10_000), times, times, st.none() | times)
def test_a_wait_is_bounded_and_ends(cards, now, fetched_ago, unpainted_ago):
    fetched_at = now - fetched_ago  # (both in the past)
    unpainted_since = None if unpainted_ago is None else now - unpainted_ago
    wait = fetch_wait_ms(cards, now, fetched_at, unpainted_since)
    assert 0.0 <= wait <= max(FETCH_GAP_MS, POLL_MS)
    if cards <= BIG:
        assert wait == 0.0
    gap_over = now >= fetched_at + FETCH_GAP_MS
    if gap_over and (unpainted_since is None or now >= unpainted_since + PAINT_WAIT_MS):
        assert wait == 0.0  # (painted, or no frame came for too long: it goes)
    if cards > BIG and unpainted_since is not None and now < unpainted_since + PAINT_WAIT_MS:
        assert wait > 0.0  # (the change before is not shown yet: the next one waits for it)


def test_a_page_waiting_for_a_frame_that_never_comes_fetches_after_the_paint_wait():
    now, steps = 100.0, 0
    while (wait := fetch_wait_ms(2000, now, 0.0, 100.0)) > 0:
        now += wait
        steps += 1
    assert now == 100.0 + PAINT_WAIT_MS and steps == round(PAINT_WAIT_MS / POLL_MS + 0.5)

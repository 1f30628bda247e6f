"""When the page draws, at rest, the layer a drag's frames copy (app.ahead, app.painter,
static/damage.js) — so that a press's frame does not pay for it.

* The pointer rests on a card (``hovered``) with nothing moving: after :data:`PRIME_DELAY_MS`
  the layer of what that card's drag will not move is drawn ("card"); the press's frame then
  only copies it.
* No card is hovered, the plane rests and the page has no layer of its size yet (a page's first
  drag, or the first after the window changed size): after :data:`WARM_DELAY_MS` the layer is
  drawn once with nothing left out ("warm"). A press that lands before any rest on its card
  draws the layer again for its cards, but into a canvas already made and sized, by code paths
  already run: the first press of a page no longer pays for making the layer's canvas and for
  running its drawing for the first time inside its frame (38–49 ms against 12–18 ms for the
  later presses).
* Anything else: nothing is drawn ahead (a pointer passing over cards draws nothing; each new
  card waits its delay again).
"""

from __future__ import annotations

PRIME_DELAY_MS = 40  # the pointer rests this long on a card before its drag's layer is drawn
WARM_DELAY_MS = 120  # the plane rests this long, no card hovered, before a first layer is drawn


def ahead_of_press(hovered: bool, resting: bool, layer_ready: bool) -> tuple[float, str] | None:
    """What to draw ahead after a painted frame, and after how many ms: (delay, "card") for the
    hovered card's drag's layer, (delay, "warm") for a first layer of the page's size, or None.
    ``hovered``: a card is under the pointer at rest (the caller knows its drag's cards);
    ``resting``: nothing moves, no gesture, the layout is neither frozen nor loading, motion is
    on (frames of a drag are drawn over a layer); ``layer_ready``: the page holds a layer of the
    canvas's size, drawn for its plan. O(1)

    >>> ahead_of_press(hovered=True, resting=True, layer_ready=False)
    (40, 'card')
    >>> ahead_of_press(hovered=False, resting=True, layer_ready=False)
    (120, 'warm')
    >>> ahead_of_press(hovered=False, resting=True, layer_ready=True) is None  # (made already)
    True
    >>> ahead_of_press(hovered=False, resting=False, layer_ready=False) is None  # (moving: later)
    True
    """
    if hovered:
        return PRIME_DELAY_MS, "card"
    if resting and not layer_ready:
        return WARM_DELAY_MS, "warm"
    return None

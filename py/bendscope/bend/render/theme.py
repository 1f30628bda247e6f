"""Colours and sizes of the themes (one place, used by the scene, the painter and the legend).

The module-level names hold the active palette (light by default); :func:`use` switches.
"""

from __future__ import annotations

BACKGROUND = "#f6f7f9"
GRID_DOT = "#d3d8e0"
GRID_SPACING = 24.0

CARD_FILL = "#ffffff"
CARD_BORDER = "#c5ccd6"
CARD_RADIUS = 8.0
CARD_SHADOW = "rgba(20,30,50,0.08)"
GREEK_BAR = "#c9cfd8"
HEADER_FILL = {"normal": "#eef1f5", "stargate": "#ece6ff"}
HEADER_TEXT = {"normal": "#7a8494", "stargate": "#6a4fd8"}
STARGATE_BORDER = "#8b6cf0"
#: a pinned card's mark: a small quiet dot (not red: it is a state, not an error)
PIN_MARK = "#a3abb8"
TEXT = {"h1": "#111827", "h2": "#1f2937", "body": "#27303d", "bullet": "#27303d", "quote": "#5b6473", "code": "#0f4c5c"}
PLACEHOLDER_TEXT = "#9aa3b1"
#: inline markup in card text: links and code spans have their own colour
RUN_COLOR = {"link": "#1d5fd6", "code": "#0f4c5c"}
QUOTE_BAR = "#c2c8d2"
CODE_FILL = "#f1f4f8"
SELECTION = "#2f6fed"
#: Gestures: the connection handle, the rubber band, a connection being dragged and its
#: κ preview (in the κ colour when the edge would change the topology).
HANDLE_RADIUS = 6.0  # screen px
HANDLE_FILL = "#ffffff"
BRUSH_FILL = "rgba(47,111,237,0.08)"
BRUSH_STROKE = "rgba(47,111,237,0.7)"
LINK_COLOR = "#5b6473"
LINK_CHANGE = "#0077a8"
LINK_FILL = "#ffffff"
LINK_FONT = "600 12px Inter"
DIM_FILL = "rgba(246,247,249,0.78)"  # over the cards a search leaves out
HEADER_FONT = "600 8px Inter"

#: Edge colours by kind; causal and temporal are the directed kinds (arrowheads, κ).
EDGE_COLOR = {
    "causal": "#e0552f",
    "temporal": "#2f6fed",
    "context": "#9aa3b1",
    "associative": "#17a398",
    "user": "#b04fd9",
    # the agent memory's kinds (Graphonomous): not directed for κ
    "related": "#7d8797",
    "contradicts": "#d1345b",
    "supports": "#3f9a3f",
    "derived_from": "#b07a1f",
}
EDGE_SELECTED = "#111827"
LABEL_FONT = "500 10px Inter"
LABEL_FILL = "#ffffff"
LABEL_TEXT = "#3b4452"
#: An edge's polarity, a sign in a small pill beside its arrowhead: + green, − red.
POLARITY_FONT = "700 11px Inter"
POLARITY_SIZE = 13.0
POLARITY_COLOR = {"+": "#1a7f37", "-": "#c62828"}

#: κ views. The spec's halo fills (0.06–0.10 alpha) are tuned for a dark canvas; on
#: this light background they are strengthened and given a matching outline.
HALO_FILL = {1: "rgba(0,200,160,0.13)", 2: "rgba(0,160,230,0.14)", 3: "rgba(150,80,240,0.14)"}
HALO_STROKE = {1: "rgba(0,160,128,0.45)", 2: "rgba(0,128,200,0.45)", 3: "rgba(120,60,210,0.45)"}
HALO_PAD = 30.0  # around each member's card
HALO_BAND = 18.0  # half-width of the bands joining members along their arcs
HALO_RADIUS = 16.0
BADGE_FONT = "700 10px 'JetBrains Mono'"
BADGE_FILL = "rgba(0,0,0,0.6)"
BADGE_TEXT = "#ffffff"
#: Fault lines: dashed [6, 4]; the spec's rgba(0,255,200,0.6) is nearly invisible on
#: white, so the light theme uses a deeper teal at higher opacity.
FAULT_COLOR = "rgba(0,170,140,0.95)"
FAULT_DASH = (6.0, 4.0)
PULSE_BORDER = "0,170,140"
#: Loops on the canvas: a loop's marker (a circular arrow round its label, "R1", "B2") and
#: its edges while it is shown are drawn in its class's colour (R reinforcing, B balancing,
#: ? an edge without polarity), as the Loops panel's class marks are.
LOOP_COLOR = {"R": "#1a7f37", "B": "#c62828", "?": "#5b6473"}
LOOP_FONT = "700 10px Inter"
MARKER_FILL = "rgba(255,255,255,0.92)"
#: The name tags of a shown loop's cards where their text is bars or boxes (zoomed out): drawn
#: at this size on the screen whatever the zoom (``TAG_FONT``'s size in screen px), the height
#: and the padding each side in screen px too.
TAG_FONT = "600 13px Inter"
TAG_HEIGHT = 20.0
TAG_PAD = 6.0
#: the longest name a tag shows (longer ones end with "…")
TAG_CHARS = 32
#: the most cards of a loop that get a tag (the first in the loop's order): more would cover
#: the screen, and placing each clear of the others is quadratic
TAG_MAX = 100
#: The edges whose removal breaks every loop (the minimum feedback edge set), when shown.
CUT_COLOR = "#d6198a"

#: HUD mode colours. The spec's #00ff88 / #00ccff are unreadable as text on a light
#: pill, so the pills use darker shades of the same hues.
MODE_RETRIEVAL = "#00874a"
MODE_DELIBERATION = "#0077a8"

# ---------------------------------------------------------------- palettes
#: the names a palette sets (sizes and fonts stay the same in every theme)
COLOURS = (
    "BACKGROUND", "GRID_DOT", "CARD_FILL", "CARD_BORDER", "CARD_SHADOW", "GREEK_BAR", "HEADER_FILL", "HEADER_TEXT",
    "STARGATE_BORDER", "PIN_MARK", "TEXT", "PLACEHOLDER_TEXT", "RUN_COLOR", "QUOTE_BAR", "CODE_FILL", "SELECTION",
    "HANDLE_FILL", "BRUSH_FILL", "BRUSH_STROKE", "LINK_COLOR", "LINK_CHANGE", "LINK_FILL", "DIM_FILL", "EDGE_COLOR",
    "EDGE_SELECTED", "LABEL_FILL", "LABEL_TEXT", "POLARITY_COLOR", "HALO_FILL", "HALO_STROKE", "BADGE_FILL",
    "BADGE_TEXT", "FAULT_COLOR", "PULSE_BORDER", "MODE_RETRIEVAL", "MODE_DELIBERATION", "LOOP_COLOR", "MARKER_FILL",
    "CUT_COLOR",
)  # fmt: skip
LIGHT: dict[str, object] = {name: globals()[name] for name in COLOURS}
#: The dark canvas the spec's κ colours were chosen for: its halo fills, fault-line colour
#: and HUD mode colours are used exactly (rgba(0,255,200,.06) / rgba(0,200,255,.08) /
#: rgba(180,100,255,.10); rgba(0,255,200,.6); #00ff88 and #00ccff).
DARK: dict[str, object] = {
    **LIGHT,
    "BACKGROUND": "#0e1117",
    "GRID_DOT": "#232a36",
    "CARD_FILL": "#171c25",
    "CARD_BORDER": "#313a4a",
    "CARD_SHADOW": "rgba(0,0,0,0.35)",
    "GREEK_BAR": "#3a4352",
    "HEADER_FILL": {"normal": "#1f2530", "stargate": "#2a2342"},
    "HEADER_TEXT": {"normal": "#8b95a7", "stargate": "#b9a6ff"},
    "STARGATE_BORDER": "#8b6cf0",
    "PIN_MARK": "#646b78",
    "TEXT": {
        "h1": "#f2f4f8",
        "h2": "#e6e9ef",
        "body": "#d2d7e0",
        "bullet": "#d2d7e0",
        "quote": "#9aa3b1",
        "code": "#7fdbca",
    },
    "PLACEHOLDER_TEXT": "#6b7486",
    "RUN_COLOR": {"link": "#6ea8ff", "code": "#7fdbca"},
    "QUOTE_BAR": "#3a4352",
    "CODE_FILL": "#202735",
    "SELECTION": "#4d8dff",
    "HANDLE_FILL": "#171c25",
    "BRUSH_FILL": "rgba(77,141,255,0.12)",
    "BRUSH_STROKE": "rgba(77,141,255,0.8)",
    "LINK_COLOR": "#9aa3b1",
    "LINK_CHANGE": "#00ccff",
    "LINK_FILL": "#171c25",
    "DIM_FILL": "rgba(14,17,23,0.8)",
    "EDGE_COLOR": {
        "causal": "#ff7a50",
        "temporal": "#5b9bff",
        "context": "#7d8797",
        "associative": "#2cc4b5",
        "user": "#cf7bf0",
        "related": "#8d97a7",
        "contradicts": "#ff5c85",
        "supports": "#5cc45c",
        "derived_from": "#d9a441",
    },
    "EDGE_SELECTED": "#ffffff",
    "LABEL_FILL": "#171c25",
    "LABEL_TEXT": "#c9d0db",
    "POLARITY_COLOR": {"+": "#5cd65c", "-": "#ff6b6b"},
    "HALO_FILL": {1: "rgba(0,255,200,0.06)", 2: "rgba(0,200,255,0.08)", 3: "rgba(180,100,255,0.10)"},
    "HALO_STROKE": {1: "rgba(0,255,200,0.32)", 2: "rgba(0,200,255,0.36)", 3: "rgba(180,100,255,0.42)"},
    "BADGE_FILL": "rgba(0,255,200,0.16)",
    "BADGE_TEXT": "#e6fff9",
    "FAULT_COLOR": "rgba(0,255,200,0.6)",
    "PULSE_BORDER": "0,255,200",
    "LOOP_COLOR": {"R": "#5cd65c", "B": "#ff6b6b", "?": "#9aa3b1"},
    "MARKER_FILL": "rgba(23,28,37,0.92)",
    "CUT_COLOR": "#ff4fb8",
    "MODE_RETRIEVAL": "#00ff88",
    "MODE_DELIBERATION": "#00ccff",
}
PALETTES = {"light": LIGHT, "dark": DARK}


def over(color: str, background: str) -> str:
    """``color`` (``rgba(r,g,b,a)`` or ``#rrggbb``) composited over the opaque ``background``
    (``#rrggbb``), as an opaque ``#rrggbb``: overlapping boxes of it look like their union.

    >>> over("rgba(0,200,160,0.5)", "#ffffff"), over("#123456", "#ffffff")
    ('#80e4d0', '#123456')
    """
    if not color.startswith("rgba("):
        return color
    *rgb, alpha = (float(v) for v in color[5:-1].split(","))
    base = [int(background[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = (round(c * alpha + b * (1 - alpha)) for c, b in zip(rgb, base, strict=True))
    return "#" + "".join(f"{v:02x}" for v in mixed)


NAME = "light"


def use(name: str) -> None:
    """Switch every colour above to the ``name`` palette ("light" or "dark"); the scene
    and painter read them at each frame. Raises ValueError for another name.

    >>> from bendscope.bend.render import theme
    >>> theme.use("dark"); theme.BACKGROUND, theme.FAULT_COLOR
    ('#0e1117', 'rgba(0,255,200,0.6)')
    >>> theme.use("light"); theme.BACKGROUND
    '#f6f7f9'
    """
    global NAME
    palette = PALETTES.get(name)
    if palette is None:
        raise ValueError(f"unknown theme {name!r}; use light or dark")
    globals().update(palette)
    NAME = name

"""Colours and sizes of the light theme (one place, used by the scene and the legend)."""

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
PINNED_MARK = "#d2453b"
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

#: HUD mode colours. The spec's #00ff88 / #00ccff are unreadable as text on a light
#: pill, so the pills use darker shades of the same hues.
MODE_RETRIEVAL = "#00874a"
MODE_DELIBERATION = "#0077a8"

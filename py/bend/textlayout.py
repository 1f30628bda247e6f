"""Card text: markdown-ish lines wrapped to the card width, and the card size.

The width of a string comes from an injected ``measure(text, font) -> px`` (the
canvas in the browser; ``approx_measure`` in tests), so this stays DOM-free.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Measure = Callable[[str, str], float]

SANS = "Inter"
MONO = "JetBrains Mono"
FONTS = {
    "h1": f"700 15px {SANS}",
    "h2": f"600 13px {SANS}",
    "body": f"400 12px {SANS}",
    "bullet": f"400 12px {SANS}",
    "quote": f"400 12px {SANS}",
    "code": f"400 11px {MONO}",
}
LINE_HEIGHT = {"h1": 20.0, "h2": 18.0, "body": 16.0, "bullet": 16.0, "quote": 16.0, "code": 15.0}
INDENT = {"bullet": 12.0, "quote": 10.0, "code": 6.0}
MIN_WIDTH = 140.0
MAX_WIDTH = 260.0
PAD_X = 10.0
PAD_Y = 8.0
HEADER = 14.0
MAX_LINES = 14
PLACEHOLDER = "Double-click to edit"
#: no glyph of the card fonts is narrower: a longer string cannot fit, so it is not measured whole
MIN_CHAR_PX = 1.0


@dataclass(frozen=True, slots=True)
class TextLine:
    """One wrapped line: ``x``/``y`` are offsets from the card's top-left (y = baseline)."""

    text: str
    style: str
    x: float
    y: float
    marker: str = ""  # "•", "1." …: drawn left of a list line


@dataclass(frozen=True, slots=True)
class CardLayout:
    width: float
    height: float
    lines: tuple[TextLine, ...]


def approx_measure(text: str, font: str) -> float:
    """A font-free stand-in for canvas measureText (tests, CLI)."""
    size = float(font.split("px")[0].split()[-1])
    return len(text) * size * (0.6 if MONO in font else 0.55)


def parse_lines(text: str) -> list[tuple[str, str, str]]:
    """Split ``text`` into (style, text, marker) source lines."""
    out: list[tuple[str, str, str]] = []
    in_code = False
    for raw in text.split("\n"):
        line = raw.rstrip()
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code or raw.startswith("    "):
            out.append(("code", line[4:] if raw.startswith("    ") and not in_code else line, ""))
        elif line.startswith("# "):
            out.append(("h1", line[2:].strip(), ""))
        elif line.startswith(("## ", "### ", "#### ")):
            out.append(("h2", line.split(" ", 1)[1].strip(), ""))
        elif line.lstrip().startswith(("- ", "* ", "+ ")):
            out.append(("bullet", line.lstrip()[2:].strip(), "•"))
        elif line.startswith(">"):
            out.append(("quote", line[1:].strip(), ""))
        else:
            head, _, rest = line.partition(". ")
            if head.isdigit() and rest and len(head) <= 3:
                out.append(("bullet", rest.strip(), f"{head}."))
            else:
                out.append(("body", line.replace("**", "").replace("__", ""), ""))
    return out


def wrap(text: str, font: str, width: float, measure: Measure, max_lines: int | None = None) -> list[str]:
    """Greedy word wrap; words wider than ``width`` are broken by characters.

    Stops once ``max_lines`` lines are made (a card shows at most MAX_LINES), so the
    work is bounded by what is shown, not by the length of ``text``: a 40,000-character
    word costs O(max_lines · log(line length)) measurements.

    >>> wrap("aaaa bb", "400 10px Inter", 30, approx_measure)
    ['aaaa', 'bb']
    >>> wrap("abcdefghij", "400 10px Inter", 17, approx_measure)
    ['abc', 'def', 'ghi', 'j']
    """
    if not text:
        return [""]
    limit = max_lines if max_lines is not None else len(text) + 1
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        if len(lines) >= limit:
            break
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= width / MIN_CHAR_PX and measure(candidate, font) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = ""
        while len(lines) < limit and len(word) > 1:
            cut = _fitting_prefix(word, font, width, measure)
            if cut == len(word):
                break
            lines.append(word[:cut])
            word = word[cut:]
        current = word
    if len(lines) < limit:
        lines.append(current)
    return lines[:limit]


def _fitting_prefix(word: str, font: str, width: float, measure: Measure) -> int:
    """The longest prefix length (≥ 1) of ``word`` that fits ``width``, by galloping then
    bisection: O(log k) measurements of strings of at most 2k characters, k the answer
    (so a 40,000-character word is never measured whole)."""
    n = len(word)
    lo, hi = 1, 2  # word[:lo] is taken even if too wide: at least one character per line
    while hi <= n and measure(word[:hi], font) <= width:
        lo, hi = hi, hi * 2
    if hi > n:  # word[:lo] fits with lo > n / 2: the word is short, measuring it whole is cheap
        if lo == n or measure(word, font) <= width:
            return n
        hi = n
    while hi - lo > 1:  # word[:lo] fits (or lo == 1); word[:hi] does not
        mid = (lo + hi) // 2
        if measure(word[:mid], font) <= width:
            lo = mid
        else:
            hi = mid
    return lo


def layout_card(text: str, measure: Measure) -> CardLayout:
    """Lay out a card's text; returns its size and positioned lines.

    O(len(text)) to split the lines, plus measurements bounded by MAX_LINES (not by
    the text's length)."""
    source = parse_lines(text) if text.strip() else [("body", PLACEHOLDER, "")]
    inner_max = MAX_WIDTH - 2 * PAD_X
    wrapped: list[tuple[str, str, str, float]] = []
    widest = 0.0
    for style, content, marker in source:
        if len(wrapped) > MAX_LINES:
            break  # more than fits: the rest is not shown, so not laid out
        indent = INDENT.get(style, 0.0)
        font = FONTS[style]
        room = MAX_LINES + 1 - len(wrapped)
        for i, piece in enumerate(wrap(content, font, inner_max - indent, measure, max_lines=room)):
            wrapped.append((style, piece, marker if i == 0 else "", indent))
            widest = max(widest, indent + measure(piece, font))
    if len(wrapped) > MAX_LINES:
        style, piece, marker, indent = wrapped[MAX_LINES - 1]
        wrapped = [*wrapped[: MAX_LINES - 1], (style, piece.rstrip() + " …", marker, indent)]
    width = min(MAX_WIDTH, max(MIN_WIDTH, widest + 2 * PAD_X))
    y = HEADER + PAD_Y
    lines = []
    for style, piece, marker, indent in wrapped:
        height = LINE_HEIGHT[style]
        lines.append(TextLine(piece, style, PAD_X + indent, y + height * 0.75, marker))
        y += height
    return CardLayout(round(width, 2), round(y + PAD_Y, 2), tuple(lines))

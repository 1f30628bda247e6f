"""Card text: markdown-ish lines wrapped to the card width, and the card size.

The width of a string comes from an injected ``measure(text, font) -> px`` (the
canvas in the browser; ``approx_measure`` in tests), so this stays DOM-free.
Inline markup — ``**bold**``, ``*italic*``, `` `code` ``, ``[label](url)`` — becomes
styled runs of text (a link shows its label, underlined); it is never HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bendscope.bend.render import theme

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
#: an empty card's words where the main pointer is a finger
TOUCH_PLACEHOLDER = "Double-tap to edit"
#: no glyph of the card fonts is narrower: a longer string cannot fit, so it is not measured whole
MIN_CHAR_PX = 1.0


@dataclass(frozen=True, slots=True)
class Run:
    """A styled piece of a line: ``dx`` from the line's x, ``kind`` "" (plain), "b", "i",
    "bi", "code" or "link"; ``width`` as measured."""

    text: str
    kind: str
    dx: float
    width: float


@dataclass(frozen=True, slots=True)
class TextLine:
    """One wrapped line: ``x``/``y`` are offsets from the card's top-left (y = baseline).
    ``runs`` is empty for a line without inline markup (``text`` in the line's style)."""

    text: str
    style: str
    x: float
    y: float
    marker: str = ""  # "•", "1." …: drawn left of a list line
    runs: tuple[Run, ...] = ()


#: inline markup, first match wins at each position: code, link, bold, italic. Every span
#: is bounded (SPAN characters), so a line is scanned in O(SPAN · length), never quadratic.
SPAN = 200
_INLINE = re.compile(
    r"`(?P<code>[^`]{1,200})`"
    r"|\[(?P<label>[^\]\n]{1,200})\]\((?P<url>[^)\s]{1,500})\)"
    r"|\*\*(?P<b1>[^*\s](?:.{0,200}?[^*\s])?)\*\*|__(?P<b2>[^_\s](?:.{0,200}?[^_\s])?)__"
    r"|\*(?P<i1>[^*\s](?:[^*]{0,200}?[^*\s])?)\*|(?<![\w])_(?P<i2>[^_\s](?:[^_]{0,200}?[^_\s])?)_(?![\w])"
)
#: characters of one source line that can show at all (MAX_LINES lines of MAX_WIDTH px of the
#: narrowest glyphs); inline markup is parsed in this much only
SHOWN_CHARS = 4000


def parse_inline(text: str) -> list[tuple[str, str]]:
    """Split a line into (text, kind) segments; unmatched markers stay as they are.
    Bold text may hold italics ("bi"). O(len(text)).

    >>> parse_inline("a **bold** and *it* `x()` [site](https://e.org) snake_case")
    ... # doctest: +NORMALIZE_WHITESPACE
    [('a ', ''), ('bold', 'b'), (' and ', ''), ('it', 'i'), (' ', ''), ('x()', 'code'), (' ', ''),
     ('site', 'link'), (' snake_case', '')]
    >>> parse_inline("2 * 3 * 4 and **")
    [('2 * 3 * 4 and **', '')]
    """
    out: list[tuple[str, str]] = []
    at = 0
    for m in _INLINE.finditer(text):
        if m.start() > at:
            out.append((text[at : m.start()], ""))
        if m["code"] is not None:
            out.append((m["code"], "code"))
        elif m["label"] is not None:
            out.append((m["label"], "link"))
        elif m["b1"] is not None or m["b2"] is not None:
            inner = m["b1"] if m["b1"] is not None else m["b2"]
            out.extend((t, {"": "b", "i": "bi"}.get(k, k)) for t, k in parse_inline(inner))
        else:
            out.append((m["i1"] if m["i1"] is not None else m["i2"], "i"))
        at = m.end()
    if at < len(text):
        out.append((text[at:], ""))
    return [(t, k) for t, k in out if t] or [("", "")]


def run_font(style: str, kind: str) -> str:
    """The font of a run of ``kind`` in a line of ``style``.

    >>> run_font("body", "b"), run_font("h2", "i"), run_font("body", "code")
    ('700 12px Inter', 'italic 600 13px Inter', '400 11px JetBrains Mono')
    """
    base = FONTS[style]
    if kind == "code":
        return FONTS["code"]
    if kind in ("b", "bi"):
        base = "700 " + base.split(" ", 1)[1]
    return "italic " + base if kind in ("i", "bi") else base


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
                out.append(("body", line, ""))
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


def wrap_runs(
    segments: list[tuple[str, str]], style: str, width: float, measure: Measure, max_lines: int
) -> list[list[tuple[str, str]]]:
    """Greedy word wrap of styled segments, each piece measured in its own font; stops
    after ``max_lines`` lines (long words are cut as in :func:`wrap`)."""
    lines: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    used = 0.0
    tokens = [(word, kind) for text, kind in segments for word in re.split(r"( +)", text) if word]
    for word, kind in tokens:
        if len(lines) >= max_lines:
            break
        font = run_font(style, kind)
        if word.startswith(" "):
            if current:
                current.append((word, kind))
                used += measure(word, font)
            continue
        size = measure(word, font) if len(word) <= width / MIN_CHAR_PX else width + 1
        if used + size <= width:
            current.append((word, kind))
            used += size
            continue
        if current:
            lines.append(_trim(current))
            current, used = [], 0.0
        while (
            len(lines) < max_lines
            and len(word) > 1
            and (len(word) > width / MIN_CHAR_PX or measure(word, font) > width)
        ):
            cut = _fitting_prefix(word, font, width, measure)
            lines.append([(word[:cut], kind)])
            word = word[cut:]
        current, used = [(word, kind)], measure(word, font)
    if len(lines) < max_lines:
        lines.append(_trim(current))
    return lines[:max_lines]


def _trim(pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    while pieces and pieces[-1][0].startswith(" "):
        pieces = pieces[:-1]
    return pieces


def layout_card(text: str, measure: Measure, placeholder: str = PLACEHOLDER) -> CardLayout:
    """Lay out a card's text (``placeholder`` stands for an empty one); returns its size and
    positioned lines.

    O(len(text)) to split the lines, plus measurements bounded by MAX_LINES (not by
    the text's length)."""
    source = parse_lines(text) if text.strip() else [("body", placeholder, "")]
    inner_max = MAX_WIDTH - 2 * PAD_X
    wrapped: list[tuple[str, str, str, float, tuple[Run, ...]]] = []
    widest = 0.0
    for style, content, marker in source:
        if len(wrapped) > MAX_LINES:
            break  # more than fits: the rest is not shown, so not laid out
        indent = INDENT.get(style, 0.0)
        font = FONTS[style]
        room = MAX_LINES + 1 - len(wrapped)
        shown = content[:SHOWN_CHARS]
        marked = style != "code" and any(c in shown for c in "*_`[")
        segments = parse_inline(shown) if marked else [(content, "")]
        if len(segments) == 1 and segments[0][1] == "":
            for i, piece in enumerate(wrap(segments[0][0], font, inner_max - indent, measure, max_lines=room)):
                wrapped.append((style, piece, marker if i == 0 else "", indent, ()))
                widest = max(widest, indent + measure(piece, font))
            continue
        for i, pieces in enumerate(wrap_runs(segments, style, inner_max - indent, measure, room)):
            made: list[Run] = []
            dx = 0.0
            for text_piece, kind in pieces:
                w = measure(text_piece, run_font(style, kind))
                made.append(Run(text_piece, kind, round(dx, 2), round(w, 2)))
                dx += w
            plain = "".join(t for t, _ in pieces)
            wrapped.append((style, plain, marker if i == 0 else "", indent, tuple(made)))
            widest = max(widest, indent + dx)
    if len(wrapped) > MAX_LINES:
        style, piece, marker, indent, runs = wrapped[MAX_LINES - 1]
        if runs:
            last = runs[-1]
            runs = (*runs[:-1], Run(last.text.rstrip() + " …", last.kind, last.dx, last.width))
        wrapped = [*wrapped[: MAX_LINES - 1], (style, piece.rstrip() + " …", marker, indent, runs)]
    width = min(MAX_WIDTH, max(MIN_WIDTH, widest + 2 * PAD_X))
    y = HEADER + PAD_Y
    lines = []
    for style, piece, marker, indent, runs in wrapped:
        height = LINE_HEIGHT[style]
        lines.append(TextLine(piece, style, PAD_X + indent, y + height * 0.75, marker, runs))
        y += height
    return CardLayout(round(width, 2), round(y + PAD_Y, 2), tuple(lines))


def first_line(text: str, limit: int) -> str:
    """A card's name wherever one is shown: its first line of text, markdown's marks taken
    off, cut to ``limit`` characters with "…" ('' for a card without text).

    >>> first_line("# Customer retention\\nsee notes", 28), first_line("   ", 28), first_line("x" * 40, 10)
    ('Customer retention', '', 'xxxxxxxxx…')
    """
    first = text.strip().split("\n", 1)[0].lstrip("#>-*+ ").strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"


def tag_name(text: str) -> str:
    """A card's name on its tag: :func:`first_line` cut to ``theme.TAG_CHARS`` characters.

    >>> tag_name("# Customer retention\\nsee notes"), tag_name("   "), tag_name("x" * 40)[-3:]
    ('Customer retention', '', 'xx…')
    """
    return first_line(text, theme.TAG_CHARS)


def js_number(value: float) -> str:
    """``value`` as JavaScript writes a number (no ".0" on a whole one).

    >>> js_number(52.0), js_number(43.333333333333336)
    ('52', '43.333333333333336')
    """
    return str(int(value)) if value == int(value) else repr(value)

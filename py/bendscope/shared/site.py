"""What of the editor's static site is served — by the memory's HTTP server and by the
development server alike: the page, its configuration, its scripts and the editor's Python;
never a hidden file, the repository's tooling, or the agent memory itself (the page never
loads it)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["NEVER_SERVED", "SERVED_TOP", "SITE", "site_file"]

#: the editor's static site: the repository root (index.html, pyscript.toml, static/, py/)
SITE = Path(__file__).resolve().parents[3]
#: what of the site is served: the page, its configuration, its scripts and the editor's Python
SERVED_TOP = frozenset({"index.html", "pyscript.toml", "static", "py"})
#: never served, even inside what is: the agent memory itself (the page never loads it)
NEVER_SERVED = ("py/bendscope/memory",)


def site_file(site: Path, path: str) -> Path | None:
    """The file of the site a URL path names, or None when it is not one that is served.

    >>> site_file(SITE, "/") == SITE / "index.html"
    True
    >>> [site_file(SITE, p) for p in ("/Makefile", "/../etc/passwd", "/.git/config", "/py/bendscope/memory/cli.py")]
    [None, None, None, None]
    """
    relative = "index.html" if path in ("", "/") else path.lstrip("/")
    if not _servable(relative.split("/")):
        return None
    try:
        root = site.resolve()
        candidate = (root / relative).resolve()
        if not candidate.is_relative_to(root) or not _servable(list(candidate.relative_to(root).parts)):
            return None  # (a link to what is never served)
        return candidate if candidate.is_file() else None
    except (OSError, ValueError):  # (a NUL byte, a name too long, a loop of links)
        return None


def _servable(parts: list[str]) -> bool:
    """Whether a site-relative path is one that may be served: under a served top, no
    empty, dot or hidden part, nothing never served (letter case aside: some file systems
    ignore it), no backslash."""
    if not parts or parts[0] not in SERVED_TOP:
        return False
    if any(p in ("", ".", "..") or p.startswith(".") or "\\" in p for p in parts):
        return False
    folded = "/".join(parts).casefold()
    return not any(folded == never or folded.startswith(never + "/") for never in NEVER_SERVED)

"""The names of the files the page downloads: the graph's own name, made safe for a file name
(``safe_stem``), else ``bendscope``.

A graph's name is its top plane's name when someone gave it one (not the default "Main"),
else the name of the file it was imported from (kept with the document in memory: a graph
read back from the autosave has only its plane's name). A file of one plane (CSV, GraphML,
DOT, Mermaid, an image) of a plane inside a stargate is named after that plane.

>>> from bendscope.bend.model.elements import Document, Plane
>>> doc = Document([Plane("p", "Main")], "p")
>>> file_name(doc, ".json")
'bendscope.json'
>>> remember_source(doc, "Climate model (v2).graphml")
>>> file_name(doc, ".json"), file_name(doc, ".svg", plane=True)
('Climate model (v2).json', 'Climate model (v2).svg')
"""

from __future__ import annotations

import re
import unicodedata
import weakref

from bendscope.bend.model.elements import Document

FALLBACK = "bendscope"
#: the top plane's name when nobody named it (``Plane``'s default)
DEFAULT_PLANE_NAME = "Main"
#: the longest stem written (characters): file systems allow 255 bytes, a download folder's
#: listing shows far fewer
MAX_STEM = 80
#: names Windows keeps for devices (with any extension)
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{k}" for k in range(1, 10)), *(f"lpt{k}" for k in range(1, 10))}
#: what no file name may hold on some system: path separators, Windows' reserved characters
_UNSAFE = re.compile(r'[\\/:*?"<>|]+')
_SPACES = re.compile(r"\s+")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,8}$")

_sources: weakref.WeakKeyDictionary[Document, str] = weakref.WeakKeyDictionary()


def safe_stem(text: str) -> str:
    """``text`` as a file name without extension, safe on every common system: control
    characters dropped, path separators and ``\\ / : * ? " < > |`` made a dash, runs of white
    space one space, no leading or trailing dots or spaces, at most MAX_STEM characters, never
    a device name (CON, NUL, COM1, …); "" when nothing is left. O(len(text)).

    >>> safe_stem("  Q3 plan: costs/benefits?  ")
    'Q3 plan- costs-benefits-'
    >>> safe_stem("../../etc/passwd"), safe_stem("CON"), safe_stem("\\u0000\\n\\t"), safe_stem("Ökonomie — Kreislauf")
    ('-..-etc-passwd', '', '', 'Ökonomie — Kreislauf')
    """
    text = unicodedata.normalize("NFC", text)
    text = "".join(" " if ch.isspace() else ch for ch in text if ch.isspace() or unicodedata.category(ch)[0] != "C")
    text = _SPACES.sub(" ", _UNSAFE.sub("-", text)).strip(" .")
    text = text[:MAX_STEM].rstrip(" .")
    if text.split(".")[0].strip().lower() in _RESERVED:
        return ""
    return text


def remember_source(doc: Document, file_name: str) -> None:
    """``doc`` was read from a file called ``file_name``: its stem names the files made from it."""
    stem = safe_stem(_EXTENSION.sub("", file_name.replace("\\", "/").rsplit("/", 1)[-1]))
    if stem:
        _sources[doc] = stem
    else:
        _sources.pop(doc, None)


def graph_name(doc: Document, plane: bool = False) -> str:
    """The safe stem of ``doc``'s files ("" when it has no name): with ``plane``, a file of the
    active plane alone — a plane inside a stargate gives its own name. O(1)."""
    if plane and doc.active_plane_id != doc.root_plane_id:
        stem = safe_stem(doc.planes[doc.active_plane_id].name)
        if stem:
            return stem
    root = doc.planes[doc.root_plane_id].name
    if root != DEFAULT_PLANE_NAME:
        stem = safe_stem(root)
        if stem:
            return stem
    return _sources.get(doc, "")


def file_name(doc: Document, extension: str, plane: bool = False) -> str:
    """The name of a downloaded file of ``doc`` with ``extension`` (".json", ".png"):
    ``graph_name``, else FALLBACK."""
    return f"{graph_name(doc, plane) or FALLBACK}{extension}"

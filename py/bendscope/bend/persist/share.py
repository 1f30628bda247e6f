"""A graph in a link: the document, compressed (raw deflate) and base64url-encoded, in the
URL's fragment (``#graph=1.<data>``). A fragment never leaves the browser — it is not sent
to the server that serves the page — so the graph goes only where the link goes.

Reading a link is as careful as reading a file: a damaged or foreign fragment, or one that
would inflate past the document size limit, is refused with a message; the document it
holds then goes through the usual validation (``Editor.load``).

>>> text = '{"nodes": ["rain", "flood"], "edges": [{"source": "rain", "target": "flood"}]}'
>>> fragment = share_fragment(text)
>>> fragment.startswith("graph=1.") and len(fragment) < 90
True
>>> read_fragment("#" + fragment) == '{"nodes":["rain","flood"],"edges":[{"source":"rain","target":"flood"}]}'
True
>>> read_fragment("#graph=1.@@@")
Traceback (most recent call last):
    ...
bendscope.shared.docformat.DocumentError: the link is damaged (its graph is not base64url): was it cut short?
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib

from bendscope.shared.docformat import MAX_BYTES, DocumentError

PREFIX = "graph=1."
#: the longest fragment a link carries here: browsers take far longer URLs (Chromium 2 MB),
#: but mail, chat and QR tools cut them, and 64 KB of compressed JSON is a sizeable graph
MAX_LINK = 65_536
_ALPHABET = re.compile(r"^[A-Za-z0-9_-]*$")


class LinkTooLong(ValueError):
    """The graph does not fit in a link; ``size``: the fragment's length it would need."""

    def __init__(self, size: int) -> None:
        super().__init__(
            f"This graph is too large for a link: {size / 1024:,.0f} KB compressed, and a link carries "
            f"{MAX_LINK // 1024} KB. Export… saves it as a file to send instead."
        )
        self.size = size


def _compact(text: str) -> str:
    """The document in its shortest JSON form (no indentation), same content."""
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))
    except ValueError:
        return text


def share_fragment(text: str) -> str:
    """The fragment (without ``#``) carrying the document ``text``; LinkTooLong past MAX_LINK.
    O(len(text))."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(_compact(text).encode("utf-8")) + packer.flush()
    fragment = PREFIX + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")
    if len(fragment) > MAX_LINK:
        raise LinkTooLong(len(fragment))
    return fragment


def has_graph(fragment: str) -> bool:
    """Whether a URL fragment (with or without ``#``) is meant to carry a graph: any ``graph=``
    fragment, so that one of an unknown version or with nothing in it is refused with a
    message (``read_fragment``) rather than ignored.

    >>> has_graph("#graph=1.abc"), has_graph("#graph=9.abc"), has_graph("#graph="), has_graph("#top")
    (True, True, True, False)
    """
    return fragment.lstrip("#").startswith("graph=")


def link_error(reason: str) -> str:
    """The message shown when a link's graph cannot be opened, ``reason`` ending it as one sentence.

    >>> link_error("the link is damaged (its graph ends early): was it cut short?")
    "This link's graph cannot be opened: the link is damaged (its graph ends early): was it cut short?"
    >>> link_error("the link holds no graph.")
    "This link's graph cannot be opened: the link holds no graph."
    """
    reason = reason.strip() or "unknown reason"
    return f"This link's graph cannot be opened: {reason}{'' if reason[-1] in '.?!' else '.'}"


def read_fragment(fragment: str) -> str:
    """The document text a fragment carries; DocumentError with a plain message when it is
    damaged, foreign or too large. O(size of the document)."""
    body = fragment.lstrip("#")
    if body in ("graph=", PREFIX):
        raise DocumentError("the link holds no graph (nothing follows “graph=”): was it cut short?")
    if not body.startswith(PREFIX):
        if body.startswith("graph="):
            raise DocumentError("the link was made by a newer Bendscope (its graph's format is unknown here)")
        raise DocumentError("the link holds no graph")
    data = body[len(PREFIX) :]
    if len(data) > 4 * MAX_LINK:  # (a link this page never made)
        raise DocumentError(f"the link is {len(data):,} characters long; a graph link is at most {MAX_LINK:,}")
    if not _ALPHABET.match(data):
        raise DocumentError("the link is damaged (its graph is not base64url): was it cut short?")
    try:
        packed = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        raise DocumentError("the link is damaged (its graph is not base64url): was it cut short?") from None
    unpacker = zlib.decompressobj(-15)
    try:
        raw = unpacker.decompress(packed, MAX_BYTES + 1)
    except zlib.error:
        raise DocumentError("the link is damaged (its graph does not decompress): was it cut short?") from None
    if len(raw) > MAX_BYTES or unpacker.unconsumed_tail:
        raise DocumentError(f"the link's graph is larger than {MAX_BYTES // (1024 * 1024)} MB")
    if not unpacker.eof:
        raise DocumentError("the link is damaged (its graph ends early): was it cut short?")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DocumentError("the link is damaged (its graph is not UTF-8 text)") from None

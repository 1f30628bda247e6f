"""Nodes named by a key the agent chooses (a name, an external id), and names compared as
people read them.

A node stored with a ``key`` gets an id derived from its namespace and the key's normal
form (``key_id``): the same key, however spelt ("Caroline", " caroline", "CAROLINE"), names
the same node in every later call, and an edge names its ends by key (``source_key``,
``target_key``) as well as by id. The normal form (``normal_name``) folds case and accents,
drops a possessive "'s" and treats any run of punctuation and spaces as one space.

>>> normal_name("  Dr.  Émile's "), normal_name("dr emile")
('dr emile', 'dr emile')
>>> key_id(None, "Caroline") == key_id(None, "caroline!") != key_id("work", "Caroline")
True
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from .errors import InvalidInput
from .records import ID_HEX, LEGACY_HEX, MAX_CONTENT, check_text, kind_of
from .text import fold

#: the longest key
MAX_KEY = 500
#: the ids the memory derives — from a key, a content, a turn — (and the shorter ones of earlier
#: versions): in a namespace, only a node it holds may be named so
DERIVED_ID = re.compile(rf"(?:key|node|turn)-(?:[0-9a-f]{{{ID_HEX}}}|[0-9a-f]{{{LEGACY_HEX}}})")
_POSSESSIVE = re.compile(r"['’]s\b")
_SEPARATORS = re.compile(r"[\W_]+")


def normal_name(text: str) -> str:
    """A name as compared: folded, possessive 's dropped, punctuation and spaces one space."""
    return _SEPARATORS.sub(" ", _POSSESSIVE.sub("", fold(text))).strip()


def check_key(value: Any, what: str = "key") -> str:
    """A key: a string of at most MAX_KEY characters with a letter or digit in it."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string, got {kind_of(value)}")
    check_text(value, what, MAX_KEY)
    if not normal_name(value):
        raise InvalidInput(f"{what} must hold a letter or a digit, got {value!r:.40}")
    return value


def key_id(namespace: str | None, key: str) -> str:
    """The id of the node ``key`` names in ``namespace`` (None: unscoped).

    >>> bool(DERIVED_ID.fullmatch(key_id("alice", "Zanzibar"))), bool(DERIVED_ID.fullmatch("key-zanzibar"))
    (True, False)
    """
    digest = hashlib.sha256("\x1f".join(("key", namespace or "", normal_name(key))).encode("utf-8")).hexdigest()
    return f"key-{digest[:ID_HEX]}"


def scoped_content_id(namespace: str, content: str) -> str:
    """The id a node of ``namespace`` gets from its content when none is given (the same
    content in two namespaces is two nodes)."""
    check_text(content, "content", MAX_CONTENT)
    digest = hashlib.sha256("\x1f".join((namespace, content)).encode("utf-8")).hexdigest()
    return f"node-{digest[:ID_HEX]}"

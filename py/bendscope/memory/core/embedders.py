"""Embedders: what turns texts into vectors, and how vectors are kept in a store.

Any object with a ``name`` (which model: stored vectors of another name are not used) and
``embed(texts) -> vectors`` is an :class:`Embedder` (``retrieval.Embedder``). The built-in
one is WordLlama (``--embedder wordllama``): a static 256-dimension token-embedding model
whose weights ship inside its wheel (the ``[semantic]`` extra: ``pip install '.[semantic]'``)
and load offline in about half a second; it embeds about 100,000 short texts a second.

Vectors are kept unit length, as little-endian float32 bytes (``pack`` / ``unpack``), one
per node and model; a node's vector goes when its content changes or it is deleted.

>>> unpack(pack([3.0, 4.0]))
[0.6000000238418579, 0.800000011920929]
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import InvalidInput

_numpy: Any
try:  # (optional: the [semantic] extra brings it; everything works without it, slower)
    import numpy as _numpy
except ImportError:  # pragma: no cover
    _numpy = None

EMBEDDERS = ("wordllama",)


def normalised(vector: Sequence[float]) -> list[float]:
    """``vector`` at unit length (a zero vector stays zero)."""
    norm = math.sqrt(sum(x * x for x in vector))
    return [float(x) / norm for x in vector] if norm else [0.0 for _ in vector]


def pack(vector: Sequence[float]) -> bytes:
    """A vector as stored: unit length, little-endian float32."""
    if _numpy is not None:
        array = _numpy.asarray(vector, dtype="<f8")
        norm = float(_numpy.sqrt(array @ array))
        return bytes((array / norm if norm else array).astype("<f4").tobytes())
    unit = normalised(vector)
    return struct.pack(f"<{len(unit)}f", *unit)


def unpack(blob: bytes) -> list[float]:
    """A stored vector back as floats."""
    return list(struct.unpack(f"<{len(blob) // 4}f", blob))


def similarities(query: Sequence[float], blobs: Sequence[bytes]) -> list[float]:
    """The cosine similarity of the unit vector ``query`` with each stored vector (NumPy when
    it is installed: the [semantic] extra brings it)."""
    if not blobs:
        return []
    if _numpy is not None:
        matrix = _numpy.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), -1)
        return [float(x) for x in matrix @ _numpy.asarray(query, dtype="<f4")]
    return [sum(a * b for a, b in zip(query, unpack(blob), strict=False)) for blob in blobs]


class WordLlamaEmbedder:
    """WordLlama's L2 "supercat" model at 256 dimensions, loaded from its wheel (no network)."""

    name = "wordllama-l2-supercat-256"

    def __init__(self) -> None:
        try:
            import wordllama  # type: ignore[import-untyped,import-not-found,unused-ignore]
        except ImportError:
            raise InvalidInput(
                "the wordllama embedder needs the [semantic] extra: pip install 'bendscope[semantic]'"
            ) from None
        package = Path(wordllama.__file__).parent  # (its weights and tokenizer ship in the wheel)
        self._model: Any = wordllama.WordLlama.load(cache_dir=package, disable_download=True)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return list(self._model.embed(list(texts)))  # (rows of a NumPy array: pack takes them as they are)


def load_embedder(name: str) -> WordLlamaEmbedder:
    """The built-in embedder called ``name`` (InvalidInput for another name)."""
    if name == "wordllama":
        return WordLlamaEmbedder()
    raise InvalidInput(f"unknown embedder {name!r}; the built-in one is wordllama")

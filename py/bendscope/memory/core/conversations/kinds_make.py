"""Make the kinds table (``kinds.tsv.gz``) from WordNet 3.0's noun database, as Debian's
``wordnet-base`` installs it (``/usr/share/wordnet``): run once, the table is shipped.

    python -m bendscope.memory.core.conversations.kinds_make [/usr/share/wordnet] [out.tsv.gz]

The table holds, for the nouns of one or two words, the synset of each one's first (most
frequent) sense, the synsets' hypernyms (instances' too), and which nouns may stand for a kind
(a member: one index term, more often a noun than a verb in WordNet's sense-tagged counts).
Lines, tab-separated: a synset's ``<number> <hypernyms> <nouns> <members' index terms>`` (lists
space-separated; the nouns whose first sense it is, and the index terms — stems — of those that
are members), then ``X <inflected form> <lemma>``
(WordNet's irregular plurals). Synsets are numbered in offset order; the output is
deterministic.
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

from ..text import terms

_LEMMA = re.compile(r"^[a-z]+(?:_[a-z]+)?$")


def _counts(path: Path) -> dict[str, int]:
    """Each lemma's sense-tagged count in an index file."""
    out = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        parts = line.split()
        pointers = int(parts[3])
        out[parts[0]] = int(parts[5 + pointers])
    return out


def make(wordnet: Path) -> list[str]:
    """The table's lines."""
    parents: dict[str, list[str]] = {}
    for line in (wordnet / "data.noun").read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        parts = line.split(" | ")[0].split()
        count = int(parts[3], 16)
        at = 4 + 2 * count
        hypernyms = []
        for i in range(int(parts[at])):
            symbol, offset, pos = parts[at + 1 + 4 * i : at + 4 + 4 * i]
            if pos == "n" and symbol in ("@", "@i"):
                hypernyms.append(offset)
        parents[parts[0]] = hypernyms
    verbs = _counts(wordnet / "index.verb")
    firsts: dict[str, tuple[str, bool]] = {}
    for line in (wordnet / "index.noun").read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        parts = line.split()
        lemma, pointers = parts[0], int(parts[3])
        if not _LEMMA.match(lemma):
            continue
        member = len(terms(lemma.replace("_", " "))) == 1 and verbs.get(lemma, 0) <= int(parts[5 + pointers])
        firsts[lemma] = (parts[6 + pointers], member)
    kept: dict[str, int] = {}
    stack = sorted({s for s, _ in firsts.values()})
    while stack:
        offset = stack.pop()
        if offset not in kept:
            kept[offset] = -1
            stack.extend(parents[offset])
    for number, offset in enumerate(sorted(kept)):
        kept[offset] = number
    has_children = {p for o in kept for p in parents[o]}
    nouns: dict[str, list[str]] = {o: [] for o in kept}
    stems: dict[str, set[str]] = {o: set() for o in kept}
    for lemma, (offset, member) in sorted(firsts.items()):
        if member or offset in has_children:
            nouns[offset].append(lemma)
        if member:
            stems[offset].update(terms(lemma.replace("_", " ")))
    lines = [
        f"{kept[o]}\t{' '.join(str(kept[p]) for p in parents[o])}\t{' '.join(nouns[o])}\t{' '.join(sorted(stems[o]))}"
        for o in sorted(kept)
    ]
    for line in (wordnet / "noun.exc").read_text(encoding="latin-1").splitlines():
        form, lemma = line.split()[:2]
        if lemma in firsts and _LEMMA.match(form):
            lines.append(f"X\t{form}\t{lemma}")
    return lines


def main() -> None:
    """Write the table (gzip with no time stamp: the same bytes each run)."""
    wordnet = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet")
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).with_name("kinds.tsv.gz")
    data = ("\n".join(make(wordnet)) + "\n").encode()
    out.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    print(f"{out}: {len(data):,} bytes, {out.stat().st_size:,} compressed")


if __name__ == "__main__":
    main()

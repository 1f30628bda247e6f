"""Is an SQLite write-ahead log whole? SQLite replays a WAL up to its first frame whose
checksum fails and silently drops everything after it, so a damaged frame in the middle
loses writes that were acknowledged. This reads the log as SQLite's file format
describes it (a 32-byte header, then frames of a 24-byte header and one page, each
with a checksum chained from the one before) and tells a damaged log from a torn tail.

A frame whose checksum fails is checked against its own stored checksum for the chain
that follows, so one damaged frame does not hide the frames after it. A transaction's
frames reach the disk in any order until it commits (SQLite syncs the log at each
commit), so a failing frame in the *last* transaction — even one whose commit frame did
reach the disk before a power loss — is a torn tail SQLite rightly drops. But when a
frame of the same log generation (its salts) follows a commit that follows the failing
frame, a later transaction began after that commit was on disk: the failing frame was
durable, and SQLite would drop committed writes. Then the log is damaged. Standard
library only; O(size of the log), about 65 ms per MB (a log exists only after a crash
or while another process has the store open).
"""

from __future__ import annotations

import os
import struct
import time

HEADER = 32
FRAME_HEADER = 24
MAGIC_LE, MAGIC_BE = 0x377F0682, 0x377F0683


def _checksum(data: bytes, s0: int, s1: int, big: bool) -> tuple[int, int]:
    """SQLite's WAL checksum of ``data`` (a multiple of 8 bytes), continued from (s0, s1)."""
    words = struct.unpack(f"{'>' if big else '<'}{len(data) // 4}I", data)
    mask = 0xFFFFFFFF
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & mask
        s1 = (s1 + words[i + 1] + s0) & mask
    return s0, s1


def wal_damage(path: str, looks: int = 3, pause_s: float = 0.05) -> str | None:
    """What is wrong with the write-ahead log at ``path``, or None when it is whole, empty,
    missing, or ends in the torn frames of a transaction that never committed. Another
    process may be appending to the log while it is read (a frame half written when read,
    whole by the time the next is): damage counts only when ``looks`` reads ``pause_s``
    apart all find it, at the same frame."""
    first = _damage_once(path)
    for _ in range(looks - 1):
        if first is None:
            return None
        time.sleep(pause_s)
        if _damage_once(path) != first:
            return None
    return first


def _damage_once(path: str) -> str | None:
    try:
        size = os.path.getsize(path)
    except OSError:
        return None
    if size == 0:
        return None
    try:
        file = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError:
        return None  # (removed meanwhile: the last connection of another process checkpointed it)
    with file:
        head = file.read(HEADER)
        if len(head) < HEADER:
            return f"the write-ahead log is {size} bytes, shorter than its header"
        magic, _version, page_size, _seq, salt1, salt2, c0, c1 = struct.unpack(">8I", head)
        if magic not in (MAGIC_LE, MAGIC_BE) or not 512 <= page_size <= 65536 or page_size & (page_size - 1):
            return "the write-ahead log is not one (its header is not SQLite's): what it held would be dropped"
        big = magic == MAGIC_BE
        if _checksum(head[:24], 0, 0, big) != (c0, c1):
            return "the write-ahead log's header is damaged: every write it holds would be dropped"
        chain = (c0, c1)
        frames = 0
        first_bad: int | None = None
        committed_after_bad = False  # a commit frame came after the first failing one
        while True:
            frame_head = file.read(FRAME_HEADER)
            page = file.read(page_size)
            if len(frame_head) < FRAME_HEADER or len(page) < page_size:
                break  # a partial last frame: a torn tail
            _page_no, commit, f_salt1, f_salt2, f0, f1 = struct.unpack(">6I", frame_head)
            if (f_salt1, f_salt2) != (salt1, salt2):
                break  # frames of an earlier generation of the log, which SQLite rightly ignores
            frames += 1
            good = _checksum(page, *_checksum(frame_head[:8], *chain, big), big) == (f0, f1)
            if not good:
                first_bad = frames if first_bad is None else first_bad
                committed_after_bad = committed_after_bad or bool(commit)
            elif first_bad is not None:
                if committed_after_bad:
                    return (
                        f"the write-ahead log is damaged at frame {first_bad:,}: "
                        "SQLite would drop the committed writes after it"
                    )
                committed_after_bad = bool(commit)
            chain = (f0, f1)
    return None


def rechain(path: str) -> int:
    """Rewrite the checksums of the write-ahead log at ``path`` (a rescue copy, never a
    store's own log) so SQLite reads every whole frame of its current generation: a
    damaged frame then costs its own page, not every write after it. Returns how many
    frames' checksums changed (0: the log was whole). O(size of the log)."""
    with open(path, "r+b") as file:
        head = file.read(HEADER)
        if len(head) < HEADER:
            return 0
        magic, _version, page_size, _seq, salt1, salt2, _c0, _c1 = struct.unpack(">8I", head)
        if magic not in (MAGIC_LE, MAGIC_BE) or not 512 <= page_size <= 65536 or page_size & (page_size - 1):
            return 0
        big = magic == MAGIC_BE
        chain = _checksum(head[:24], 0, 0, big)
        file.seek(24)
        file.write(struct.pack(">2I", *chain))
        changed, at = 0, HEADER
        while True:
            file.seek(at)
            frame_head = file.read(FRAME_HEADER)
            page = file.read(page_size)
            if len(frame_head) < FRAME_HEADER or len(page) < page_size:
                return changed
            if struct.unpack(">2I", frame_head[8:16]) != (salt1, salt2):
                return changed
            chain = _checksum(page, *_checksum(frame_head[:8], *chain, big), big)
            if struct.unpack(">2I", frame_head[16:24]) != chain:
                file.seek(at + 16)
                file.write(struct.pack(">2I", *chain))
                changed += 1
            at += FRAME_HEADER + page_size

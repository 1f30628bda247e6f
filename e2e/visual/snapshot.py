"""Screenshot comparison with pixelmatch + Pillow.

A screenshot matches its baseline when at most ``max_diff_pixels`` pixels differ by
more than ``threshold`` (pixelmatch's YIQ distance, 0..1; anti-aliasing pixels are
not counted). On a mismatch the actual and the diff images are written to
e2e/output/ and the test fails naming them. ``pytest --update-snapshots`` writes
the baselines instead.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from pixelmatch.contrib.PIL import pixelmatch

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = ROOT / "e2e" / "snapshots"
OUTPUT = ROOT / "e2e" / "output"


@dataclass(frozen=True)
class Result:
    matched: bool
    diff_pixels: int
    message: str


def compare(name: str, png: bytes, *, update: bool, threshold: float = 0.1, max_diff_pixels: int = 40) -> Result:
    """Compare ``png`` with the baseline ``name``.png (or write it when ``update``)."""
    baseline_path = SNAPSHOTS / f"{name}.png"
    actual = Image.open(io.BytesIO(png)).convert("RGBA")
    if update:
        SNAPSHOTS.mkdir(parents=True, exist_ok=True)
        actual.save(baseline_path, optimize=True)
        return Result(True, 0, f"wrote {baseline_path.relative_to(ROOT)}")
    if not baseline_path.exists():
        return Result(
            False, -1, f"no baseline {baseline_path.relative_to(ROOT)}: run pytest e2e/visual --update-snapshots"
        )
    expected = Image.open(baseline_path).convert("RGBA")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    if expected.size != actual.size:
        actual.save(OUTPUT / f"{name}-actual.png")
        return Result(False, -1, f"{name}: size {actual.size} != baseline {expected.size}")
    diff = Image.new("RGBA", actual.size)
    count = pixelmatch(expected, actual, diff, threshold=threshold, includeAA=False)
    if count > max_diff_pixels:
        actual.save(OUTPUT / f"{name}-actual.png")
        diff.save(OUTPUT / f"{name}-diff.png")
        return Result(
            False,
            count,
            f"{name}: {count} pixels differ (allowed {max_diff_pixels}); "
            f"see e2e/output/{name}-actual.png and {name}-diff.png",
        )
    return Result(True, count, f"{name}: {count} pixels differ")

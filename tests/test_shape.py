"""The code's shape, enforced, so a newcomer finds things in one hop: no package folder under
``py/bendscope`` holds more than ``MAX_MODULES`` modules directly (more means sub-packages
that say what they hold), no module is longer than ``MAX_LINES`` lines, and no two modules in
different packages share a file name unless they are the same concept (``SAME_CONCEPT``).
The layering (what each package may import) is ``test_layering.py``'s."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "py" / "bendscope"
MAX_MODULES = 16
MAX_LINES = 800
#: file names that several packages use for the same concept (each with the packages that do)
SAME_CONCEPT = {
    # each face's command line
    "cli.py": {"kappa", "memory"},
    # one group of the memory's operations: the service's part and the MCP tools over it
    "reading.py": {"memory/core/service", "memory/mcp/tools"},
    "writing.py": {"memory/core/service", "memory/mcp/tools"},
    "learning.py": {"memory/core", "memory/mcp/tools"},
}
#: a package's own files, not modules a reader looks for by name
SPECIAL = ("__init__.py", "__main__.py")


def modules(root: Path) -> list[Path]:
    """Every module under ``root`` (a package tree), caches left out."""
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def crowded_folders(root: Path) -> list[str]:
    """Folders holding more than MAX_MODULES modules directly.

    >>> crowded_folders(PACKAGE)
    []
    """
    counts: dict[Path, int] = defaultdict(int)
    for path in modules(root):
        if path.name not in SPECIAL:
            counts[path.parent] += 1
    return [f"{folder.relative_to(root)}: {n} modules" for folder, n in sorted(counts.items()) if n > MAX_MODULES]


def long_modules(root: Path) -> list[str]:
    """Modules longer than MAX_LINES lines."""
    found = []
    for path in modules(root):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            found.append(f"{path.relative_to(root)}: {lines} lines")
    return found


def shared_names(root: Path) -> list[str]:
    """File names used by modules of different packages, unless SAME_CONCEPT lists them so."""
    where: dict[str, set[str]] = defaultdict(set)
    for path in modules(root):
        if path.name not in SPECIAL:
            where[path.name].add(path.parent.relative_to(root).as_posix())
    return [
        f"{name} in {', '.join(sorted(folders))}"
        for name, folders in sorted(where.items())
        if len(folders) > 1 and folders != SAME_CONCEPT.get(name)
    ]


def test_no_folder_holds_more_than_sixteen_modules():
    assert crowded_folders(PACKAGE) == []


def test_no_module_is_longer_than_eight_hundred_lines():
    assert long_modules(PACKAGE) == []


def test_no_two_packages_name_a_module_alike_unless_it_is_the_same_concept():
    assert shared_names(PACKAGE) == []


def test_the_same_concept_list_names_only_what_exists():
    """(An entry left behind after a rename would allow a future clash silently.)"""
    for name, folders in SAME_CONCEPT.items():
        for folder in folders:
            assert (PACKAGE / folder / name).is_file(), f"{folder}/{name}"


def test_the_rules_catch_a_crowded_long_and_clashing_tree(tmp_path):
    """(The tests above would pass on a tree they could not read; this one proves they catch.)"""
    flat = tmp_path / "bend"
    flat.mkdir()
    for k in range(MAX_MODULES + 1):
        (flat / f"m{k}.py").write_text("x = 1\n", encoding="utf-8")
    (flat / "m0.py").write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    other = tmp_path / "memory"
    other.mkdir()
    (other / "m1.py").write_text("", encoding="utf-8")
    (other / "cli.py").write_text("", encoding="utf-8")
    (flat / "cli.py").write_text("", encoding="utf-8")
    assert crowded_folders(tmp_path) == [f"bend: {MAX_MODULES + 2} modules"]
    assert long_modules(tmp_path) == [f"bend/m0.py: {MAX_LINES + 1} lines"]
    assert shared_names(tmp_path) == ["cli.py in bend, memory", "m1.py in bend, memory"]


def test_no_benchmark_or_script_is_longer_than_eight_hundred_lines():
    top = PACKAGE.parents[1]
    assert long_modules(top / "bench") + long_modules(top / "scripts") == []

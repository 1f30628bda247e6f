"""The layering, enforced: ``kappa`` ← shared formats ← ``bend`` ← ``app``, with ``memory`` beside
``bend`` (never importing it). Every import of every module under ``py/bendscope`` is read from its
syntax tree (those inside functions and ``TYPE_CHECKING`` blocks too) and checked against what its
layer may import; the κ engine imports the standard library only, and only ``app`` imports the
browser (``js``, ``pyscript``, ``pyodide``)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "py"
SHARED = (
    "bendscope.shared",
    "bendscope.shared.docformat",
    "bendscope.shared.graphformats",
    "bendscope.shared.jsonsafe",
)
#: what each layer may import from bendscope (beyond itself)
ALLOWED = {
    "bendscope.kappa": (),
    "bendscope.shared": ("bendscope.kappa",),
    "bendscope.bend": ("bendscope.kappa", *SHARED),
    "bendscope.app": ("bendscope.kappa", "bendscope.bend", *SHARED),
    "bendscope.memory": ("bendscope.kappa", *SHARED),
}
BROWSER = ("js", "pyscript", "pyodide")
#: third-party packages the engine and the editor core run without (they run in Pyodide as they are)
STDLIB = set(sys.stdlib_module_names)


def layer_of(module: str) -> str:
    """The layer a module belongs to (a shared format module is the shared layer).

    >>> layer_of("bendscope.bend.model.elements"), layer_of("bendscope.shared.docformat")
    ('bendscope.bend', 'bendscope.shared')
    """
    if module.startswith(SHARED):
        return "bendscope.shared"
    return ".".join(module.split(".")[:2])


def modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts[0] == "bendscope" and len(parts) > 1:
            found.append((".".join(parts), path))
    return found


def imports_of(module: str, path: Path) -> list[str]:
    """Every module ``path`` imports, absolute (relative imports resolved against ``module``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append(target)
            found += [f"{target}.{alias.name}" for alias in node.names]  # (a module imported by name)
    return found


MODULES = modules()
KNOWN = {name for name, _ in MODULES}


def violations(module: str, path: Path) -> list[str]:
    """What ``module`` (its source at ``path``) imports that its layer may not."""
    layer = layer_of(module)
    if layer not in ALLOWED:
        return [f"{module} is in no known layer"]
    allowed = (layer, *ALLOWED[layer])
    wrong = []
    for target in imports_of(module, path):
        top = target.split(".")[0]
        if target.startswith("bendscope."):
            is_module = target in KNOWN or any(k.startswith(target + ".") for k in KNOWN)
            if is_module and not (layer_of(target).startswith(allowed) or target.startswith(allowed)):
                wrong.append(f"{module} imports {target}: {layer} may import only {', '.join(allowed)}")
        elif top in BROWSER and layer != "bendscope.app":
            wrong.append(f"{module} imports the browser ({target}); only bendscope.app may")
        elif layer == "bendscope.kappa" and top not in STDLIB and top != "__future__":
            wrong.append(f"the κ engine imports {target}: standard library only")
    return wrong


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_every_import_respects_the_layering(module, path):
    assert violations(module, path) == []


def test_the_rule_catches_a_wrong_import(tmp_path):
    """(The test above would pass on a tree it could not read; this one proves it catches.)"""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from bendscope.bend.model.elements import Plane\nimport js\n\ndef f():\n    from ...app import app\n",
        encoding="utf-8",
    )
    found = "\n".join(violations("bendscope.memory.core.bad", bad))
    assert (
        "imports bendscope.bend.model.elements" in found
        and "browser (js)" in found
        and "imports bendscope.app" in found
    )
    engine = "\n".join(violations("bendscope.kappa.bad", bad))
    assert "browser (js)" in engine and "imports bendscope.bend.model.elements" in engine

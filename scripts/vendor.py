"""Vendor the browser runtime into static/vendor/ (git-ignored): `make vendor`.

Copies PyScript, Pyodide, d3-force (with its three d3 dependencies), @dagrejs/dagre and the fonts from
node_modules (installed by `npm ci` from the pinned package-lock.json), adds the micropip wheel Pyodide's lock names
(PyPI's build, so the lock is rewritten to its sha256) and builds the project's
own engine wheel (`bendscope-kappa`: `bendscope.kappa` alone), so the page never requests anything from another origin.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "static" / "vendor"
MODULES = ROOT / "node_modules"
MICROPIP = "micropip-0.11.1-py3-none-any.whl"
MICROPIP_SHA256 = "768de165adb8e66906039d8fec4127a57f522dfdf8e6fbff877a4616941ecfd3"
PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide.js"]
FONTS = {"inter": ["400", "600", "700"], "jetbrains-mono": ["400", "700"]}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(*cmd: str) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=ROOT, check=True)


def npm_ci() -> None:
    lock = MODULES / ".package-lock.json"
    if not lock.exists() or lock.stat().st_mtime < (ROOT / "package-lock.json").stat().st_mtime:
        run("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")


def copy_pyscript() -> None:
    dest = VENDOR / "pyscript"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(MODULES / "@pyscript" / "core" / "dist", dest, ignore=shutil.ignore_patterns("*.map"))


def copy_pyodide() -> None:
    dest = VENDOR / "pyodide"
    dest.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        shutil.copy2(MODULES / "pyodide" / name, dest / name)
    wheel = dest / MICROPIP
    if not wheel.exists() or sha256(wheel) != MICROPIP_SHA256:
        with tempfile.TemporaryDirectory() as tmp:
            run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                "--python-version", "3.14", "--platform", "any", "-d", tmp, "micropip==0.11.1")  # fmt: skip
            shutil.copy2(Path(tmp) / MICROPIP, wheel)
    if sha256(wheel) != MICROPIP_SHA256:
        raise SystemExit(f"{MICROPIP}: unexpected sha256 {sha256(wheel)}")
    lock = json.loads((MODULES / "pyodide" / "pyodide-lock.json").read_text())
    entry = lock["packages"]["micropip"]
    if entry["file_name"] != MICROPIP:
        raise SystemExit(f"pyodide-lock.json names {entry['file_name']}, expected {MICROPIP}")
    entry["sha256"] = MICROPIP_SHA256
    (dest / "pyodide-lock.json").write_text(json.dumps(lock))


D3 = ("d3-dispatch", "d3-quadtree", "d3-timer", "d3-force")  # the layout kernel (static/layout.js)


def copy_d3() -> None:
    dest = VENDOR / "d3"
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for name in D3:
        shutil.copy2(MODULES / name / "dist" / f"{name}.min.js", dest / f"{name}.min.js")
        shutil.copy2(MODULES / name / "LICENSE", dest / f"{name}.LICENSE")


def copy_dagre() -> None:
    """@dagrejs/dagre's browser bundle (graphlib inside): the layered drawing of Arrange
    (static/arrange.js), loaded by the layout worker the first time a plane is arranged."""
    dest = VENDOR / "dagre"
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    shutil.copy2(MODULES / "@dagrejs" / "dagre" / "dist" / "dagre.min.js", dest / "dagre.min.js")
    shutil.copy2(MODULES / "@dagrejs" / "dagre" / "LICENSE", dest / "dagre.LICENSE")


def copy_fonts() -> None:
    for family, weights in FONTS.items():
        src = MODULES / "@fontsource" / family
        dest = VENDOR / "fonts" / family
        shutil.rmtree(dest, ignore_errors=True)
        (dest / "files").mkdir(parents=True)
        for weight in weights:
            shutil.copy2(src / f"{weight}.css", dest / f"{weight}.css")
            for file in (src / "files").glob(f"*-{weight}-normal.woff*"):
                shutil.copy2(file, dest / "files" / file.name)


#: the page's wheel holds the engine alone: no dependencies, so micropip needs nothing else
KAPPA_PYPROJECT = """\
[build-system]
requires = ["setuptools>=77", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "bendscope-kappa"
version = "{version}"
description = "The cyclicity invariant κ: exact SCC and arc-connectivity topology analysis (pure Python)"
requires-python = ">=3.11"
license = "MIT"

[project.scripts]
kappa = "bendscope.kappa.cli:main"

[tool.setuptools]
package-dir = {{ "" = "py" }}
packages = ["bendscope", "bendscope.kappa"]
"""


def build_kappa_wheel() -> None:
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    dest = VENDOR / "wheels"
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        build = Path(tmp) / "src"
        package = build / "py" / "bendscope"
        shutil.copytree(
            ROOT / "py" / "bendscope" / "kappa", package / "kappa", ignore=shutil.ignore_patterns("__pycache__")
        )
        shutil.copy2(ROOT / "py" / "bendscope" / "__init__.py", package / "__init__.py")
        (build / "pyproject.toml").write_text(KAPPA_PYPROJECT.format(version=version))
        run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dest), str(build))


def main() -> None:
    npm_ci()
    copy_pyscript()
    copy_pyodide()
    copy_fonts()
    copy_d3()
    copy_dagre()
    build_kappa_wheel()
    (VENDOR / ".stamp").write_text("ok\n")
    print(f"vendored into {VENDOR.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

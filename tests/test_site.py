"""The static site: pinned runtime, config lists every module, no foreign URLs, no innerHTML."""

from __future__ import annotations

import json
import re
import sys
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


#: server-side packages: never shipped to the page
SERVER_ONLY = ("memory",)


def test_pyscript_config_maps_every_module_and_the_local_interpreter():
    config = tomllib.loads((ROOT / "pyscript.toml").read_text())
    assert config["interpreter"] == "./static/vendor/pyodide/pyodide.mjs"
    listed = set(config["files"])
    wanted = {
        f"./{p.relative_to(ROOT).as_posix()}"
        for p in (ROOT / "py").rglob("*.py")
        if p.name != "main.py" and p.relative_to(ROOT / "py" / "bendscope").parts[0] not in SERVER_ONLY
    }
    assert listed == wanted
    assert all(target == source.replace("./py/", "./") for source, target in config["files"].items())


def test_the_page_never_loads_the_agent_memory():
    config = (ROOT / "pyscript.toml").read_text()
    for package in SERVER_ONLY:
        assert f"/{package}/" not in config
    for package in ("app", "bend", "kappa"):
        for path in (ROOT / "py" / "bendscope" / package).rglob("*.py"):
            assert not re.search(r"^\s*(import|from) (bendscope\.)?memory\b", path.read_text(), re.M), path


def test_runtime_versions_are_pinned():
    pkg = json.loads((ROOT / "package.json").read_text())["dependencies"]
    assert pkg["@pyscript/core"] == "0.7.31" and pkg["pyodide"] == "314.0.2"
    lock = json.loads((ROOT / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/pyodide"]["version"] == "314.0.2"
    assert lock["packages"]["node_modules/@pyscript/core"]["version"] == "0.7.31"


def test_pages_use_relative_urls_only():
    for name in ("index.html", "static/boot.js", "static/app.css", "pyscript.toml"):
        text = (ROOT / name).read_text()
        assert not re.search(r"(src|href)=\"(https?:)?//", text), name
        assert "cdn" not in text.lower(), name
        assert not re.search(r"url\((https?:)?//", text), name


def test_browser_layer_never_writes_html():
    for path in (ROOT / "py").rglob("*.py"):
        text = path.read_text()
        assert "innerHTML" not in text and "insertAdjacentHTML" not in text and "outerHTML" not in text, path


def test_only_the_browser_layer_imports_js():
    pattern = re.compile(r"^\s*(import|from) (js|pyodide|pyscript)\b", re.M)
    for package in ("kappa", "bend"):
        for path in (ROOT / "py" / "bendscope" / package).rglob("*.py"):
            assert not pattern.search(path.read_text()), path


def test_vendor_is_ignored_and_not_committed():
    assert "/static/vendor/" in (ROOT / ".gitignore").read_text()


def test_test_module_names_are_unique_across_suites():
    """``make test`` collects tests/ and e2e/ in one pytest run (rootdir
    import mode): two test modules with one import name abort the whole run at
    collection, as ``e2e/test_share.py`` beside ``tests/test_share.py`` did. A file
    inside a package (a folder with ``__init__.py``, as under ``tests/``) is named by
    its dotted path, so ``tests/kappa/test_cli.py`` and ``tests/memory/test_cli.py`` differ."""

    def import_name(path: Path) -> str:
        parts = [path.stem]
        folder = path.parent
        while (folder / "__init__.py").is_file():
            parts.insert(0, folder.name)
            folder = folder.parent
        return ".".join(parts)

    seen: dict[str, Path] = {}
    for suite in ("tests", "e2e"):
        for path in sorted((ROOT / suite).rglob("test_*.py")):
            if "output" in path.parts:
                continue
            name = import_name(path)
            assert name not in seen, f"{path} and {seen[name]} share the import name {name}"
            seen[name] = path


def test_the_development_server_serves_the_page_and_nothing_else():
    sys.path.insert(0, str(ROOT / "scripts"))
    from serve import start_in_thread

    server, base = start_in_thread(ROOT)
    try:
        for path, status in (("index.html", 200), ("pyscript.toml", 200), ("static/app.css", 200),
                             ("py/bendscope/kappa/__init__.py", 200), (".git/config", 404), ("Makefile", 404),
                             ("py/bendscope/memory/cli.py", 404), ("tests/test_site.py", 404)):  # fmt: skip
            try:
                got = urllib.request.urlopen(base + path, timeout=10).status
            except urllib.error.HTTPError as exc:
                got = exc.code
            assert got == status, path
    finally:
        server.shutdown()
        server.server_close()


def test_the_development_server_prints_its_usage_for_help_and_refuses_a_bad_port():
    import subprocess

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "scripts" / "serve.py"), *args],
                              capture_output=True, text=True, timeout=60, check=False)  # fmt: skip

    shown = run("--help")
    assert shown.returncode == 0 and "usage: python scripts/serve.py [PORT]" in shown.stdout
    assert "Traceback" not in shown.stderr
    wrong = run("eighty")
    assert wrong.returncode == 2 and "usage:" in wrong.stderr and "Traceback" not in wrong.stderr

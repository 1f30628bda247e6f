"""Import refusals leave the graph unchanged; autosave survives a reload; micropip works offline."""

from __future__ import annotations

import json

import pytest

BAD_FILES = [
    ("not-json.json", b"{ this is not json", "Not JSON"),
    ("shape.json", b'{"format": "bendscope", "version": 1, "planes": {}}', "must be a list"),
    (
        "dangling.json",
        json.dumps({"nodes": ["a"], "edges": [{"source": "a", "target": "ghost"}]}).encode(),
        "refers to node 'ghost'",
    ),
    ("duplicate.json", json.dumps({"nodes": ["a", "a"], "edges": []}).encode(), "duplicate node id 'a'"),
    ("huge.json", b" " * (10 * 1024 * 1024 + 10), "limit is 10 MB"),
    ("many.json", json.dumps({"nodes": [f"n{i}" for i in range(20_001)], "edges": []}).encode(), "20000"),
]


@pytest.mark.parametrize(("name", "data", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_import_is_refused_and_changes_nothing(app, name, data, message):
    before = app.api("window.bendscope.export()")
    stats = app.stats()
    app.page.set_input_files("#file-input", files=[{"name": name, "mimeType": "application/json", "buffer": data}])
    toast = app.page.locator("#toast")
    toast.wait_for(state="visible")
    assert "Import refused" in toast.inner_text() and message in toast.inner_text()
    assert app.api("window.bendscope.export()") == before
    assert app.stats() == stats
    app.api("document.getElementById('toast').hidden = true")


def test_api_load_refusal_returns_message(app):
    before = app.api("window.bendscope.export()")
    message = app.api("window.bendscope.load('[1, 2, 3]')")
    assert isinstance(message, str) and "top level is a list" in message
    assert app.api("window.bendscope.export()") == before


def test_good_import(app_factory):
    app = app_factory("seed=1&still=1")
    doc = {"nodes": ["x", "y"], "edges": [{"source": "x", "target": "y"}, {"source": "y", "target": "x"}]}
    app.page.set_input_files(
        "#file-input", files=[{"name": "g.json", "mimeType": "application/json", "buffer": json.dumps(doc).encode()}]
    )
    app.page.wait_for_function("window.bendscope.stats().nodes === 2")
    assert app.pill("kappa") == "κ: 1"


def test_reload_restores_autosaved_graph(app_factory):
    app = app_factory("seed=4&still=1")
    page = app.page
    page.mouse.dblclick(60, 620)
    page.keyboard.type("remember me")
    page.keyboard.press("Control+Enter")
    saved = app.api("window.bendscope.export()")
    page.wait_for_function("localStorage.getItem('bendscope:document') !== null", timeout=5000)
    app.reload()
    assert json.loads(app.api("window.bendscope.export()")) == json.loads(saved)
    assert app.stats()["nodes"] == 11


def test_corrupt_save_falls_back_to_previous_snapshot(app_factory):
    app = app_factory("seed=4&still=1")
    page = app.page
    app.api("window.bendscope.action('new-node', {x: 0, y: 0})")
    page.wait_for_function("localStorage.getItem('bendscope:document') !== null", timeout=5000)
    first = app.api("localStorage.getItem('bendscope:document')")
    app.api("window.bendscope.action('new-node', {x: 300, y: 300})")
    page.wait_for_function("localStorage.getItem('bendscope:document:previous') !== null", timeout=5000)
    page.evaluate("localStorage.setItem('bendscope:document', '{broken')")
    app.reload()
    assert app.api("window.bendscope.export()") is not None
    assert json.loads(app.api("window.bendscope.export()"))["planes"] == json.loads(first)["planes"]
    assert "snapshot" in page.locator("#toast").inner_text()


def test_fresh_demo_never_overwrites_a_save(app_factory):
    app = app_factory("seed=4&still=1")
    app.page.evaluate("localStorage.setItem('bendscope:document', 'precious')")
    app.page.wait_for_timeout(900)
    assert app.api("localStorage.getItem('bendscope:document')") == "precious"


def test_micropip_installs_the_kappa_wheel_offline(app):
    wheels = app.page.evaluate("fetch('static/vendor/wheels/').then(r => r.text())")
    name = next(part.split('"')[0] for part in wheels.split('href="')[1:] if part.startswith("kappa-"))
    report = json.loads(app.page.evaluate(f"window.bendscope.check_wheel('static/vendor/wheels/{name}')"))
    assert report["same"] is True
    assert "site-packages" in report["wheel_file"] and "site-packages" not in report["files_file"]
    assert report["result"]["max_kappa"] == 1

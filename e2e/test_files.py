"""Import refusals leave the graph unchanged; good imports; micropip works offline."""

from __future__ import annotations

import json

import pytest
from harness import ROOT
from playwright.sync_api import expect

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
    # 10,000 nested arrays in 20 KB used to crash Pyodide's parser (Import was dead until a reload)
    ("nested.json", b"[" * 10_000 + b"]" * 10_000, "nested more than 64 levels"),
    ("digits.json", b'{"nodes": [{"id": "a", "x": 1' + b"0" * 5000 + b"}]}", "more than 30 digits"),
    ("far.json", b'{"nodes": [{"id": "a", "x": 1e308}]}', "must be a number between"),
    # (read as bytes: the browser's file.text() would have put U+FFFD in place of these)
    ("latin.json", b'{"nodes": ["\xff\xfe"], "edges": []}', "not UTF-8 text (byte 0xff at offset 12"),
    ("latin.csv", b"source,target\r\ncaf\xe9,the\r\n", "not UTF-8 text (byte 0xe9"),
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


def test_import_works_after_a_hostile_file(app_factory):
    app = app_factory("seed=1&still=1")
    nested = b"[" * 10_000 + b"]" * 10_000
    app.page.set_input_files(
        "#file-input", files=[{"name": "n.json", "mimeType": "application/json", "buffer": nested}]
    )
    app.page.locator("#toast").wait_for(state="visible")
    good = json.dumps({"nodes": ["x", "y"], "edges": [{"source": "x", "target": "y"}]}).encode()
    app.page.set_input_files("#file-input", files=[{"name": "g.json", "mimeType": "application/json", "buffer": good}])
    app.page.wait_for_function("window.bendscope.stats().nodes === 2")
    app.page.keyboard.press("Control+z")  # the import is one undoable step
    app.page.wait_for_function("window.bendscope.stats().nodes === 10")


def test_a_bad_url_parameter_is_ignored_with_a_message(app_factory):
    app = app_factory("exact_limit=-1&still=1")
    assert app.stats()["nodes"] == 10  # the app started
    assert "exact_limit=-1 ignored" in app.page.locator("#toast").inner_text()


def test_a_node_of_40000_characters_without_spaces_loads(app_factory):
    app = app_factory("seed=1&still=1")
    doc = {"nodes": [{"id": "a", "text": "x" * 40_000}, {"id": "b", "text": "字" * 40_000}], "edges": []}
    assert app.api("t => window.bendscope.load(t)", json.dumps(doc)) is None
    app.api("window.bendscope.settle()")
    assert app.stats()["nodes"] == 2


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


def test_micropip_installs_the_kappa_wheel_offline(app):
    name = next(path.name for path in (ROOT / "static" / "vendor" / "wheels").glob("bendscope_kappa-*.whl"))
    report = json.loads(app.page.evaluate(f"window.bendscope.check_wheel('static/vendor/wheels/{name}')"))
    assert report["same"] is True
    assert "site-packages" in report["wheel_file"] and "site-packages" not in report["files_file"]
    assert report["result"]["max_kappa"] == 1


FORMAT_FILES = [
    ("loops.csv", b"source,target,kind,polarity\nrain,flood,causal,+\nflood,rain,causal,-\nflood,crops,temporal,\n"),
    ("loops.dot", b'digraph { rain -> flood [polarity="+"]; flood -> rain [label="drains"]; flood -> crops }'),
    ("loops.mmd", b"flowchart LR\n  rain[Heavy rain] -->|+| flood\n  flood --> rain\n  flood -.-> crops\n"),
    (
        "loops.graphml",
        b'<graphml><key id="k" for="edge" attr.name="kind"/><graph edgedefault="directed">'
        b'<node id="rain"/><node id="flood"/><node id="crops"/>'
        b'<edge source="rain" target="flood"/><edge source="flood" target="rain"/>'
        b'<edge source="flood" target="crops"><data key="k">temporal</data></edge></graph></graphml>',
    ),
    # a spreadsheet's "Unicode" CSV: UTF-16 with its byte order mark
    (
        "loops-unicode.csv",
        "\ufeffsource,target,kind\nrain,flood,causal\nflood,rain,causal\nflood,crops,\n".encode("utf-16-le"),
    ),
    # networkx's node_link_data: integer ids
    (
        "loops-networkx.json",
        b'{"directed": true, "multigraph": false, "graph": {}, "nodes": [{"id": 0}, {"id": 1}, {"id": 2}],'
        b' "links": [{"source": 0, "target": 1}, {"source": 1, "target": 0}, {"source": 1, "target": 2}]}',
    ),
]


@pytest.fixture(scope="module")
def booted_demo(shared_app) -> str:
    """The demo graph the module's page booted with (the tests on it before change nothing)."""
    return shared_app.api("window.bendscope.export()")


@pytest.fixture
def demo_again(app, booted_demo):
    """The module's page with its demo graph loaded again in place of one a test before imported,
    and no message showing: where a page booted for the test starts (one boot, not one a test)."""
    assert app.api("t => window.bendscope.load(t)", booted_demo) is None
    assert app.stats()["nodes"] == 10
    app.api("document.getElementById('toast').hidden = true")
    return app


@pytest.mark.parametrize(("name", "data"), FORMAT_FILES, ids=[f[0] for f in FORMAT_FILES])
def test_other_formats_import_through_the_file_chooser(demo_again, name, data):
    """CSV, DOT, Mermaid and GraphML files open as graphs (a DOT or CSV file was
    refused as "Not JSON"), and so do a UTF-16 CSV and networkx's JSON with integer ids (refused
    as "not text" and "must be a non-empty string")."""
    app = demo_again
    app.page.set_input_files("#file-input", files=[{"name": name, "mimeType": "text/plain", "buffer": data}])
    app.page.wait_for_function("window.bendscope.stats().nodes === 3")
    assert app.pill("kappa") == "κ: 1"
    assert f"Imported {name}" in app.page.locator("#toast").inner_text()


def test_a_bad_file_of_another_format_is_refused_naming_its_line(app):
    before = app.api("window.bendscope.export()")
    bad = b"digraph {\n  a -> b\n  c -> ;\n}"
    app.page.set_input_files("#file-input", files=[{"name": "bad.dot", "mimeType": "text/plain", "buffer": bad}])
    toast = app.page.locator("#toast")
    toast.wait_for(state="visible")
    assert "Import refused: DOT line 3: expected a node id" in toast.inner_text()
    assert app.api("window.bendscope.export()") == before


@pytest.mark.parametrize(("item", "filename", "start"), [
    ("export-json", "bendscope.json", '{\n  "format": "bendscope"'),
    ("export-csv", "bendscope.csv", "id,text,x,y\r\n"),
    ("export-graphml", "bendscope.graphml", '<?xml version="1.0" encoding="UTF-8"?>'),
    ("export-dot", "bendscope.dot", "digraph bendscope {"),
    ("export-mermaid", "bendscope.mmd", "flowchart LR"),
])  # fmt: skip
def test_export_writes_each_format_and_it_comes_back(app_factory, item, filename, start):
    app = app_factory("seed=1&still=1")
    kappa = app.pill("kappa")
    app.page.locator("#btn-export").click()
    with app.page.expect_download() as info:
        app.page.locator(f"#menu-0 [data-item='{item}']").click()
    download = info.value
    assert download.suggested_filename == filename
    with open(download.path(), "rb") as handle:
        data = handle.read()
    assert data.decode("utf-8").startswith(start)
    nodes = app.stats()["nodes"]
    app.api('window.bendscope.load(\'{"nodes": ["x"], "edges": []}\')')
    app.page.set_input_files("#file-input", files=[{"name": filename, "mimeType": "text/plain", "buffer": data}])
    app.page.wait_for_function(f"window.bendscope.stats().nodes === {nodes}")
    expect(app.page.locator("#hud-kappa")).to_have_text(kappa)  # (the HUD follows at the next frame)

"""A new user's first hour: files as other tools write them, opened through Import… with the
mouse, and what the page offers where it cannot work."""

from __future__ import annotations

import json

from harness import AppPage

from bendscope.bend.pointer.inputs import WHEEL_GAP_MS


def import_file(app: AppPage, name: str, content: str | bytes) -> str:
    """Click Import…, choose a file named ``name`` holding ``content``: the message shown."""
    page = app.page
    app.api("document.getElementById('toast').hidden = true")  # (so the message read is this file's)
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import…").click()
    data = content.encode() if isinstance(content, str) else content
    chooser.value.set_files(files=[{"name": name, "mimeType": "application/octet-stream", "buffer": data}])
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    return toast.inner_text()


def imported(name: str) -> str:
    return f"Imported {name} in place of the graph: Undo brings that back."


def kappa_reads(app: AppPage, text: str) -> None:
    app.page.wait_for_function("t => document.getElementById('hud-kappa').textContent === t", arg=text)


def plane(app: AppPage) -> dict:
    return json.loads(app.api("window.bendscope.export()"))["planes"][0]


def test_a_spreadsheets_csv_imports_with_its_own_column_names(app_factory):
    """A sheet exported by Kumu or a spreadsheet (From, To, Type; a European sheet's semicolons;
    kinds capitalised) was refused: "a header names source and target", or a kind named by the
    page's internal path (planes[0].edges[0].props.kind)."""
    app = app_factory("seed=1&still=1")
    kumu = "From,To,Type\nSleep,Tiredness,Causal\nTiredness,Coffee,causal\nCoffee,Sleep,causal\n"
    assert import_file(app, "kumu.csv", kumu) == imported("kumu.csv")
    edges = {(e["a"], e["b"], e["props"]["kind"]) for e in plane(app)["edges"]}
    assert edges == {("Sleep", "Tiredness", "causal"), ("Tiredness", "Coffee", "causal"), ("Coffee", "Sleep", "causal")}
    kappa_reads(app, "κ: 1")
    sheet = "Source;Target;Label\nrain;flood;raises\nflood;rain;feeds\n"
    assert import_file(app, "sheet.csv", sheet) == imported("sheet.csv")
    assert sorted(e["props"].get("label") for e in plane(app)["edges"]) == ["feeds", "raises"]
    refused = import_file(app, "kinds.csv", "source,target,kind\na,b,causal\nb,a,causes\n")
    assert refused.startswith("Import refused: line 3: kind must be one of context, causal"), refused
    assert "planes[" not in refused and "'causes'" in refused
    assert len(plane(app)["edges"]) == 2, "a refused file changes nothing"


def test_a_d3_or_networkx_json_keeps_its_links_and_names(app_factory):
    """A d3 / networkx graph ({nodes, links}, nodes named by label or by id alone) came in
    with no edge at all and every card empty, and the page said "Imported"."""
    app = app_factory("seed=1&still=1")
    graph = {"directed": True, "nodes": [{"id": "prey", "label": "Prey"}, {"id": "predators", "name": "Predators"},
                                         {"id": "grass"}],
             "links": [{"source": "prey", "target": "predators"}, {"source": "predators", "target": "prey"},
                       {"source": "grass", "target": "prey"}]}  # fmt: skip
    assert import_file(app, "food.json", json.dumps(graph)) == imported("food.json")
    got = plane(app)
    assert {n["id"]: n["text"] for n in got["nodes"]} == {"prey": "Prey", "predators": "Predators", "grass": "grass"}
    assert len(got["edges"]) == 3
    kappa_reads(app, "κ: 1")


def test_an_import_says_it_replaced_the_graph_and_undo_brings_it_back(app_factory):
    """Import… put the file in place of the graph on the screen — as draw.io's Import does not:
    it adds — and said only "Imported people.csv.": a person's cards were gone without a word
    of Undo (New and Demo ask first)."""
    app = app_factory("seed=1&still=1")
    message = import_file(app, "people.csv", "source,target\nAlice,Bob\n")
    assert message == "Imported people.csv in place of the graph: Undo brings that back.", message
    assert app.stats()["nodes"] == 2
    app.page.keyboard.press("Control+z")
    app.page.wait_for_function("window.bendscope.stats().nodes === 10")


def test_a_bare_graphs_problem_is_named_as_the_file_names_it(app_factory):
    """A bare graph's problem was named by the document the page made of it — "planes[0].edges[1].a:
    must be a non-empty string" for an edge written {from, to}, a plane and an ``a`` the file
    never had. {from, to} edges are read now, and a problem is named as the file names it."""
    app = app_factory("seed=1&still=1")
    graph = {"nodes": ["rain", "flood"], "edges": [{"from": "rain", "to": "flood"}, {"from": "flood", "to": "rain"}]}
    assert import_file(app, "weather.json", json.dumps(graph)) == imported("weather.json")
    kappa_reads(app, "κ: 1")
    graph["edges"].append({"source": "rain", "target": "drought"})
    refused = import_file(app, "weather.json", json.dumps(graph))
    assert refused == "Import refused: edges[2].target: refers to node 'drought', which is not on this plane", refused
    assert app.stats()["edges"] == 2


def test_a_mermaid_flowchart_with_class_shorthand_imports(app_factory):
    """``A:::warn`` (a node's style class, as common as ``classDef``) refused the whole file:
    "expected a node id at 'A:::warn'"."""
    app = app_factory("seed=1&still=1")
    chart = ("flowchart LR\n  classDef warn fill:#f96\n  A[Stock]:::warn --> B(Flow)\n  B --> A:::warn\n"
             "  C:::warn -.-> A\n")  # fmt: skip
    assert import_file(app, "chart.mmd", chart) == imported("chart.mmd")
    got = plane(app)
    assert {n["id"]: n["text"] for n in got["nodes"]} == {"A": "Stock", "B": "Flow", "C": "C"}
    assert sorted((e["a"], e["b"], e["props"]["kind"]) for e in got["edges"]) == [
        ("A", "B", "causal"), ("B", "A", "causal"), ("C", "A", "temporal")]  # fmt: skip


def test_a_spreadsheet_or_an_image_is_refused_with_what_to_do(app_factory):
    """A spreadsheet (.xlsx) or an image chosen by mistake was refused as "not UTF-8 text (byte
    0x89 at offset 0 is not UTF-8)", and a CSV saved by a spreadsheet in its own code page by
    a byte offset: neither said what to do."""
    app = app_factory("seed=1&still=1")
    xlsx = b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00\xb5\x9d" + bytes(range(256))
    for name, data in (("people.xlsx", xlsx), ("photo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")):
        message = import_file(app, name, data)
        assert message.startswith("Import refused: The file is not text"), message
        assert "save a spreadsheet as CSV" in message
    latin = import_file(app, "cafes.csv", b"source,target\r\nParis,Caf\xe9 de Flore\r\n")
    assert "on line 2" in latin and "save it as UTF-8" in latin, latin
    assert app.stats()["nodes"] == 10, "a refused file changes nothing"


def test_the_live_page_offers_no_share_link(browser, tmp_path):
    """On the memory's live page Copy link was offered and said "Link copied… nothing is sent to
    a server", but the link led to the memory server without its token: whoever opened it got
    "this server needs its token" (401). The page offers it no more, as it offers no New,
    Demo or Import there."""
    from test_live_memory import TOKEN, live_page, mcp_calls

    from tests.memory.web.test_editor_site import _Served

    served = _Served(tmp_path / "m.sqlite3", "--token", TOKEN)
    try:
        mcp_calls(served.port, [("store_node", {"id": "a", "content": "A fact"})])
        app = live_page(browser, served)
        toolbar = app.page.locator("#toolbar")
        assert toolbar.get_by_role("button", name="Image…").is_visible()
        for name in ("Copy link", "Import…", "New", "Demo"):
            assert toolbar.get_by_role("button", name=name, exact=True).count() == 0, name
        app.guard.check(app.page)
        app.page.context.close()
    finally:
        served.stop()


def focused(app: AppPage) -> str:
    return app.api("document.activeElement.id || document.activeElement.tagName")


def tab_to(app: AppPage, element_id: str) -> None:
    """Press Tab until ``element_id`` has the focus (as a person on the keyboard alone does)."""
    for _ in range(40):
        app.page.keyboard.press("Tab")
        if focused(app) == element_id:
            return
    raise AssertionError(f"Tab never reached #{element_id}")


def test_on_the_keyboard_closing_a_menu_the_help_or_a_question_gives_the_focus_back(app_factory):
    """A toolbar menu (Export…, Image…), the help sheet opened from its ? button, or New's
    question closed with Esc put the focus on the canvas — and Tab out of a menu on the page's
    body: a person on the keyboard lost their place in the toolbar and tabbed from the start."""
    app = app_factory("seed=1&still=1")
    page = app.page
    tab_to(app, "btn-export")
    page.keyboard.press("Enter")
    page.locator("#menu-0").wait_for(state="visible")
    page.keyboard.press("Escape")
    page.locator("#menu-0").wait_for(state="detached")
    assert focused(app) == "btn-export"
    page.keyboard.press("Enter")
    page.locator("#menu-0").wait_for(state="visible")
    page.keyboard.press("Tab")  # (out of the menu: on to the next control, as from the button)
    page.locator("#menu-0").wait_for(state="detached")
    assert focused(app) == "btn-png"
    tab_to(app, "btn-help")
    page.keyboard.press("Enter")
    page.locator("#help-backdrop").wait_for(state="visible")
    page.keyboard.press("Escape")
    page.locator("#help-backdrop").wait_for(state="hidden")
    assert focused(app) == "btn-help"
    tab_to(app, "btn-new")
    page.keyboard.press("Enter")
    page.locator("#dialog-backdrop").wait_for(state="visible")
    page.keyboard.press("Escape")
    page.locator("#dialog-backdrop").wait_for(state="hidden")
    assert focused(app) == "btn-new" and app.stats()["nodes"] == 10


def test_a_trackpads_swipe_or_a_sideways_wheel_pans_and_a_pinch_zooms(app_factory):
    """A two-finger swipe on a trackpad (a wheel with a sideways part) did nothing sideways and
    zoomed by its up-and-down part: a trackpad could not pan. The mouse's wheel still zooms
    around the pointer, and so does a pinch (a wheel with Ctrl). Pan or zoom is chosen once per
    gesture: a mostly up-and-down swipe whose events had a sideways pixel by turns zoomed and
    panned by turns."""
    app = app_factory("seed=1&still=1")
    page = app.page
    page.mouse.move(640, 420)
    x0, y0 = app.node_xy("company")
    page.mouse.wheel(60, 0)
    page.wait_for_function("([x]) => window.bendscope.screen_position('company')[0] < x - 30", arg=[x0])
    x1, y1 = app.node_xy("company")
    assert abs(x1 - (x0 - 60)) < 0.05 and abs(y1 - y0) < 0.05 and app.stats()["zoom"] == 1
    page.mouse.wheel(30, 40)  # (a diagonal swipe: both ways)
    page.wait_for_function("([y]) => window.bendscope.screen_position('company')[1] < y - 20", arg=[y1])
    x2, y2 = app.node_xy("company")
    assert abs(x2 - (x1 - 30)) < 0.05 and abs(y2 - (y1 - 40)) < 0.05 and app.stats()["zoom"] == 1
    page.wait_for_timeout(WHEEL_GAP_MS + 100)  # (the swipe ends: a wheel event sooner would go on panning)
    page.mouse.wheel(0, 100)  # the mouse's wheel
    page.wait_for_function("window.bendscope.stats().zoom < 1")
    zoom = app.stats()["zoom"]
    page.mouse.wheel(1, 40)  # the same gesture with a pixel sideways (a trackpad's up-and-down swipe) still zooms
    page.wait_for_function("z => window.bendscope.stats().zoom < z", arg=zoom)
    zoom = app.stats()["zoom"]
    page.keyboard.down("Control")
    page.mouse.wheel(0, -50)  # a pinch outwards
    page.keyboard.up("Control")
    page.wait_for_function("z => window.bendscope.stats().zoom > z", arg=zoom)


def test_a_double_click_on_an_edge_edits_its_label(app_factory):
    """A double-click on an edge's line or label — how draw.io, Kumu and tldraw label an edge —
    made a new empty card on top of it; the label could only be reached by the edge's menu."""
    app = app_factory("seed=1&still=1")
    page = app.page
    (x1, y1), (x2, y2) = app.node_xy("revenue"), app.node_xy("r-and-d")
    page.mouse.dblclick(x1 + (x2 - x1) * 0.35, y1 + (y2 - y1) * 0.35)  # on the line
    field = page.locator("#dialog-input")
    field.wait_for(state="visible")
    assert field.input_value() == "funds" and app.stats()["nodes"] == 10
    page.keyboard.press("Control+a")
    page.keyboard.type("pays for")
    page.keyboard.press("Enter")
    field.wait_for(state="hidden")
    labels = {(e["a"], e["b"]): e["props"].get("label") for e in plane(app)["edges"]}
    assert labels[("revenue", "r-and-d")] == "pays for" and app.stats()["nodes"] == 10
    page.mouse.dblclick((x1 + x2) / 2, (y1 + y2) / 2)  # on its label
    field.wait_for(state="visible")
    assert field.input_value() == "pays for"
    page.keyboard.press("Escape")
    field.wait_for(state="hidden")
    page.keyboard.press("Control+z")
    page.wait_for_function("JSON.parse(window.bendscope.export()).planes[0].edges.some(e => e.props.label === 'funds')")
    assert app.stats() == {"nodes": 10, "edges": 10, "depth": 0, "zoom": 1}

"""What a person new to the editor met in a first session, with real input (mouse, keyboard,
touch): the names of the files it downloads, the connection handle after a drag-to-connect, the
view kept over a reload, the phone's first view, the HUD's explanations, the Loops panel's
words and place, the inspector's lines."""

from __future__ import annotations

import json
import time

from harness import PHONE, card_box
from test_selection_and_connect import SQUARE, interaction, load

CSV = b"source,target,kind\nrain,river,causal\nriver,sea,causal\nsea,rain,causal\n"


def _download(app, button: str, item: str) -> str:
    app.page.locator(button).click()
    with app.page.expect_download() as info:
        app.page.locator(f"#menu-0 [data-item='{item}']").click()
    return info.value.suggested_filename


def test_exports_are_named_after_the_graph_and_a_drag_to_connect_leaves_no_stale_handle(app_factory):
    """Every export was called bendscope.* whatever the graph; an imported file's name now names
    them (made safe), a graph without a name keeps bendscope. And after a drag-to-connect the
    source card's connection dot stayed drawn until the mouse moved again."""
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    assert _download(app, "#btn-export", "export-json") == "bendscope.json"
    page.set_input_files("#file-input", files=[{"name": "Water cycle.csv", "mimeType": "text/csv", "buffer": CSV}])
    page.wait_for_function("window.bendscope.stats().nodes === 3")
    assert _download(app, "#btn-export", "export-json") == "Water cycle.json"
    assert _download(app, "#btn-export", "export-mermaid") == "Water cycle.mmd"
    assert _download(app, "#btn-png", "export-svg") == "Water cycle.svg"
    with page.expect_download() as info:
        page.locator("#btn-topology").click()
    assert info.value.suggested_filename == "Water cycle-topology.json"

    load(app, SQUARE)
    dx, dy = app.node_xy("d")
    page.mouse.move(dx, dy)
    assert interaction(app)["handle"] == "d"
    _x, _y, width, _h = card_box(app, "d")
    page.mouse.move(dx + width / 2, dy)
    page.mouse.down()
    ax, ay = app.node_xy("a")
    page.mouse.move(ax, ay, steps=8)
    assert interaction(app)["link"]["target"] == "a"
    page.mouse.up()
    assert app.stats()["edges"] == 5
    state = interaction(app)
    assert state["state"] == "idle" and state["handle"] == "a", state  # (the card under the mouse)

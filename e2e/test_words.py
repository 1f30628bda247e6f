"""What the page says about κ matches what it computes, read in the page on the textbook
population diagram (Births ⇄ Population both +, Population → Deaths +, Deaths → Population −,
Food supply → Births +): the help sheet, the HUD's tooltips, the inspector of every card and
edge, the legend, every card's and edge's menu, Unbend's confirmation and the Loops panel
never say that cutting κ edges or the fault lines breaks every loop (``claims.false_claims``),
and they say what is true."""

from __future__ import annotations

import json

from claims import false_claims
from harness import NEXT_FRAME
from playwright.sync_api import expect

POPULATION = {
    "nodes": [
        {"id": "births", "text": "Births", "x": 0.0, "y": 0.0},
        {"id": "population", "text": "Population", "x": 300.0, "y": 0.0},
        {"id": "deaths", "text": "Deaths", "x": 600.0, "y": 0.0},
        {"id": "food", "text": "Food supply", "x": 0.0, "y": 220.0},
    ],
    "edges": [
        {"id": "e1", "a": "births", "b": "population", "props": {"kind": "causal", "polarity": "+"}},
        {"id": "e2", "a": "population", "b": "births", "props": {"kind": "causal", "polarity": "+"}},
        {"id": "e3", "a": "population", "b": "deaths", "props": {"kind": "causal", "polarity": "+"}},
        {"id": "e4", "a": "deaths", "b": "population", "props": {"kind": "causal", "polarity": "-"}},
        {"id": "e5", "a": "food", "b": "births", "props": {"kind": "causal", "polarity": "+"}},
    ],
}


def _text(page, selector: str) -> str:
    """The element's text as the frame after what was done shows it (frames write the panels)."""
    page.evaluate(NEXT_FRAME)
    return page.locator(selector).inner_text()


def read_everything(app) -> dict[str, list[str]]:
    """Every text the page shows about the population diagram, by surface."""
    page = app.page
    said: dict[str, list[str]] = {"help": [], "hud": [], "inspector": [], "legend": [], "menus": [], "unbend": []}
    page.locator("#btn-help").click()
    said["help"].append(_text(page, "#help-body"))
    page.keyboard.press("Escape")
    said["hud"] = [page.locator(f"#hud-{p}").get_attribute("title") or "" for p in ("kappa", "sccs", "mode")]
    for node in POPULATION["nodes"]:
        app.api(f"window.bendscope.select({node['id']!r})")
        said["inspector"].append(_text(page, "#inspector"))
        app.right_click(node["id"])
        said["menus"].append(_text(page, "#menu-0"))
        page.keyboard.press("Escape")
    for edge in POPULATION["edges"]:
        app.api(f"window.bendscope.select_edge({edge['id']!r})")
        said["inspector"].append(_text(page, "#inspector"))
        page.locator("#canvas").focus()
        page.keyboard.press("Shift+F10")
        page.locator("#menu-0").wait_for(state="visible")
        said["menus"].append(_text(page, "#menu-0"))
        page.keyboard.press("Escape")
    app.api("window.bendscope.select(['births', 'population', 'deaths'])")
    said["inspector"].append(_text(page, "#inspector"))
    app.api("window.bendscope.select([])")
    said["legend"].append(_text(page, "#legend"))
    for node_id in ("births", "population", "deaths"):
        app.api(f"window.bendscope.select({node_id!r})")
        page.locator("#canvas").focus()
        page.keyboard.press("u")
        expect(page.locator("#dialog")).to_be_visible()
        said["unbend"].append(_text(page, "#dialog-text"))
        page.keyboard.press("Escape")
    app.api("window.bendscope.select([])")
    page.locator("#btn-loops").click()
    expect(page.locator("#loops-panel button.loop")).to_have_count(2)
    said["loops"] = [_text(page, "#loops-panel")]
    page.locator("#loops-close").click()
    return said


def test_no_surface_of_the_page_says_a_kappa_cut_breaks_every_loop(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    assert app.api("t => window.bendscope.load(t)", json.dumps(POPULATION)) is None
    app.api("window.bendscope.action('fit-view')")
    app.api("window.bendscope.paint()")
    assert app.pill("kappa") == "κ: 1" and app.pill("sccs") == "SCCs: 1"
    said = read_everything(app)
    assert all(said.values()), {k: len(v) for k, v in said.items()}
    claims = {surface: [c for text in texts for c in false_claims(text)] for surface, texts in said.items()}
    assert claims == {surface: [] for surface in said}
    # the true facts
    inspector = "\n".join(said["inspector"])
    assert "κ = 1: removing 1 edge (the fault line) splits this region" in inspector
    assert "Splitting is not breaking every loop" in said["help"][0]
    assert "2 edges break every loop here (the fewest)" in inspector  # (where κ is 1)
    assert "2 edges break every loop of the plane (the fewest)" in said["loops"][0]
    assert (
        "Remove edge Population→Deaths? Deaths leaves the feedback loop; the rest stays a loop (κ: 1→1)."
        in said["unbend"]
    )
    assert any("Unbend — Cut a Fault Line" in menu for menu in said["menus"])

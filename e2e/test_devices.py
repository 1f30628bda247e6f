"""Every gesture does what it says on a touch phone: real touch input through
the browser's own touch events (CDP), at 390×844 with a touch screen."""

from __future__ import annotations

import time

import pytest
from harness import PHONE, AppPage, Finger
from playwright.sync_api import expect


def centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.fixture
def phone(app_factory) -> AppPage:
    app = app_factory("seed=1&still=1", context_args=PHONE)
    return app


def rightmost_node(phone: AppPage) -> str:
    """The node drawn furthest right on the screen (its menus have no room on the right)."""
    ids = phone.api("JSON.parse(window.bendscope.export()).planes[0].nodes.map(n => n.id)")
    width = phone.page.viewport_size["width"]
    on_screen = [(phone.node_xy(i)[0], i) for i in ids if 0 < phone.node_xy(i)[0] < width - 20]
    return max(on_screen)[1]


def node_menu_by_touch(phone: AppPage, node_id: str) -> Finger:
    finger = Finger(phone)
    x, y = phone.node_xy(node_id)
    finger.long_press(x, y)
    phone.page.locator("#menu-0").wait_for(state="visible")
    return finger


@pytest.mark.parametrize(
    ("item", "changed"),
    [
        ("merge", "window.bendscope.stats().nodes"),
        ("connect", "window.bendscope.stats().edges"),
    ],
)
def test_a_submenu_tapped_open_changes_nothing_until_its_own_row_is_tapped(phone, item, changed):
    """Tapping "Merge with…" (or "Connect to…") merged (connected) at
    once with the first candidate: the submenu opened under the finger and the same tap
    picked its first row."""
    before = phone.api(changed)
    finger = node_menu_by_touch(phone, rightmost_node(phone))
    box = phone.page.locator(f"#menu-0 [data-item='{item}']").bounding_box()
    tapped = (box["x"] + 24, box["y"] + box["height"] / 2)  # a thumb on the row's left part
    finger.tap(*tapped)
    submenu = phone.page.locator("#menu-1")
    expect(submenu).to_be_visible()
    time.sleep(0.4)
    assert phone.api(changed) == before, "the tap that opened the submenu changed the graph"
    box = submenu.bounding_box()
    inside = box["x"] <= tapped[0] <= box["x"] + box["width"] and box["y"] <= tapped[1] <= box["y"] + box["height"]
    assert not inside, "the submenu opened under the finger"
    # a deliberate tap on a row of the submenu does what it says
    first = submenu.locator("[role^='menuitem']:not([aria-disabled='true'])").first
    finger.tap(*centre(first))
    expect(phone.page.locator("#menu-0")).to_have_count(0)
    assert phone.api(changed) != before


def test_an_edge_kind_changes_only_on_a_tap_of_that_kind(phone):
    """Tapping "Kind" on an edge's menu made the edge Context at once."""
    finger = Finger(phone)
    edges = phone.api(
        "JSON.parse(window.bendscope.export()).planes[0].edges"
        ".filter(e => e.props.kind === 'causal').map(e => [e.id, e.a, e.b])"
    )
    pairs = {(a, b) for _, a, b in edges}
    one_way = [(i, a, b) for i, a, b in edges if (b, a) not in pairs]
    width = phone.page.viewport_size["width"]

    def middle(edge):
        (ax, ay), (bx, by) = phone.node_xy(edge[1]), phone.node_xy(edge[2])
        return (ax + bx) / 2, (ay + by) / 2

    # the one on the screen furthest right: its submenus have no room on the right
    edge_id, a, b = max((e for e in one_way if 0 < middle(e)[0] < width - 20), key=lambda e: middle(e)[0])
    (ax, ay), (bx, by) = phone.node_xy(a), phone.node_xy(b)
    kind = f"(JSON.parse(window.bendscope.export()).planes[0].edges.find(e => e.id === {edge_id!r}).props.kind)"
    finger.long_press((ax + bx) / 2, (ay + by) / 2)
    phone.page.locator("#menu-0").wait_for(state="visible")
    row = phone.page.locator("#menu-0 [aria-haspopup='menu']").first.bounding_box()
    finger.tap(row["x"] + 24, row["y"] + row["height"] / 2)
    expect(phone.page.locator("#menu-1")).to_be_visible()
    time.sleep(0.4)
    assert phone.api(kind) == "causal"
    finger.tap(*centre(phone.page.locator("#menu-1 [role='menuitemradio']", has_text="temporal")))
    expect(phone.page.locator("#menu-0")).to_have_count(0)
    assert phone.api(kind) == "temporal"


CONTROLS = """() => {
  const sel = '#toolbar button, #breadcrumbs button, #hud .pill, #legend-toggle, #legend, #inspector, #find-bar';
  const bar = document.getElementById('toolbar').getBoundingClientRect();
  const out = [];
  for (const e of document.querySelectorAll(sel)) {
    const st = getComputedStyle(e);
    if (e.closest('[hidden]') || st.visibility === 'hidden' || st.display === 'none') continue;
    let r = e.getBoundingClientRect();
    if (e.closest('#toolbar')) {  // a toolbar scrolled sideways shows what lies within it
      const left = Math.max(r.left, bar.left), right = Math.min(r.right, bar.right);
      if (right <= left) continue;
      r = {left: left, right: right, top: r.top, bottom: r.bottom};
    }
    if (r.right - r.left === 0 || r.bottom - r.top === 0) continue;
    out.push({id: e.id || e.textContent.trim().slice(0, 16), l: r.left, r: r.right, t: r.top, b: r.bottom});
  }
  return out;
}"""


def _clashes(app: AppPage) -> tuple[list, list]:
    """Pairs of visible controls that overlap, and controls not wholly inside the window."""
    boxes = app.api(CONTROLS)
    width, height = app.page.viewport_size["width"], app.page.viewport_size["height"]
    pairs = [
        (a["id"], b["id"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a["l"] < b["r"] - 0.5 and b["l"] < a["r"] - 0.5 and a["t"] < b["b"] - 0.5 and b["t"] < a["b"] - 0.5
    ]
    outside = [
        b["id"] for b in boxes if b["l"] < -0.5 or b["t"] < -0.5 or b["r"] > width + 0.5 or b["b"] > height + 0.5
    ]
    return pairs, outside


@pytest.mark.parametrize("size", [(390, 844), (768, 1024)])
def test_no_control_covers_another_on_small_screens(app_factory, size):
    """On a phone the breadcrumb covered Import…, the legend the HUD, the
    inspector the export buttons, and the find bar Export, Dark and ?."""
    width, height = size
    app = app_factory("seed=1&still=1", context_args={**PHONE, "viewport": {"width": width, "height": height}})
    page = app.page
    assert _clashes(app) == ([], []), "at rest"
    app.click_node("revenue")
    expect(page.locator("#inspector")).to_be_visible()
    assert _clashes(app) == ([], []), "with the inspector"
    page.keyboard.press("Control+f")
    expect(page.locator("#find-bar")).to_be_visible()
    assert _clashes(app) == ([], []), "with the find bar"
    page.keyboard.press("Escape")
    page.locator("#legend-toggle").click()
    expect(page.locator("#legend")).to_be_visible() if width <= 600 else expect(page.locator("#legend")).to_be_hidden()
    assert _clashes(app) == ([], []), "with the legend toggled"


def test_a_phone_opens_the_graph_readable_and_the_legend_collapsed(phone):
    """The opening zoom (0.34) drew every card's text as bars, and the
    legend could not be collapsed (it hid a new stargate). (0.45: GREEK_ZOOM, where card text
    is drawn as text; the demo opens whole at about 0.46.)"""
    opening = phone.stats()["zoom"]
    assert opening >= 0.45
    legend, toggle = phone.page.locator("#legend"), phone.page.locator("#legend-toggle")
    expect(legend).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    expect(legend).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    phone.page.keyboard.press("f")  # Fit still shows the whole graph (the demo was whole already)
    assert phone.stats()["zoom"] <= opening

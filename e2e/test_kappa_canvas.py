"""κ on the canvas through real input: HUD, Connect-to previews, Bend, Unbend, inspector."""

from __future__ import annotations

import json

from demo_docs import dense_document
from playwright.sync_api import expect


def item(app, item_id: str, depth: int = 0):
    return app.page.locator(f"#menu-{depth} [data-item='{item_id}'] .label")


def test_demo_hud_shows_deliberation(app_factory):
    app = app_factory("seed=1&still=1")
    assert app.pill("kappa") == "κ: 1"
    assert app.pill("sccs") == "SCCs: 1"
    assert app.pill("mode") == "mode: DELIBERATION"
    assert "deliberation" in app.page.locator("#hud-mode").get_attribute("class")


def test_unbend_confirm_then_undo(app_factory):
    app = app_factory("seed=1&still=1")
    page = app.page
    app.right_click("revenue")
    unbend = item(app, "unbend")
    expect(unbend).to_have_text("Unbend — Cut a Fault Line")
    unbend.click()
    dialog = page.locator("#dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#dialog-text")).to_have_text(
        "Remove edge Product quality→Market share? This breaks the feedback loop (κ: 1→0)."
    )
    page.locator("#dialog-ok").click()
    expect(page.locator("#hud-mode")).to_have_text("mode: RETRIEVAL")
    assert app.pill("kappa") == "κ: 0" and app.pill("sccs") == "SCCs: 0"
    assert app.stats()["edges"] == 9
    page.keyboard.press("Control+z")
    expect(page.locator("#hud-mode")).to_have_text("mode: DELIBERATION")
    assert app.stats()["edges"] == 10


def test_unbend_cancel_keeps_the_edge(app_factory):
    app = app_factory("seed=1&still=1")
    app.right_click("r-and-d")
    item(app, "unbend").click()
    app.page.keyboard.press("Escape")
    expect(app.page.locator("#dialog-backdrop")).to_be_hidden()
    assert app.stats()["edges"] == 10 and app.pill("mode") == "mode: DELIBERATION"


def test_connect_submenu_lists_previews_and_connects(app_factory):
    app = app_factory("seed=1&still=1")
    page = app.page
    app.right_click("founded-2020")
    item(app, "connect").hover()
    sub = page.locator("#menu-1 [role='menuitem']")
    sub.first.wait_for(state="visible")
    *labels, hint, kind_row = sub.all_inner_texts()
    assert labels and all(label.startswith("→ ") and "(κ: " in label for label in labels)
    assert hint == "Type to search the whole plane"
    assert kind_row.startswith("New edge kind: causal")
    loop = [label for label in labels if "Company" in label]
    assert loop == ["→ Company (κ: 0→1 — creates feedback loop)"]
    assert "tone-kappa" in page.locator("#menu-1 [role='menuitem']", has_text="Company").get_attribute("class")
    assert any("— no change)" in label for label in labels)
    page.locator("#menu-1 [role='menuitem']", has_text="Company").click()
    expect(page.locator("#hud-sccs")).to_have_text("SCCs: 2")
    assert app.stats()["edges"] == 11


def test_connect_to_makes_an_edge_of_the_kind_chosen_there(app_factory):
    """Connect to… always made a causal edge. Its last row opens the kinds;
    choosing one keeps Connect to… open with previews for that kind, and the edge made is of
    that kind."""
    app = app_factory("seed=1&still=1")
    page = app.page
    app.right_click("founded-2020")
    item(app, "connect").click()
    page.locator("#menu-1 [data-item='connect-kind']").click()
    page.locator("#menu-2 [data-item='connect-kind-associative']").click()
    expect(page.locator("#menu-1 [data-item='connect-kind']")).to_contain_text("New edge kind: associative")
    company = page.locator("#menu-1 [role='menuitem']", has_text="Company")
    expect(company).to_contain_text("no change")  # (a causal edge here would close a loop)
    company.click()
    expect(page.locator("#menu-0")).to_have_count(0)
    made = app.api(
        "JSON.parse(window.bendscope.export()).planes[0].edges"
        ".filter(e => e.a === 'founded-2020' && e.b === 'company').map(e => e.props.kind)"
    )
    assert made == ["associative"] and app.pill("mode") == "mode: DELIBERATION"
    assert app.stats()["edges"] == 11


def test_connect_from_the_keyboard(app_factory):
    app = app_factory("seed=1&still=1")
    page = app.page
    app.click_node("hq-austin")
    page.keyboard.press("c")  # opens the node menu with Connect to… expanded
    focused = page.locator("#menu-1 [role='menuitem']:focus")
    expect(focused).to_have_count(1)
    assert focused.inner_text().startswith("→ ")
    page.keyboard.press("Enter")
    assert app.stats()["edges"] == 11
    page.keyboard.press("Control+z")
    assert app.stats()["edges"] == 10
    page.keyboard.press("Shift+F10")
    expect(page.locator("#menu-0")).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    expect(page.locator("#menu-0")).to_have_count(0)


def test_bend_on_dag_node_creates_loop(app_factory):
    app = app_factory("seed=1&still=1")
    app.right_click("founded-2020")
    bend = item(app, "bend")
    expect(bend).to_have_text("Bend → Company (κ: 0→1 — creates feedback loop)")
    bend.click()
    expect(app.page.locator("#hud-sccs")).to_have_text("SCCs: 2")
    app.page.keyboard.press("Control+z")
    expect(app.page.locator("#hud-sccs")).to_have_text("SCCs: 1")


def test_bend_greyed_where_no_loop_is_possible(app_factory):
    app = app_factory("seed=1&still=1")
    app.right_click("ceo-alice")
    bend = item(app, "bend")
    expect(bend).to_have_text("No feedback loop possible nearby")
    assert app.page.locator("#menu-0 [data-item='bend']").get_attribute("aria-disabled") == "true"
    bend.click()
    assert app.stats()["edges"] == 10


def test_inspector_and_edge_menu_show_kappa(app_factory):
    app = app_factory("seed=1&still=1")
    page = app.page
    app.click_node("revenue")
    expect(page.locator("#inspector")).to_contain_text("in loop region 1 (")
    expect(page.locator("#inspector")).to_contain_text("κ = 1: removing 1 edge (the fault line) splits this region")
    (px, py), (mx, my) = app.node_xy("product-quality"), app.node_xy("market-share")
    page.mouse.click((px + mx) / 2, (py + my) / 2, button="right")
    expect(item(app, "fault-info")).to_have_text("Fault line: its region's weakest cut")
    page.keyboard.press("Escape")
    expect(page.locator("#inspector")).to_contain_text("fault line")


def test_export_topology_matches_api(app_factory):
    app = app_factory("seed=1&still=1")
    with app.page.expect_download() as info:
        app.page.locator("#btn-topology").click()
    path = info.value.path()
    with open(path, encoding="utf-8") as handle:
        exported = json.loads(handle.read())
    names = exported.pop("names")  # the file names each node by its text too
    assert exported == json.loads(app.api("window.bendscope.topology()"))
    assert names["market-share"] == "# Market share Share of the segment we win."
    assert set(names) == {n for scc in exported["sccs"] for n in scc["nodes"]} | set(exported["dag_nodes"])


def test_a_dense_loop_is_computed_in_slices_while_the_hud_says_so(app_factory):
    """κ of a large dense component is computed in slices between frames: meanwhile the HUD
    says so and the previous topology stays on the canvas; then the exact κ appears."""
    app = app_factory("seed=1&fresh=1")
    page = app.page
    assert app.api("t => window.bendscope.load(t)", dense_document(300, 20_000)) is None
    expect(page.locator("#hud-kappa")).to_have_text("κ: computing…")
    expect(page.locator("#hud-sccs")).to_have_text("SCCs: …")
    expect(page.locator("#hud-kappa")).not_to_have_text("κ: computing…", timeout=60_000)
    state = app.api("window.bendscope.topology_state()")
    assert state["pending"] is False and state["slices"] > 3
    expected = json.loads(app.api("window.bendscope.topology()"))
    (scc,) = expected["sccs"]
    assert not scc["approximate"] and app.pill("kappa") == f"κ: {scc['kappa']}" and scc["kappa"] > 1  # (exact)
    assert app.pill("kappa") != f"κ: {len(scc['nodes'])}"  # never the region's size
    assert app.pill("sccs") == "SCCs: 1"
    # an edit: the old κ is kept (marked as being computed) until the new one is ready
    app.api("window.bendscope.action('delete-edge', {edge_id: 'e0'})")
    expect(page.locator("#hud-kappa")).to_have_text("κ: computing…")
    expect(page.locator("#hud-kappa")).not_to_have_text("κ: computing…", timeout=60_000)
    assert json.loads(app.api("window.bendscope.topology()"))["scc_count"] == 1


def test_one_loop_region_is_one_halo_on_the_canvas_after_arrange(app_factory):
    """After Arrange a large loop region (60 cards in one row) was drawn as several separate
    boxes: the band of the arc that closes the loop across the row was left out, and the
    halo's tree had no other way round."""
    app = app_factory("seed=1&still=1&fresh=1")
    n = 60
    nodes = [{"id": f"n{k}", "text": f"card {k}"} for k in range(n)] + [
        {"id": f"x{k}", "text": f"side {k}"} for k in range(0, n, 3)
    ]
    edges = [{"source": f"n{k}", "target": f"n{(k + 1) % n}", "kind": "causal"} for k in range(n)]
    edges += [{"source": f"n{k}", "target": f"x{k}", "kind": "causal"} for k in range(0, n, 3)]
    assert app.api("d => window.bendscope.load(d)", json.dumps({"nodes": nodes, "edges": edges})) is None
    app.api("window.bendscope.settle()")
    app.page.locator("#btn-arrange").click()
    app.page.wait_for_function("!window.bendscope.layout_state().arranging", timeout=60_000)
    app.page.wait_for_function("JSON.parse(window.bendscope.export()).planes[0].nodes.every(c => c.pinned)")
    app.api("window.bendscope.paint()")
    halos = json.loads(app.api("window.bendscope.drawn_halos()"))
    centres = {k: app.node_xy(f"n{k}") for k in range(n)}
    assert len(halos["boxes"]) == n  # every card of the region is in view, in its halo

    def card_at(x: float, y: float) -> int:
        k = min(centres, key=lambda c: (centres[c][0] - x) ** 2 + (centres[c][1] - y) ** 2)
        assert abs(centres[k][0] - x) < 1 and abs(centres[k][1] - y) < 1, (x, y)
        return k

    parent = list(range(n))

    def root(k: int) -> int:
        while parent[k] != k:
            k = parent[k]
        return k

    for q in halos["bands"]:  # each band runs from one card's centre to another's
        start = card_at((q[0] + q[6]) / 2, (q[1] + q[7]) / 2)
        end = card_at((q[2] + q[4]) / 2, (q[3] + q[5]) / 2)
        parent[root(start)] = root(end)
    assert len({root(k) for k in range(n)}) == 1, "the halo is in pieces"


#: the page's last whole frame drawn again with its halos alone (``bands``: with their bands, or
#: without) into a canvas of the page's size; of the members' centres, the ones joined to the
#: first through pixels that are not the background (4-neighbours), and the bands' device width
HALOS_ALONE = """(bands) => {
  const S = window.bendscopeScene, g0 = S.geometry, d0 = S.draw, cap = {};
  S.geometry = function (plan, xy, view) {
    cap.plan = plan; cap.xy = Float64Array.from(xy); cap.view = view;
    return g0(plan, xy, view);
  };
  S.draw = function (ctx, plan, g, env) { if (ctx.canvas.isConnected) cap.env = env; return d0(ctx, plan, g, env); };
  try { window.bendscope.paint(); } finally { S.geometry = g0; S.draw = d0; }
  const {plan, xy, env} = cap, W = Math.round(env.width * env.dpr), H = Math.round(env.height * env.dpr);
  const canvas = document.createElement('canvas'); canvas.width = W; canvas.height = H;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = env.background; ctx.fillRect(0, 0, W, H);
  const g = S.geometry(plan, xy, cap.view);
  if (!bands) for (const layer of g.halos) layer.quads = [];
  S.draw(ctx, plan, g, Object.assign({}, env, {skip: {edges: 1, arrows: 1, labels: 1, cards: 1}}));
  const data = ctx.getImageData(0, 0, W, H).data, bg = [data[0], data[1], data[2]];
  const ink = (p) => Math.abs(data[4 * p] - bg[0]) + Math.abs(data[4 * p + 1] - bg[1])
    + Math.abs(data[4 * p + 2] - bg[2]) > 6;
  const members = plan.halos[0].members, at = (i) => {
    const x = Math.round(env.dpr * (env.width / 2 + (xy[2 * i] - env.cx) * env.zoom));
    const y = Math.round(env.dpr * (env.height / 2 + (xy[2 * i + 1] - env.cy) * env.zoom));
    return y * W + x;
  };
  const seen = new Uint8Array(W * H), stack = [at(members[0])];
  seen[stack[0]] = 1;
  while (stack.length) {
    const p = stack.pop(), x = p % W;
    for (const q of [x > 0 ? p - 1 : -1, x < W - 1 ? p + 1 : -1, p - W, p + W]) {
      if (q >= 0 && q < W * H && !seen[q] && ink(q)) { seen[q] = 1; stack.push(q); }
    }
  }
  return {joined: Array.from(members).filter((i) => seen[at(i)]).length, members: members.length,
          width: 2 * plan.c.haloBand * env.zoom * env.dpr, lod: g.lod};
}"""


def test_far_out_a_loop_region_still_reads_as_one_halo(app_factory):
    """Far out (a 2,000-card graph fitted is at zoom ≈ 0.06) a halo's bands are drawn as a few
    hairlines instead of filled polygons: its cards, far apart, are still joined into one shape
    by them on the canvas, never separate boxes."""
    app = app_factory("seed=1&still=1&fresh=1")
    corners = [(0, 0), (3000, 0), (3000, 2000), (0, 2000), (1500, 4000)]
    nodes = [{"id": f"n{k}", "text": f"card {k}", "pinned": True, "x": x, "y": y} for k, (x, y) in enumerate(corners)]
    ring = [(k, (k + 1) % 4) for k in range(4)] + [(2, 4), (4, 3)]
    edges = [{"id": f"e{j}", "a": f"n{a}", "b": f"n{b}", "props": {"kind": "causal"}} for j, (a, b) in enumerate(ring)]
    plane = {"id": "p", "name": "Far", "parentPlaneId": None, "parentNodeId": None, "nodes": nodes, "edges": edges}
    doc = {"format": "bendscope", "version": 1, "rootPlaneId": "p", "planes": [plane]}
    assert app.api("t => window.bendscope.load(t)", json.dumps(doc)) is None
    app.api("window.bendscope.action('fit-view')")
    while app.stats()["zoom"] > 0.07:
        app.api("window.bendscope.action('zoom-out')")
    drawn = app.api(HALOS_ALONE, True)
    assert drawn["lod"] == "far" and drawn["width"] <= 3, drawn  # (thin bands: the hairlines' case)
    assert drawn["members"] == 5 and drawn["joined"] == 5, drawn  # one shape
    apart = app.api(HALOS_ALONE, False)
    assert apart["joined"] == 1, apart  # (without its bands the cards' boxes are apart: the bands join them)

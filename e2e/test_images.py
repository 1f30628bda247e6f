"""Images, from the page: Image… makes an SVG (every card and edge, text as text,
the legend) and PNGs of the whole plane (or the selection) at 1×, 2× and 4× with the legend,
lowering the scale with a message when the image would be too large."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ElementTree

from PIL import Image

SVG = "{http://www.w3.org/2000/svg}"


def _download(app, item: str) -> tuple[str, bytes]:
    app.page.locator("#btn-png").click()
    with app.page.expect_download() as info:
        app.page.locator(f"#menu-0 [data-item='{item}']").click()
    download = info.value
    with open(download.path(), "rb") as handle:
        return download.suggested_filename, handle.read()


def _ids(root: ElementTree.Element, attribute: str) -> set[str]:
    return {g.get(attribute) for g in root.iter(f"{SVG}g") if g.get(attribute)}


def test_svg_of_the_plane_and_of_the_selection(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    doc = json.loads(app.api("window.bendscope.export()"))
    plane = doc["planes"][0]
    name, data = _download(app, "export-svg")
    assert name == "bendscope.svg"
    root = ElementTree.fromstring(data)
    assert _ids(root, "data-node") == {n["id"] for n in plane["nodes"]}
    assert _ids(root, "data-edge") == {e["id"] for e in plane["edges"] if e["a"] != e["b"]}
    legend = [t.text for t in root.find(f"{SVG}g[@id='legend']").iter(f"{SVG}text")]
    assert legend[0] == "Legend" and "causal →" in legend and "feedback loop, κ=1" in legend
    words = [t.text for t in root.iter(f"{SVG}text")]
    assert "Revenue" in words and "κ=1" in words
    # two or more cards selected: the image is of them
    app.api("window.bendscope.select(['revenue', 'r-and-d', 'market-share'])")
    _, data = _download(app, "export-svg")
    assert _ids(ElementTree.fromstring(data), "data-node") == {"revenue", "r-and-d", "market-share"}


def test_png_of_the_whole_plane_at_two_times_with_its_legend(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    x, y, width, height, graph = app.api("window.bendscope.image_box()")
    name, data = _download(app, "export-png-2x")
    assert name == "bendscope.png"
    image = Image.open(io.BytesIO(data)).convert("L")
    assert image.size == (round(width * 2), round(height * 2))
    strip = image.crop((0, round(graph * 2) + 4, image.size[0], image.size[1]))
    assert strip.getextrema()[0] < 120  # the legend's words are there
    # every card is drawn: the middle of each card is the card's white, not the background
    for node in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]:
        left, top, _w, h = app.api(f"window.bendscope.world_box({node['id']!r})")
        assert image.getpixel((round((left + 5 - x) * 2), round((top + h / 2 + 8 - y) * 2))) > 250, node["id"]
    _, one = _download(app, "export-png")
    assert Image.open(io.BytesIO(one)).size == (round(width), round(height))


def test_a_huge_png_is_made_smaller_and_says_so(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    nodes = [{"id": f"n{i}", "text": f"card {i}", "x": (i % 100) * 220.0, "y": (i // 100) * 150.0} for i in range(2000)]
    edges = [{"source": f"n{i}", "target": f"n{i + 1}"} for i in range(1999)]
    assert app.api("t => window.bendscope.load(t)", json.dumps({"nodes": nodes, "edges": edges})) is None
    app.api("window.bendscope.paint()")
    _, _, width, _height, _ = app.api("window.bendscope.image_box()")
    _, data = _download(app, "export-png-4x")
    size = Image.open(io.BytesIO(data)).size
    assert max(size) <= 16_384 and size[0] * size[1] <= 40_000_000 and size[0] < width * 4
    assert "The image is made at" in app.page.locator("#toast").inner_text()


def test_the_image_has_every_cards_text_whatever_the_screen_shows(app_factory):
    """A review found that the PNG's painter chose which cards get their text by the screen's
    camera — zoomed far out (boxes only) or panned away, cards came out blank."""
    app = app_factory("seed=1&still=1&fresh=1")
    for _ in range(14):
        app.api("window.bendscope.action('zoom-out')")
    assert app.api("JSON.parse(window.bendscope.export()).planes[0].camera.zoom") < 0.2  # (far: boxes only)
    x, y, _, _, _ = app.api("window.bendscope.image_box()")
    _, data = _download(app, "export-png")
    image = Image.open(io.BytesIO(data)).convert("L")
    for node_id in ("revenue", "market-share", "company"):
        left, top, w, h = app.api(f"window.bendscope.world_box({node_id!r})")
        card = image.crop((round(left + 6 - x), round(top + 16 - y), round(left + w - 6 - x), round(top + h - 4 - y)))
        assert card.getextrema()[0] < 110, node_id  # (dark text inside the card)

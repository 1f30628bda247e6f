"""A large document comes in between frames: meanwhile the page keeps the document it had —
whole, exported as it was — and refuses edits and undo by hand with a message; then the new
document is there whole, and editable by hand."""

from __future__ import annotations

import json
import sys

from harness import ROOT

from bendscope.bend.kappa_view.outline import WRITE_STEP

sys.path.insert(0, str(ROOT / "bench"))
from graphs import giant_scc_document

#: a point of the canvas at least 40 px from every card (screen px), or None
EMPTY_SPOT = """() => {
  const b = window.bendscope, plane = JSON.parse(b.export()).planes[0];
  const boxes = plane.nodes.map(n => b.card_box(n.id));
  for (let y = 160; y < 700; y += 20) for (let x = 80; x < 1200; x += 20) {
    if (boxes.every(([l, t, w, h]) => x < l - 40 || x > l + w + 40 || y < t - 40 || y > t + h + 40)) return [x, y];
  }
  return null;
}"""


def nodes_of(app) -> dict[str, str]:
    plane = json.loads(app.api("window.bendscope.export()"))["planes"][0]
    return {n["id"]: n["text"] for n in plane["nodes"]}


def structure(app) -> tuple:
    """The document as the layout does not change it: its cards' ids and texts, its edges."""
    doc = json.loads(app.api("window.bendscope.export()"))
    return tuple(
        (
            p["id"],
            sorted((n["id"], n["text"]) for n in p["nodes"]),
            sorted((e["id"], e["a"], e["b"]) for e in p["edges"]),
        )
        for p in doc["planes"]
    )


def add_card_by_hand(app, text: str) -> None:
    spot = app.api(EMPTY_SPOT)
    assert spot is not None
    app.page.mouse.dblclick(*spot)
    app.page.keyboard.type(text)
    app.page.keyboard.press("Control+Enter")


def test_a_large_document_comes_in_whole_and_is_editable_by_hand(app_factory):
    app = app_factory("seed=1&fresh=1")
    page = app.page
    add_card_by_hand(app, "Mine")
    before = structure(app)
    assert "Mine" in nodes_of(app).values()
    doc = giant_scc_document(1000)
    text = json.dumps(doc)
    assert len(text) >= 100_000  # (read between frames)
    app.api("window.bendscope.hold_load(true)")
    app.api("t => { window.__loaded = window.bendscope.load(t); }", text)
    assert app.api("window.bendscope.layout_state().loading")
    # meanwhile, by hand: a new card and Undo are refused with the message; the page's
    # document is the one it had, whole
    spot = app.api(EMPTY_SPOT)
    assert spot is not None
    page.mouse.dblclick(*spot)
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    assert "still loading" in toast.inner_text()
    page.keyboard.press("Escape")
    page.mouse.click(*spot)
    page.keyboard.press("Control+z")
    assert structure(app) == before
    assert app.api("window.bendscope.layout_state().loading")
    app.api("window.bendscope.hold_load(false)")
    assert app.api("async () => await window.__loaded") is None
    assert not app.api("window.bendscope.layout_state().loading")
    loaded = json.loads(app.api("window.bendscope.export()"))["planes"][0]
    assert sorted(n["id"] for n in loaded["nodes"]) == sorted(n["id"] for n in doc["nodes"])
    assert sorted((e["a"], e["b"]) for e in loaded["edges"]) == sorted((e["source"], e["target"]) for e in doc["edges"])
    assert {n["text"] for n in loaded["nodes"]} == {n["text"] for n in doc["nodes"]}
    # then editable by hand: a new card, and Undo takes it back
    app.api("window.bendscope.action('fit-view')")
    add_card_by_hand(app, "After")
    assert "After" in nodes_of(app).values() and len(nodes_of(app)) == 1001
    page.keyboard.press("Escape")
    for _ in range(3):
        if len(nodes_of(app)) == 1000:
            break
        page.keyboard.press("Control+z")
    assert sorted(nodes_of(app)) == sorted(n["id"] for n in doc["nodes"])


def test_a_large_file_imported_comes_in_whole_and_undo_brings_the_graph_before_back(app_factory):
    app = app_factory("seed=1&fresh=1")
    page = app.page
    before = structure(app)
    bad = giant_scc_document(1000)
    bad["nodes"][500]["id"] = "n1"  # (a duplicate id, found only halfway through)
    data = json.dumps(bad).encode()
    assert len(data) >= 100_000
    page.set_input_files("#file-input", files=[{"name": "big.json", "mimeType": "application/json", "buffer": data}])
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    page.wait_for_function("document.getElementById('toast').innerText.includes('Import refused')")
    assert "duplicate node id" in toast.inner_text()
    assert structure(app) == before
    doc = giant_scc_document(1000)
    data = json.dumps(doc).encode()
    page.set_input_files("#file-input", files=[{"name": "big.json", "mimeType": "application/json", "buffer": data}])
    page.wait_for_function("document.getElementById('toast').innerText.includes('Imported big.json')")
    assert sorted(nodes_of(app)) == sorted(n["id"] for n in doc["nodes"])
    page.mouse.click(*app.api(EMPTY_SPOT))
    page.keyboard.press("Control+z")
    assert structure(app) == before


def test_a_load_at_once_replaces_a_large_one_coming_in(app_factory):
    """The latest load wins: the large one's promise says it was replaced, nothing of it stays."""
    app = app_factory("seed=1&fresh=1")
    app.api("window.bendscope.hold_load(true)")
    app.api("t => { window.__loaded = window.bendscope.load(t); }", json.dumps(giant_scc_document(1000)))
    small = {"nodes": ["a", "b"], "edges": [{"source": "a", "target": "b"}]}
    assert app.api("t => window.bendscope.load(t)", json.dumps(small)) is None
    assert app.api("async () => await window.__loaded") == "Another load replaced this one."
    app.api("window.bendscope.hold_load(false)")
    assert sorted(nodes_of(app)) == ["a", "b"]
    assert not app.api("window.bendscope.layout_state().loading")


def test_a_large_plane_s_outline_is_built_once_its_cards_rest_and_words_the_state_then(app_factory):
    """(The page lays out a full outline's lines for tens of milliseconds: on a plane of more
    cards than it lists, the rebuild waits for the layout to rest instead of holding a frame
    of the cards coming apart. What it words at rest is what a build at once words.)"""
    app = app_factory("seed=1&fresh=1")
    page = app.page
    page.wait_for_function("JSON.parse(window.bendscope.outline_state()).builds > 0")  # (the first document's)
    before = json.loads(app.api("window.bendscope.outline_state()"))
    assert before["shown"] == before["now"]
    page.evaluate(OUTLINE_WRITES)
    start = app.api("performance.now()")
    assert app.api("async t => await window.bendscope.load(t)", json.dumps(giant_scc_document(1000))) is None
    assert app.api("window.bendscope.layout_active()")  # (the new cards come apart)
    page.wait_for_function("!window.bendscope.layout_active()", timeout=90_000)
    moved_ms = app.api("performance.now()") - start
    page.wait_for_function(
        "JSON.parse(window.bendscope.outline_state()).shown[0].startsWith('1000 cards')", timeout=10_000
    )
    after = json.loads(app.api("window.bendscope.outline_state()"))
    assert after["shown"] == after["now"]
    assert len(after["shown"][2]) == 201  # (200 cards listed, and how many more)
    assert after["builds"] == before["builds"] + 1
    if moved_ms < 4_000:  # (a layout longer than the wait's bound gets its outline meanwhile)
        assert after["built_moving"] == before["built_moving"]
    # written a few lines a task, the summary last: never a whole outline laid out in one frame
    writes = page.evaluate("window.__outlineWrites")
    assert len(writes) >= 5, writes
    assert max(writes) <= WRITE_STEP + 1, writes
    assert page.evaluate("document.getElementById('outline').getAttribute('aria-busy')") == "false"


#: record how many changes each task makes to the outline's lists and summary
OUTLINE_WRITES = """() => {
  window.__outlineWrites = [];
  new MutationObserver(records => window.__outlineWrites.push(records.length)).observe(
    document.getElementById('outline'), {childList: true, subtree: true, characterData: true});
}"""

#: load a document through the API: whether the call gave a promise, the cards the page
#: shows when it returns and when it is kept, the frames painted in between, what it was kept with
LOAD_WATCHED = """async t => {
  const b = window.bendscope, cards = () => JSON.parse(b.export()).planes[0].nodes.length;
  let frames = 0, on = true;
  const tick = () => { if (on) { frames++; requestAnimationFrame(tick); } };
  requestAnimationFrame(tick);
  const before = cards();
  const result = b.load(t);
  const promised = result instanceof Promise, atReturn = cards(), framesAtReturn = frames;
  const error = await result;
  on = false;
  return {promised, before, atReturn, framesAtReturn, frames, error, after: cards()};
}"""


def test_a_compact_document_of_1000_cards_comes_in_between_frames_in_every_format(app_factory):
    """(A compact file is far shorter than a verbose JSON of as many cards: it is read in
    slices all the same, the page painting frames meanwhile; a small one still at once.)"""
    app = app_factory("seed=1&fresh=1")
    n = 1_000
    ids = [f"n{i}" for i in range(n)]
    edges = [(f"n{i % n}", f"n{(7 * i + 1) % n}") for i in range(2 * n)]
    texts = {
        "json": json.dumps({"nodes": ids, "edges": [{"source": a, "target": b} for a, b in edges]}),
        "csv": "source,target\n" + "".join(f"{a},{b}\n" for a, b in edges),
        "mermaid": "flowchart LR\n" + "".join(f"  {a} --> {b}\n" for a, b in edges),
    }
    for fmt, text in texts.items():
        assert len(text) < 100_000, fmt
        shown = len(nodes_of(app))
        seen = app.api(LOAD_WATCHED, text)
        assert seen["promised"] and seen["error"] is None, (fmt, seen)
        assert seen["atReturn"] == seen["before"] == shown  # (nothing of it yet when the call returns)
        assert seen["frames"] > seen["framesAtReturn"]  # (frames painted while it came in)
        assert seen["after"] == n
    small = app.api(LOAD_WATCHED, "source,target\na,b\nb,c\n")
    assert not small["promised"] and small["atReturn"] == small["after"] == 3 and small["error"] is None


#: each frame, whether a document is still being read (``loading`` and not yet read whole: its
#: install is the next slice)
WATCH_READING = """() => {
  const w = window.__reading = {reading: 0, on: true};
  const tick = () => {
    const s = window.bendscope.layout_state();
    if (s.loading && !s.read) w.reading++;
    if (w.on) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


def import_through_the_chooser(app, name: str, data: bytes, expect: str) -> int:
    """Import ``data`` as ``name`` with the Import… button and the file chooser, until the
    message says ``expect``; how many frames saw it still being read."""
    page = app.page
    app.api(WATCH_READING)
    with page.expect_file_chooser() as chooser:
        page.click("#btn-import")
    chooser.value.set_files(files=[{"name": name, "mimeType": "text/plain", "buffer": data}])
    page.wait_for_function(f"document.getElementById('toast').innerText.includes({expect!r})", timeout=120_000)
    return app.api("(() => { window.__reading.on = false; return window.__reading.reading; })()")


def test_a_3000_card_dot_and_csv_come_in_between_frames_through_the_chooser(app_factory):
    """Through the Import… button: a DOT file of 3,000 cards with a group statement
    ``{60 cards} -> {60 cards}`` (3,600 edges, read in one step before) and a CSV file of 3,000
    cards with quoted multi-line texts are read over many frames and come in whole; the same DOT
    file with a fault in its last line is refused with the reader's message, nothing changed.
    (How long the page's tasks are meanwhile is the benchmarks' to say: docs/benchmarks.)"""
    from awkward_files import csv_multiline
    from shape_graphs import as_format, held_out_document

    group = " ".join(f"n{i}" for i in range(60)), " ".join(f"n{i}" for i in range(60, 120))
    dot = as_format(held_out_document(3_000), "dot").rstrip().removesuffix("}")
    dot += f"  {{{group[0]}}} -> {{{group[1]}}} [kind=temporal];\n}}\n"
    app = app_factory("seed=1&fresh=1")
    before = structure(app)
    bad = dot.replace("[kind=temporal];\n}", '[kind=temporal, polarity="up"];\n}')
    frames = import_through_the_chooser(app, "late.dot", bad.encode(), "Import refused")
    assert frames > 10
    assert "polarity must be + or -, got 'up'" in app.page.locator("#toast").inner_text()
    assert structure(app) == before
    for name, text in (("groups.dot", dot), ("texts.csv", csv_multiline(3_000))):
        frames = import_through_the_chooser(app, name, text.encode(), f"Imported {name}")
        assert frames > 10, name  # (read over many frames)
        assert app.api("window.bendscope.stats().nodes") == 3_000


#: the zooms of the frames the page painted since ``t0`` (performance.now())
ZOOMS_SINCE = "t0 => JSON.parse(window.bendscope.frame_log()).filter(f => f.at >= t0).map(f => f.zoom)"


def test_the_first_frame_of_a_large_document_is_drawn_in_the_view_its_waiter_sets(app_factory):
    """(A document coming in is installed in a slice of its own and whoever waits for it —
    Import, or the API's caller — is told in the next task; the page asks for the first frame
    of it only after that, so the frame is drawn in the view the waiter sets — fitted — and
    never first at the document's own camera and then again. Three loads: the old order drew
    that extra frame on most loads, as the browser's next frame and the waiter's task raced.)"""
    app = app_factory("seed=1&fresh=1")
    page = app.page
    doc = giant_scc_document(1000)
    text = json.dumps(doc)
    for way in ("api", "import", "api"):
        for _ in range(2):
            app.api("window.bendscope.action('zoom-in')")
        before = app.stats()["zoom"]
        t0 = app.api("performance.now()")
        if way == "api":
            app.api("async t => { await window.bendscope.load(t); window.bendscope.action('fit-view'); }", text)
        else:
            data = text.encode()
            page.set_input_files(
                "#file-input", files=[{"name": "big.json", "mimeType": "application/json", "buffer": data}]
            )
            page.wait_for_function("document.getElementById('toast').innerText.includes('Imported big.json')")
        page.wait_for_function(f"JSON.parse(window.bendscope.frame_log()).filter(f => f.at >= {t0}).length >= 10")
        fitted = app.stats()["zoom"]
        zooms = app.api(ZOOMS_SINCE, t0)

        def near(zoom: float, other: float) -> bool:  # (stats() gives the zoom rounded)
            return abs(zoom - other) <= 0.05 * other

        assert near(zooms[-1], fitted) and not near(fitted, before) and not near(1.0, before)
        # every frame in the view before the load or in the fitted one: none at the document's own camera (1)
        assert all(near(z, before) or near(z, fitted) for z in zooms), (way, zooms[:5])


def test_no_frame_runs_a_slice_of_the_first_kappa_of_a_large_document(app_factory):
    """(The κ of a document just installed runs in slices between frames alone: a frame before
    it is shown draws the pending topology and runs no step of it — one step of a large loop
    region's computation can be longer than a frame.)"""
    app = app_factory("seed=1&fresh=1")
    before = app.api("window.bendscope.layout_state().kappa_shown_steps")
    app.api("async t => { await window.bendscope.load(t); window.bendscope.action('fit-view'); }",
            json.dumps(giant_scc_document(2000)))  # fmt: skip
    app.page.wait_for_function("!window.bendscope.layout_active()", timeout=120_000)
    assert "κ" in app.page.locator("#hud").inner_text()
    assert app.api("window.bendscope.layout_state().kappa_shown_steps") == before


def test_the_first_frame_of_a_large_document_only_draws_its_plan_sent_in_a_slice_before(app_factory):
    """(A document coming in has its scene plan — cards, edges, flags — sent in a slice of its
    own after the install's, before its waiter is told: the first frame showing it sends none of
    it, and only draws. The plan and the whole draw were one task, the longest of a load.)"""
    app = app_factory("seed=1&fresh=1")
    page = app.page
    t0 = app.api("performance.now()")
    data = json.dumps(giant_scc_document(1000)).encode()
    page.set_input_files("#file-input", files=[{"name": "big.json", "mimeType": "application/json", "buffer": data}])
    page.wait_for_function("document.getElementById('toast').innerText.includes('Imported big.json')")
    page.wait_for_function(f"JSON.parse(window.bendscope.frame_log()).filter(f => f.at >= {t0}).length >= 5")
    fitted = app.stats()["zoom"]
    frames = [f for f in json.loads(app.api("window.bendscope.frame_log()")) if f["at"] >= t0]
    first = next(f for f in frames if abs(f["zoom"] - fitted) <= 0.05 * fitted)  # (the new document's first)
    plans = [start for start, _, what in json.loads(app.api("window.bendscope.task_log()")) if what == "plan"]
    assert not {"setNodes", "setEdges", "setArt"} & set(first["plan"]), first["plan"]
    assert [start for start in plans if start >= t0 and start < first["at"]], plans
    # and the frame that first shows its κ: the halos' trees and plan sent in a task before it
    page.wait_for_function("!window.bendscope.topology_state().pending", timeout=60_000)
    page.wait_for_function(f"JSON.parse(window.bendscope.task_log()).some(t => t[0] >= {t0} && t[2] == 'halos')")
    halos = next(
        start
        for start, _, what in json.loads(app.api("window.bendscope.task_log()"))
        if start >= t0 and what == "halos"
    )
    page.wait_for_function(f"JSON.parse(window.bendscope.frame_log()).some(f => f.at > {halos})")
    shown = next(f for f in json.loads(app.api("window.bendscope.frame_log()")) if f["at"] > halos)
    assert not {"setHalos", "setFlags"} & set(shown["plan"]), shown["plan"]


def test_no_python_collection_runs_from_a_large_load_until_its_layout_rests(app_factory):
    """(Python's cycle collector is held while a large document comes in and its layout runs,
    as during a gesture, and runs once at rest in a task of its own: an automatic collection
    took 8–14 ms inside a 12 ms slice of the load.)"""
    app = app_factory("seed=1&fresh=1")
    page = app.page
    t0 = app.api("performance.now()")
    app.api("async t => { await window.bendscope.load(t); window.bendscope.action('fit-view'); }",
            json.dumps(giant_scc_document(1000)))  # fmt: skip
    assert app.api("window.bendscope.patch_state()")["collector"]["held"]
    page.wait_for_function("!window.bendscope.layout_active()", timeout=120_000)
    page.wait_for_function("!window.bendscope.patch_state().collector.held", timeout=10_000)
    log = [t for t in json.loads(app.api("window.bendscope.task_log()")) if t[0] >= t0]
    collect = next(start for start, _, what in log if what == "collect")  # (once, at rest)
    assert [(start, what) for start, _, what in log if start < collect and what.startswith("gc")] == []

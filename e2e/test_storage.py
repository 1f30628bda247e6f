"""Autosave in the browser: IndexedDB, reloads, damaged and newer-version saves, a full
quota, two tabs, and saves of earlier versions in localStorage. Nothing is ever lost."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from harness import AppPage, new_context, open_page
from playwright.sync_api import Browser, BrowserContext, expect

QUERY = "seed=4&still=1"


def idb_get(app: AppPage, key: str) -> str | None:
    return app.api("k => window.bendscopeStorage.get(k)", key)


def idb_put(app: AppPage, key: str, value: str) -> None:
    app.api("([k, v]) => window.bendscopeStorage.putMany({[k]: v})", [key, value])


def status(app: AppPage) -> dict:
    return json.loads(app.api("window.bendscope.save_status()"))


def save_now(app: AppPage) -> bool:
    return bool(app.api("window.bendscope.save_now()"))


def copies(app: AppPage) -> list[dict]:
    return json.loads(app.api("window.bendscope.saved_copies()"))


def add_node(app: AppPage, text: str, x: float = 0, y: float = 0) -> str:
    node_id = app.api("([x, y]) => window.bendscope.action('new-node', {x: x, y: y})", [x, y])
    app.api("([n, t]) => window.bendscope.action('edit-text', {node_id: n}, {text: t})", [node_id, text])
    return node_id


def node_texts(app: AppPage) -> set[str]:
    data = json.loads(app.api("window.bendscope.export()"))
    return {n["text"] for plane in data["planes"] for n in plane["nodes"]}


@pytest.fixture
def context(browser: Browser, base_url: str) -> Iterator[Callable[[], BrowserContext]]:
    """Contexts whose pages share storage, closed after the test (pages checked by their guard)."""
    made: list[tuple[BrowserContext, list[AppPage]]] = []

    def make() -> BrowserContext:
        ctx = new_context(browser)
        made.append((ctx, []))
        return ctx

    yield make
    for ctx, _ in made:
        for page in ctx.pages:
            assert page.locator(".py-error").count() == 0
        ctx.close()


def test_reload_restores_the_autosaved_graph_from_indexeddb(app_factory):
    app = app_factory(QUERY)
    page = app.page
    page.mouse.dblclick(60, 620)
    page.keyboard.type("remember me")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("JSON.parse(window.bendscope.save_status()).saves > 0", timeout=10_000)
    assert status(app)["store"] == "IndexedDB"
    assert app.api("localStorage.length") == 0
    saved = app.api("window.bendscope.export()")
    app.reload()
    assert json.loads(app.api("window.bendscope.export()")) == json.loads(saved)
    assert app.stats()["nodes"] == 11


def test_a_damaged_save_is_kept_aside_and_the_snapshot_is_restored(app_factory):
    app = app_factory(QUERY)
    add_node(app, "first")
    assert save_now(app)
    first = idb_get(app, "bendscope:document")
    add_node(app, "second", 300, 300)
    assert save_now(app)
    idb_put(app, "bendscope:document", "{broken")
    app.reload()
    assert json.loads(app.api("window.bendscope.export()"))["planes"] == json.loads(first)["planes"]
    toast = app.page.locator("#toast").inner_text()
    assert "could not be read" in toast and "Saved copies" in toast
    (copy,) = copies(app)
    assert copy["reason"] == "unreadable" and idb_get(app, copy["key"]) == "{broken"
    # later edits never touch the copy, and the snapshot slot only ever holds a readable save
    for i in range(2):
        add_node(app, f"later {i}", 50 * i, -200)
        assert save_now(app)
    assert idb_get(app, copy["key"]) == "{broken"
    for slot in ("bendscope:document", "bendscope:document:previous"):
        assert json.loads(idb_get(app, slot))["format"] == "bendscope"
    app.reload()
    assert "later 1" in node_texts(app)


def test_a_newer_version_save_is_kept_and_can_be_downloaded(app_factory):
    app = app_factory(QUERY)
    newer = json.loads(app.api("window.bendscope.export()"))
    newer["version"] = 2
    newer_text = json.dumps(newer)
    idb_put(app, "bendscope:document", newer_text)
    app.reload()
    assert "newer Bendscope" in app.page.locator("#toast").inner_text()
    for i in range(2):
        add_node(app, f"edit {i}")
        assert save_now(app)
    (copy,) = copies(app)
    assert copy["reason"] == "newer-version" and idb_get(app, copy["key"]) == newer_text
    button = app.page.locator("#btn-copies")
    expect(button).to_be_visible()
    button.click()
    row = app.page.locator("#copies-list li")
    expect(row).to_have_count(1)
    assert "newer Bendscope" in row.inner_text()
    with app.page.expect_download() as info:
        row.get_by_role("button", name="Download").click()
    path = info.value.path()
    assert path is not None
    with open(path, encoding="utf-8") as handle:
        assert handle.read() == newer_text
    app.page.keyboard.press("Escape")


def test_a_full_quota_never_loses_the_last_good_save(app_factory):
    app = app_factory(QUERY)
    add_node(app, "good save")
    assert save_now(app)
    app.api("window.bendscopeStorage.failWrites('QuotaExceededError')")
    add_node(app, "lost edit", 200, 0)
    assert save_now(app) is False
    banner = app.page.locator("#save-banner")
    expect(banner).to_be_visible()
    assert "storage for this site is full" in banner.inner_text()
    expect(app.page.locator("#save-banner-export")).to_be_visible()
    app.page.wait_for_timeout(1000)  # the banner stays (it is not a toast)
    expect(banner).to_be_visible()
    app.reload()
    texts = node_texts(app)
    assert "good save" in texts and "lost edit" not in texts


def test_a_20000_node_graph_survives_a_reload(app_factory):
    app = app_factory(QUERY)
    nodes = [
        {
            "id": f"n{i}",
            "text": f"# Node {i}\nwith a line of notes, long enough to make a big save",
            "x": (i % 200) * 220.0,
            "y": (i // 200) * 120.0,
        }
        for i in range(20_000)
    ]
    edges = [{"source": f"n{i}", "target": f"n{i + 1}", "kind": "causal"} for i in range(0, 19_999, 2)]
    assert app.api("t => window.bendscope.load(t)", json.dumps({"nodes": nodes, "edges": edges})) is None
    assert save_now(app)
    assert len(idb_get(app, "bendscope:document")) > 5_300_000  # more than localStorage holds (5 M characters)
    app.reload()
    assert app.stats()["nodes"] == 20_000 and app.stats()["edges"] == 10_000


def test_the_second_tab_knows_and_can_take_over(context, base_url):
    ctx = context()
    first = open_page(ctx, base_url, QUERY)
    add_node(first, "from the first tab")
    assert save_now(first)
    second = open_page(ctx, base_url, QUERY)
    assert status(first)["owner"] and not status(second)["owner"]
    banner = second.page.locator("#save-banner")
    expect(banner).to_be_visible()
    assert "open in another tab" in banner.inner_text()
    assert "from the first tab" in node_texts(second)
    add_node(first, "first again", 200, 200)  # the first tab keeps saving
    second.page.locator("#save-banner-takeover").click()
    second.page.wait_for_function("JSON.parse(window.bendscope.save_status()).owner", timeout=10_000)
    assert "first again" in node_texts(second)  # it continues from the latest save
    expect(banner).to_be_hidden()
    expect(first.page.locator("#save-banner")).to_be_visible()
    assert "taken over by another tab" in first.page.locator("#save-banner").inner_text()
    assert not status(first)["owner"]
    add_node(first, "not saved", -300, 0)
    assert save_now(first) is False
    add_node(second, "from the second tab", 400, 0)
    assert save_now(second)
    saved = idb_get(second, "bendscope:document")
    assert "from the second tab" in saved and "not saved" not in saved
    for app in (first, second):
        app.guard.check(app.page)


def test_taking_over_with_local_edits_keeps_the_other_graph_as_a_copy(context, base_url):
    ctx = context()
    first = open_page(ctx, base_url, QUERY)
    add_node(first, "theirs")
    assert save_now(first)
    theirs = idb_get(first, "bendscope:document")
    second = open_page(ctx, base_url, QUERY)
    add_node(second, "mine, unsaved")
    second.page.locator("#save-banner-takeover").click()
    second.page.wait_for_function("JSON.parse(window.bendscope.save_status()).owner", timeout=10_000)
    assert save_now(second) or idb_get(second, "bendscope:document") != theirs
    assert "mine, unsaved" in idb_get(second, "bendscope:document")
    replaced = [c for c in copies(second) if c["reason"] == "replaced"]
    assert len(replaced) == 1 and idb_get(second, replaced[0]["key"]) == theirs
    for app in (first, second):
        app.guard.check(app.page)


def test_closing_the_owner_tab_hands_the_save_to_the_other(context, base_url):
    ctx = context()
    first = open_page(ctx, base_url, QUERY)
    second = open_page(ctx, base_url, QUERY)
    assert not status(second)["owner"]
    first.page.close()
    second.page.wait_for_function("JSON.parse(window.bendscope.save_status()).owner", timeout=10_000)
    add_node(second, "now mine")
    save_now(second)  # (False when the hand-over's own save, under way, already wrote it: both are fine)
    assert "now mine" in idb_get(second, "bendscope:document")
    second.guard.check(second.page)


def test_saves_of_earlier_versions_move_from_localstorage(app_factory):
    app = app_factory(QUERY)
    old = json.loads(app.api("window.bendscope.export()"))
    old["planes"][0]["nodes"][0]["text"] = "# From localStorage"
    app.api("t => localStorage.setItem('bendscope:document', t)", json.dumps(old))
    app.reload()
    assert "# From localStorage" in node_texts(app)
    assert app.api("localStorage.getItem('bendscope:document')") is None
    assert "From localStorage" in idb_get(app, "bendscope:document")


def test_a_fresh_demo_never_overwrites_a_save(app_factory):
    app = app_factory(QUERY)
    precious = app.api("window.bendscope.export()").replace("Market share", "Precious")
    idb_put(app, "bendscope:document", precious)
    app.page.wait_for_timeout(900)
    assert idb_get(app, "bendscope:document") == precious

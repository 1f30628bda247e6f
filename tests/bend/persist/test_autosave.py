"""Autosave and restore: debounced, never overwrites a save with an unedited graph,
keeps a readable snapshot, moves unreadable and newer-version saves aside, survives a
full store, and writes only from the tab that owns the save."""

from __future__ import annotations

import asyncio
import itertools
import json

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.document import document_to_data
from bendscope.bend.model.elements import empty_document
from bendscope.bend.persist import autosave


def run(coro):
    return asyncio.run(coro)


def saver_for(editor: Editor, store: autosave.MemoryStore, debounce_ms: float = 0.0) -> autosave.Saver:
    ticks = itertools.count(1)
    return autosave.Saver(editor, store, clock=lambda: f"2026-11-30 10:00:{next(ticks):02d}", debounce_ms=debounce_ms)


def texts(editor: Editor) -> set[str]:
    return {n.text for n in editor.plane.nodes.values()}


def test_fresh_graph_never_overwrites_a_saved_one():
    store = autosave.MemoryStore()
    store.data[autosave.KEY] = "saved"
    editor = Editor()
    editor.replace_document(empty_document())
    saver = saver_for(editor, store)
    assert saver.due(0) is False and saver.due(10_000) is False
    assert run(saver.save()) is False
    assert store.data == {autosave.KEY: "saved"}


def test_debounced_save_and_readable_snapshot():
    store = autosave.MemoryStore()
    editor = Editor()
    editor.replace_document(demo_document())
    saver = saver_for(editor, store, debounce_ms=500)
    editor.add_node(0, 0, "one")
    assert saver.due(1000) is False  # change seen, waiting
    assert saver.due(1400) is False
    assert saver.due(1501) is True
    assert run(saver.save()) is True
    first = store.data[autosave.KEY]
    editor.add_node(10, 10, "two")
    assert run(saver.save()) is True
    assert store.data[autosave.PREVIOUS_KEY] == first
    assert store.data[autosave.KEY] == editor.export(indent=None)
    assert run(saver.save()) is False  # nothing new


def saved_text(*extra: str) -> str:
    editor = Editor(demo_document())
    for text in extra:
        editor.add_node(0, 0, text)
    return editor.export(indent=None)


def test_restore_prefers_the_save_then_the_snapshot():
    store = autosave.MemoryStore()
    editor = Editor()
    saver = saver_for(editor, store)
    restored = run(saver.restore())
    assert restored.doc is None and restored.notes == []
    good = saved_text("x")
    store.data[autosave.KEY] = good
    restored = run(saver.restore())
    assert restored.source == autosave.KEY and restored.notes == []
    assert Editor(restored.doc).export(indent=None) == good  # sizes are derived again from the text


def test_an_unreadable_save_is_moved_aside_and_the_snapshot_is_never_lost():
    """The old code rotated the unreadable save into the snapshot slot on the next edit."""
    store = autosave.MemoryStore()
    good = saved_text("good")
    store.data[autosave.PREVIOUS_KEY] = good
    store.data[autosave.KEY] = '{"broken": '
    editor = Editor()
    saver = saver_for(editor, store)
    restored = run(saver.restore())
    assert restored.source == autosave.PREVIOUS_KEY
    assert any("could not be read" in n for n in restored.notes)
    (copy,) = run(saver.copies())
    assert copy.reason == "unreadable" and run(saver.read_copy(copy.key)) == '{"broken": '
    editor.replace_document(restored.doc)
    for i in range(3):  # several edits and saves later
        editor.add_node(i, i, f"edit {i}")
        assert run(saver.save())
    assert store.data[copy.key] == '{"broken": '  # the copy is untouched
    assert "edit 1" in store.data[autosave.PREVIOUS_KEY]  # the snapshot is a readable save
    for slot in (autosave.KEY, autosave.PREVIOUS_KEY):
        assert json.loads(store.data[slot])["format"] == "bendscope"


def test_a_newer_version_save_is_kept_and_never_overwritten():
    store = autosave.MemoryStore()
    data = document_to_data(demo_document())
    data["version"] = 2
    newer = json.dumps(data)
    store.data[autosave.KEY] = newer
    editor = Editor()
    saver = saver_for(editor, store)
    restored = run(saver.restore())
    assert restored.doc is None and "newer Bendscope" in restored.notes[0]
    editor.replace_document(demo_document())
    editor.add_node(0, 0, "mine")
    editor.add_node(0, 0, "mine too")
    assert run(saver.save())
    editor.add_node(0, 0, "third")
    assert run(saver.save())
    (copy,) = run(saver.copies())
    assert copy.reason == "newer-version" and store.data[copy.key] == newer
    assert "newer Bendscope" in copy.label


def test_a_full_store_keeps_the_last_good_save_and_reports_until_a_save_succeeds():
    store = autosave.MemoryStore()
    editor = Editor(demo_document())
    saver = saver_for(editor, store)
    editor.add_node(0, 0, "kept")
    assert run(saver.save())
    good = store.data[autosave.KEY]
    store.quota = len(good) * 2 + 10  # room for the save and its snapshot, not for a bigger one
    editor.set_text(editor.selection[0], "x" * 5000)
    assert run(saver.save()) is False
    assert "storage for this site is full" in saver.error and "last good save is kept" in saver.error
    assert store.data[autosave.KEY] == good  # all or nothing: the good save is intact
    restored = run(saver_for(Editor(), store).restore())
    assert "kept" in {n.text for n in restored.doc.root.nodes.values()}
    store.quota = None
    assert run(saver.save()) and saver.error is None


def test_only_the_owner_writes_and_a_take_over_continues_from_the_latest_save():
    store = autosave.MemoryStore()
    first, second = Editor(demo_document()), Editor(demo_document())
    a, b = saver_for(first, store), saver_for(second, store)
    b.resign()  # the second tab found the save owned by the first
    first.add_node(0, 0, "from A")
    second.replace_document(demo_document())  # B has not edited
    assert run(a.save())
    assert run(b.save()) is False
    a.resign()
    doc = run(b.take_over())
    assert doc is not None and "from A" in {n.text for n in doc.root.nodes.values()}


def test_a_take_over_with_local_edits_keeps_the_other_graph_as_a_copy():
    store = autosave.MemoryStore()
    first, second = Editor(demo_document()), Editor(demo_document())
    a, b = saver_for(first, store), saver_for(second, store)
    b.resign()
    first.add_node(0, 0, "from A")
    assert run(a.save())
    theirs = store.data[autosave.KEY]
    second.add_node(0, 0, "from B")  # edited while not the owner: not saved
    assert run(b.save()) is False
    a.resign()
    assert run(b.take_over()) is None  # keeps its own graph
    assert run(b.save())
    assert "from B" in store.data[autosave.KEY]
    (copy,) = run(b.copies())
    assert copy.reason == "replaced" and store.data[copy.key] == theirs


def test_copies_are_never_overwritten_even_with_the_same_timestamp():
    store = autosave.MemoryStore()
    editor = Editor()
    saver = autosave.Saver(editor, store, clock=lambda: "2026-11-30 10:00:00")
    for broken in ("{1", "{2"):
        store.data[autosave.KEY] = broken
        run(saver.restore())
    assert sorted(store.data[c.key] for c in run(saver.copies())) == ["{1", "{2"]
    for copy in run(saver.copies()):
        run(saver.delete_copy(copy.key))
    assert run(saver.copies()) == []


def test_when_a_copy_cannot_be_written_autosave_stays_off():
    store = autosave.MemoryStore()
    store.data[autosave.KEY] = "garbage"
    store.fail_writes = True
    editor = Editor()
    saver = saver_for(editor, store)
    restored = run(saver.restore())
    assert saver.blocked and "autosave is off" in restored.notes[0]
    store.fail_writes = False
    editor.replace_document(demo_document())
    editor.add_node(0, 0, "x")
    assert saver.due(10_000) is False and run(saver.save()) is False
    assert store.data[autosave.KEY] == "garbage"


def test_a_save_written_by_another_tab_is_kept_not_rotated_away():
    """Without Web Locks both tabs write: the other tab's save used to vanish after two saves."""
    store = autosave.MemoryStore()
    first, second = Editor(), Editor()
    a, b = saver_for(first, store), saver_for(second, store)
    run(a.restore())
    run(b.restore())
    first.add_node(0, 0, "A's work")
    assert run(a.save())
    for text in ("B1", "B2"):
        second.add_node(0, 0, text)
        assert run(b.save())
    kept = [c for c in run(b.copies()) if c.reason == "replaced"]
    assert len(kept) == 1 and "A's work" in store.data[kept[0].key]


def test_a_failed_write_never_piles_up_copies():
    """The copy and the save are one write: when the save does not fit, neither is written."""
    store = autosave.MemoryStore()
    other = Editor(demo_document())
    other.add_node(0, 0, "theirs")
    store.data[autosave.KEY] = other.export(indent=None)
    editor = Editor()
    saver = saver_for(editor, store)
    saver.resign()
    run(saver.restore())
    editor.add_node(0, 0, "mine " * 3000)
    store.quota = 2 * len(store.data[autosave.KEY]) + 1000
    run(saver.take_over())
    for _ in range(3):
        assert run(saver.save()) is False
        assert run(saver.copies()) == []
    store.quota = None
    assert run(saver.save()) and len(run(saver.copies())) == 1


def test_a_save_larger_than_a_document_may_be_is_never_written():
    store = autosave.MemoryStore()
    editor = Editor(demo_document())
    saver = saver_for(editor, store)
    editor.add_node(0, 0, "ok")
    assert run(saver.save())
    good = store.data[autosave.KEY]
    editor.export = lambda indent=None: "x" * (11 * 1024 * 1024)  # type: ignore[method-assign]
    editor.add_node(0, 0, "more")
    assert run(saver.save()) is False and "more than a save may hold" in saver.error
    assert store.data[autosave.KEY] == good


def test_the_document_in_pieces_is_byte_for_byte_the_export():
    from bendscope.bend.model.document import serialize_document, serialized_pieces

    editor = Editor(demo_document())
    editor.add_node(10.0, 20.0, 'quotes " and \\\\ and ünïcödé and 🙂')
    editor.go_to_plane(editor.plane.id)
    for doc in (editor.doc, Editor().doc):
        assert "".join(serialized_pieces(doc)) == serialize_document(doc)


def test_a_sliced_save_pauses_and_gives_up_when_the_document_changes_meanwhile():
    """The page builds a large save's text in slices with pauses between them (frames go on);
    an edit during a pause makes that save give up (the text would mix two documents), the
    next one tries again, and after two misses a save is made in one go."""
    import asyncio

    from bendscope.bend.persist.autosave import KEY, MemoryStore, Saver

    editor = Editor(demo_document())
    for i in range(300):
        editor.add_node(float(i), 0.0, f"card {i}")
    pauses: list[int] = []
    store = MemoryStore()
    clock = iter(range(0, 10**9, 5))  # every reading is 5 ms later: a pause every 64 pieces

    async def pause() -> None:
        pauses.append(1)

    saver = Saver(editor, store, clock=lambda: "now", pause=pause, timer=lambda: float(next(clock)))
    editor.add_node(2.0, 2.0, "an edit to save")
    assert asyncio.run(saver.save()) is True
    assert pauses and store.data[KEY] == editor.export(indent=None)

    async def edit_during_pause() -> None:
        editor.add_node(0.0, 0.0, "meanwhile")

    saver.pause = edit_during_pause
    editor.add_node(1.0, 1.0, "dirty")
    assert asyncio.run(saver.save()) is False and saver.dirty  # given up, nothing half written
    assert store.data[KEY] != editor.export(indent=None)
    assert asyncio.run(saver.save()) is False  # the second miss
    assert asyncio.run(saver.save()) is True  # then in one go
    assert store.data[KEY] == editor.export(indent=None)


def test_a_save_asked_for_while_another_is_under_way_waits_for_it_then_writes():
    import asyncio

    from bendscope.bend.persist.autosave import KEY, MemoryStore, Saver

    editor = Editor(demo_document())
    store = MemoryStore()
    gate = asyncio.Event()

    async def pause() -> None:
        await gate.wait()

    saver = Saver(editor, store, clock=lambda: "now", pause=pause, timer=iter(range(0, 10**9, 50)).__next__)
    for i in range(200):
        editor.add_node(float(i), 0.0, f"card {i}")

    async def both() -> tuple[bool, bool]:
        first = asyncio.ensure_future(saver.save())  # pauses in its first slice
        await asyncio.sleep(0)
        second = asyncio.ensure_future(saver.save())
        await asyncio.sleep(0.02)
        gate.set()
        return await first, await second

    first, second = asyncio.run(both())
    assert first is True and second is False  # the second found nothing left to write
    assert store.data[KEY] == editor.export(indent=None) and not saver.dirty


def test_a_sliced_save_holds_the_positions_of_one_moment():
    """Review finding: the layout moves cards during a save's pauses (not an edit), and the
    saved document held positions of several frames. The save now writes one snapshot."""
    import asyncio

    from bendscope.bend.persist.autosave import KEY, MemoryStore, Saver

    editor = Editor(demo_document())
    store = MemoryStore()
    clock = iter(range(0, 10**9, 5))

    async def layout_moves_everything() -> None:
        for node in editor.plane.nodes.values():
            node.x += 1000.0

    saver = Saver(editor, store, clock=lambda: "now", pause=layout_moves_everything, timer=lambda: float(next(clock)))
    for i in range(300):
        editor.add_node(float(i), 0.0, f"card {i}")
    expected = {n.id: n.x for n in editor.plane.nodes.values()}
    assert asyncio.run(saver.save()) is True
    saved = json.loads(store.data[KEY])["planes"][0]["nodes"]
    assert {n["id"]: n["x"] for n in saved} == expected


def test_a_shared_link_never_overwrites_the_visitors_own_graph():
    """A graph opened from a link is saved as the current graph only after the
    visitor's own saved graph is kept as a saved copy (in the same write)."""
    from bendscope.bend.persist.share import read_fragment, share_fragment

    store = autosave.MemoryStore()
    editor = Editor(demo_document())
    saver = saver_for(editor, store)
    editor.add_node(0, 0, "mine")
    assert run(saver.save())
    own = store.data[autosave.KEY]
    shared = read_fragment(share_fragment(json.dumps({"nodes": ["rain", "flood"], "edges": []})))
    assert editor.load(shared, label="Open shared link") is None
    saver.keep_aside_before_next_save("shared-link")
    assert saver.flush_items() is None  # (leaving the page now writes nothing: the copy needs a read)
    assert run(saver.save())
    (copy,) = run(saver.copies())
    assert copy.reason == "shared-link" and store.data[copy.key] == own
    assert "was your graph when a shared link opened another" in copy.label
    assert texts(editor) == {"rain", "flood"} and "rain" in store.data[autosave.KEY]
    editor.add_node(5, 5, "more")
    assert run(saver.save()) and len(run(saver.copies())) == 1  # (once: later saves keep a snapshot)


def test_a_link_opened_while_a_save_is_under_way_still_keeps_the_visitors_graph():
    """A save that had built the visitor's graph and was waiting on the
    store when a link opened another graph used to take the link's keep-aside for itself,
    moving an older save aside, writing the visitor's graph as current and clearing the
    reason — so the next save put the visitor's graph only in the snapshot, and the save
    after that lost it."""
    from bendscope.bend.persist.share import read_fragment, share_fragment

    editor = Editor(demo_document())

    class Racing(autosave.MemoryStore):
        armed = False

        async def get(self, key):
            if self.armed and key == autosave.KEY:
                self.armed = False  # the link opens while this save awaits the store
                shared = read_fragment(share_fragment(json.dumps({"nodes": ["rain", "flood"], "edges": []})))
                assert editor.load(shared, label="Open shared link") is None
                saver.keep_aside_before_next_save("shared-link")
            return await super().get(key)

    store = Racing()
    saver = saver_for(editor, store)
    editor.add_node(0, 0, "first")
    assert run(saver.save())
    editor.add_node(0, 0, "mine, later")
    mine = editor.export(indent=None)
    store.armed = True
    assert run(saver.save())  # writes the visitor's graph (its text was built before the link)
    assert store.data[autosave.KEY] == mine
    assert run(saver.save())  # the link's graph: the visitor's is kept aside first
    (copy,) = run(saver.copies())
    assert copy.reason == "shared-link" and store.data[copy.key] == mine
    assert "rain" in store.data[autosave.KEY]
    for _ in range(2):
        editor.add_node(5, 5, "more")
        assert run(saver.save())
    assert store.data[copy.key] == mine  # (never overwritten)


def test_a_save_waits_while_the_layout_moves_cards_and_not_longer_than_the_hold():
    """(A graph just loaded comes apart: the save's slices would sit between the layout's
    frames, so it waits for the rest — or ``HOLD_MS`` more at most.)"""
    from bendscope.bend.persist.autosave import HOLD_MS

    editor = Editor()
    saver = autosave.Saver(editor, autosave.MemoryStore(), clock=lambda: "t", debounce_ms=500)
    editor.add_node(0, 0, "x")
    assert saver.due(1000, moving=True) is False  # (the change seen at 1000)
    assert saver.due(1600, moving=True) is False and saver.due(1000 + 500 + HOLD_MS - 1, moving=True) is False
    assert saver.due(1000 + 500 + HOLD_MS, moving=True) is True
    assert saver.due(1600, moving=False) is True  # (at rest: the debounce alone)

"""Autosave: debounced, never overwrites with an unedited graph, keeps the previous snapshot."""

from __future__ import annotations

from bend import persist
from bend.demo import demo_document
from bend.editor import Editor
from bend.model import empty_document


def test_fresh_graph_never_overwrites_a_saved_one():
    store = persist.MemoryStore()
    store.set(persist.KEY, "saved")
    editor = Editor(empty_document())
    editor.replace_document(empty_document())
    saver = persist.Autosave(editor, store)
    assert saver.poll(0) is False and saver.poll(10_000) is False
    assert saver.save() is False
    assert store.get(persist.KEY) == "saved"


def test_debounced_save_and_previous_snapshot():
    store = persist.MemoryStore()
    editor = Editor()
    editor.replace_document(demo_document())
    saver = persist.Autosave(editor, store, debounce_ms=500)
    editor.add_node(0, 0, "one")
    assert saver.poll(1000) is False  # change seen, waiting
    assert saver.poll(1400) is False
    assert saver.poll(1501) is True
    first = store.get(persist.KEY)
    editor.add_node(10, 10, "two")
    saver.poll(2000)
    assert saver.poll(2600) is True
    assert store.get(persist.PREVIOUS_KEY) == first
    assert store.get(persist.KEY) == editor.export(indent=None)


def test_restore_prefers_main_then_previous():
    store = persist.MemoryStore()
    assert persist.restore(store) == (None, None)
    editor = Editor(demo_document())
    editor.add_node(0, 0, "x")
    good = editor.export(indent=None)
    store.set(persist.KEY, good)
    doc, message = persist.restore(store)
    assert message is None and "x" in [n.text for n in doc.root.nodes.values()]
    store.set(persist.PREVIOUS_KEY, good)
    store.set(persist.KEY, '{"broken": ')
    doc, message = persist.restore(store)
    assert doc is not None and "before it" in message
    assert Editor(doc).export(indent=None) == good  # sizes are derived again from the text
    store.set(persist.PREVIOUS_KEY, "also broken")
    doc, message = persist.restore(store)
    assert doc is None and "could not be read" in message
    assert store.get(persist.KEY) == '{"broken": '  # kept untouched


def test_failed_write_reports_and_retries():
    store = persist.MemoryStore()
    editor = Editor(demo_document())
    saver = persist.Autosave(editor, store, debounce_ms=0)
    editor.add_node(0, 0)
    store.fail_writes = True
    assert saver.save() is False and "quota" in saver.error
    store.fail_writes = False
    assert saver.save() is True and saver.error is None

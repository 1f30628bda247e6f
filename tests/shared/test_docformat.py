"""The document format module both faces read: the editor core builds its model from
its records, the agent memory reads documents with it, and neither face imports the other."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.model.document import parse_document, serialize_document
from bendscope.bend.model.elements import EDGE_KINDS, MAX_TEXT
from bendscope.memory.core import records
from bendscope.memory.io.documents import from_document
from bendscope.shared import docformat
from bendscope.shared.docformat import DocumentError, read_document

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "py" / "bendscope"


def _imports(path: Path) -> list[str]:
    """Absolute module names a file imports (relative imports resolved inside bendscope)."""
    names = []
    package = ".".join(path.relative_to(ROOT / "py").with_suffix("").parts[:-1])
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                names.append(".".join([*base, node.module] if node.module else base))
            else:
                names.append(node.module or "")
    return names


@pytest.mark.parametrize(("face", "other"), [("memory", "bend"), ("bend", "memory"), ("kappa", "bend")])
def test_faces_do_not_import_each_other(face: str, other: str) -> None:
    for path in sorted((PACKAGE / face).rglob("*.py")):
        for name in _imports(path):
            assert not name.startswith(f"bendscope.{other}"), f"{path.relative_to(ROOT)} imports {name}"


def test_the_format_module_reads_only_the_standard_library() -> None:
    for name in _imports(PACKAGE / "shared" / "docformat.py"):
        assert (
            name.split(".")[0] in {"__future__", "collections", "json", "math", "re", "typing"}
            or name == "bendscope.shared.jsonsafe"
        ), name


def test_reading_a_document_into_the_memory_loads_no_editor_module() -> None:
    doc = {"nodes": [{"id": "a", "text": "Rain"}, {"id": "b", "text": "Wet streets"}]}
    doc["edges"] = [{"source": "a", "target": "b"}]
    code = (
        "import sys, json; from bendscope.memory.io.documents import from_document; "
        f"nodes, edges = from_document({json.dumps(json.dumps(doc))}, now='2026-12-01T00:00:00.000Z'); "
        "print(len(nodes), len(edges), sorted(m for m in sys.modules if m.startswith('bendscope.bend')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={"PYTHONPATH": str(ROOT / "py")}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "1", "[]"]


def test_the_memory_and_the_editor_share_the_vocabulary_and_limits() -> None:
    assert set(records.EDGE_TYPES) == set(EDGE_KINDS) == set(docformat.EDGE_KINDS)
    assert records.MAX_CONTENT == MAX_TEXT == docformat.MAX_TEXT
    assert records.MAX_ID == docformat.MAX_ID


def test_both_faces_refuse_a_document_with_the_same_message() -> None:
    bad = json.dumps({"nodes": [{"id": "a"}], "edges": [{"source": "a", "target": "ghost"}]})
    with pytest.raises(DocumentError) as editor:
        parse_document(bad)
    with pytest.raises(Exception) as memory:
        from_document(bad, now="2026-12-01T00:00:00.000Z")
    assert str(editor.value) == "edges[0].target: refers to node 'ghost', which is not on this plane"
    assert str(memory.value).endswith(str(editor.value))


texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(texts, st.floats(-1e6, 1e6), st.booleans()), min_size=1, max_size=8),
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.sampled_from(docformat.EDGE_KINDS)), max_size=10),
)
def test_records_match_the_model_built_from_them(cards: list, links: list) -> None:
    raw = {
        "nodes": [{"id": f"n{i}", "text": t, "x": x, "y": -x, "pinned": p} for i, (t, x, p) in enumerate(cards)],
        "edges": [
            {"id": f"e{j}", "source": f"n{a % len(cards)}", "target": f"n{b % len(cards)}", "kind": k}
            for j, (a, b, k) in enumerate(links)
        ],
    }
    record = read_document(json.dumps(raw))
    doc = parse_document(json.dumps(raw))
    (plane,) = record.planes
    model = doc.planes[plane.id]
    assert [(c.id, c.text, c.x, c.y, c.pinned) for c in plane.nodes] == [
        (n.id, n.text, n.x, n.y, n.pinned) for n in model.nodes.values()
    ]
    assert [(e.id, e.a, e.b, e.kind, e.strength) for e in plane.edges] == [
        (e.id, e.a, e.b, e.props.kind, e.props.strength) for e in model.edges.values()
    ]
    # what the editor writes, the format reads back to the same records
    again = read_document(serialize_document(doc))
    assert [c[:3] for c in again.planes[0].nodes] == [c[:3] for c in plane.nodes]
    assert again.planes[0].edges == plane.edges


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(_JSON)
def test_reading_json_in_steps_pauses_twice_and_gives_what_json_gives(value) -> None:
    """(A page reads a large document between its frames: the strings set aside, the nesting
    counted and the parse are three steps, not one that holds a frame.)"""
    from bendscope.shared.jsonsafe import loads_steps

    text = json.dumps(value)
    steps = loads_steps(text, max_depth=64, max_digits=100)
    assert next(steps) is None and next(steps) is None
    with pytest.raises(StopIteration) as done:
        next(steps)
    assert done.value.value == json.loads(text)


@pytest.mark.parametrize("text", ["[" * 70 + "]" * 70, "[1" + "0" * 200 + "]", "[NaN]", '{"a": 1', '"\\"[[[['])
def test_reading_json_in_steps_refuses_what_reading_it_at_once_refuses(text: str) -> None:
    from bendscope.shared.jsonsafe import Refused, loads, loads_steps

    with pytest.raises(Refused) as at_once:
        loads(text, max_depth=64, max_digits=100)
    steps = loads_steps(text, max_depth=64, max_digits=100)
    with pytest.raises(Refused) as in_steps:
        while True:
            next(steps)
    assert str(in_steps.value) == str(at_once.value) and in_steps.value.syntax == at_once.value.syntax

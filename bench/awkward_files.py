"""Valid files a person brings that the editor's exporter never writes, for
``bench_import_steps.py --awkward`` and the tests: each builder takes a number of cards and
returns the file's text, deterministic.

>>> sorted(AWKWARD)[:3]
['csv-long-texts', 'csv-multiline', 'dot-groups']
>>> from bendscope.shared.graphformats import read_graph
>>> graph = read_graph(dot_groups(200), "dot")
>>> len(graph["nodes"]), len(graph["edges"]) > 200 * 2
(200, True)
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from shape_graphs import WORDS, as_format, held_out_document

__all__ = ["AWKWARD"]


def _words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def dot_groups(n: int) -> str:
    """DOT of group statements: every card labelled, then ``{a … } -> {x … }`` between
    neighbouring groups of 40 cards (1,600 edges a statement), and one group of 60 to 60."""
    lines = ["digraph G {", "  node [shape=box];"]
    lines += [f'  n{i} [label="Node {i}"];' for i in range(n)]
    size = 40
    for start in range(0, n - size, size * 2):
        left = " ".join(f"n{i}" for i in range(start, start + size))
        right = " ".join(f"n{i}" for i in range(start + size, min(n, start + 2 * size)))
        lines.append(f"  {{{left}}} -> {{{right}}};")
    if n >= 120:
        lines.append("  {" + " ".join(f"n{i}" for i in range(60)) + "} -> {"
                     + " ".join(f"n{i}" for i in range(60, 120)) + "} [kind=temporal];")  # fmt: skip
    return "\n".join([*lines, "}"]) + "\n"


def dot_one_line(n: int) -> str:
    """The held-out shape as DOT, every statement on one line."""
    return as_format(held_out_document(n), "dot").replace("\n", " ")


def mermaid_one_line(n: int) -> str:
    """The held-out shape as Mermaid, every statement on the line after the header (``;``)."""
    head, rest = as_format(held_out_document(n), "mermaid").split("\n", 1)
    return head + "\n" + "; ".join(line.strip() for line in rest.splitlines() if line.strip()) + "\n"


def mermaid_groups(n: int) -> str:
    """Mermaid of ``&`` groups (``a & b & … --> x & y & …``, 30 cards a side) and one chain
    through every card (``n0 --> n1 --> …`` on one line)."""
    lines = ["flowchart TD"]
    size = 30
    for start in range(0, n - size, size * 2):
        left = " & ".join(f"n{i}" for i in range(start, start + size))
        right = " & ".join(f"n{i}" for i in range(start + size, min(n, start + 2 * size)))
        lines.append(f"  {left} --> {right}")
    lines.append("  " + " --> ".join(f'n{i}["Card {i}"]' for i in range(n)))
    return "\n".join(lines) + "\n"


def graphml_attributes(n: int) -> str:
    """GraphML as a drawing tool writes it: 40 keys, every node and edge carrying all of its
    kind's data (styles, geometry, descriptions), namespaces and nested elements."""
    doc = held_out_document(n)
    keys = [f'  <key id="d{k}" for="{"node" if k < 30 else "edge"}" attr.name="attr{k}" attr.type="string"/>'
            for k in range(40)]  # fmt: skip
    keys += ['  <key id="t" for="node" attr.name="label" attr.type="string"/>',
             '  <key id="k" for="edge" attr.name="type" attr.type="string"/>']  # fmt: skip
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:y="http://www.yworks.com/xml/graphml">',
           *keys, '  <graph id="G" edgedefault="directed">']  # fmt: skip
    for node in doc["nodes"]:
        data = "".join(f'<data key="d{k}">value {k} of {node["id"]}</data>' for k in range(30))
        out.append(f'    <node id="{node["id"]}" class="card" style="round">{data}'
                   f'<data key="t">{node["text"]}</data><y:Shape type="rect"><y:Geometry x="1" y="2"/></y:Shape>'
                   "</node>")  # fmt: skip
    for edge in doc["edges"]:
        data = "".join(f'<data key="d{k}">e{k}</data>' for k in range(30, 40))
        out.append(f'    <edge id="{edge["id"]}" source="{edge["source"]}" target="{edge["target"]}">{data}'
                   f'<data key="k">{edge["kind"]}</data></edge>')  # fmt: skip
    return "\n".join([*out, "  </graph>", "</graphml>"]) + "\n"


def csv_multiline(n: int) -> str:
    """CSV whose node texts are quoted fields of several lines, with commas and doubled quotes."""
    rng = random.Random(21)
    doc = held_out_document(n)
    for node in doc["nodes"]:
        node["text"] = "\n".join(f'{_words(rng, rng.randint(2, 8))}, "quoted"' for _ in range(rng.randint(2, 6)))
    return as_format(doc, "csv")


def csv_long_texts(n: int) -> str:
    """CSV whose cards hold long texts: 300–3,000 characters each, and one in a hundred some
    30,000 characters (a pasted article)."""
    rng = random.Random(22)
    doc = held_out_document(n)
    for i, node in enumerate(doc["nodes"]):
        words = 6_000 if i % 100 == 7 else rng.randint(50, 500)
        node["text"] = _words(rng, words)
    return as_format(doc, "csv")


_SCRIPTS = ["因果関係の輪", "петля обратной связи", "حلقة التغذية", "🌧️→🌊 flood", "e\u0301te\u0301 cafe\u0301", "ॐ नमः"]


def _unicode_doc(n: int) -> dict[str, Any]:
    doc = held_out_document(n)
    names = {node["id"]: f"{_SCRIPTS[i % len(_SCRIPTS)].split()[0]}_{i}" for i, node in enumerate(doc["nodes"])}
    for i, node in enumerate(doc["nodes"]):
        node["id"], node["text"] = names[node["id"]], f"{_SCRIPTS[i % len(_SCRIPTS)]} {i}"
    for edge in doc["edges"]:
        edge["source"], edge["target"] = names[edge["source"]], names[edge["target"]]
    return doc


def _unicode(fmt: str) -> Callable[[int], str]:
    return lambda n: as_format(_unicode_doc(n), fmt)


#: name → (format, builder)
AWKWARD: dict[str, tuple[str, Callable[[int], str]]] = {
    "csv-long-texts": ("csv", csv_long_texts),
    "csv-multiline": ("csv", csv_multiline),
    "dot-groups": ("dot", dot_groups),
    "dot-one-line": ("dot", dot_one_line),
    "graphml-attrs": ("graphml", graphml_attributes),
    "mermaid-groups": ("mermaid", mermaid_groups),
    "mermaid-one-line": ("mermaid", mermaid_one_line),
    "unicode-csv": ("csv", _unicode("csv")),
    "unicode-dot": ("dot", _unicode("dot")),
    "unicode-mermaid": ("mermaid", _unicode("mermaid")),
    "unicode-json": ("json", lambda n: json.dumps(_unicode_doc(n), ensure_ascii=False)),
}

"""The layout worker's graph grows with the plane: cards and edges appended at the end of the
plane's order become a ``grow`` message (``bend.layout.forces.kernel_growth``) instead of a new
graph, and the graph it gives equals a fresh ``kernel_graph`` of the plane after any changes;
anything else makes the graph again."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.layout.forces import KernelShape, grown, kernel_graph, kernel_growth
from bendscope.bend.model.elements import Edge, Node, Plane

GAP = 110.0


def same(one, other) -> bool:  # type: ignore[no-untyped-def]
    return (one.ids, list(one.pairs), list(one.rest), list(one.k)) == (
        other.ids,
        list(other.pairs),
        list(other.rest),
        list(other.k),
    )


OPS = st.tuples(st.sampled_from(["node", "node", "edge", "edge", "edge", "drop_edge", "drop_node", "resize",
                                 "dangling"]), st.integers(0, 40), st.integers(0, 40))  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(OPS, max_size=5), min_size=1, max_size=10))
def test_a_grown_graph_equals_a_fresh_one(steps):
    plane = Plane("p")
    plane.add_node(Node("first", width=100.0, height=40.0))
    graph = kernel_graph(plane, GAP)
    shape = KernelShape.of(plane, graph)
    serial = 0
    for ops in steps:
        for what, x, y in ops:
            serial += 1
            nodes, edges = list(plane.nodes), list(plane.edges)
            if what == "node":
                plane.add_node(Node(f"n{serial}", width=80.0 + x, height=30.0 + y))
            elif what == "edge" and nodes:
                plane.add_edge(Edge(f"e{serial}", nodes[x % len(nodes)], nodes[y % len(nodes)]))
            elif what == "dangling" and nodes:
                plane.add_edge(Edge(f"e{serial}", nodes[x % len(nodes)], f"n{serial + 1}"))
            elif what == "drop_edge" and edges:
                plane.remove_edge(edges[x % len(edges)])
            elif what == "drop_node" and len(nodes) > 1:
                node_id = nodes[x % len(nodes)]
                for edge in plane.edges_of(node_id):
                    plane.remove_edge(edge.id)
                plane.remove_node(node_id)
            elif what == "resize" and nodes:
                plane.nodes[nodes[x % len(nodes)]].width += 1.0 + y
        fresh = kernel_graph(plane, GAP)
        growth = kernel_growth(plane, shape, GAP)
        if growth is None:  # (made again, as the worker's graph is then)
            graph, shape = fresh, KernelShape.of(plane, fresh)
        else:
            graph = grown(graph, growth)
            assert same(graph, fresh)


def test_appended_cards_and_edges_grow_the_graph_and_a_removal_makes_it_again():
    plane = Plane("p")
    for i in range(5):
        plane.add_node(Node(f"n{i}", width=80.0, height=40.0))
    for i in range(4):
        plane.add_edge(Edge(f"e{i}", f"n{i}", f"n{i + 1}"))
    graph = kernel_graph(plane, GAP)
    shape = KernelShape.of(plane, graph)
    plane.add_node(Node("new", width=80.0, height=40.0))
    plane.add_edge(Edge("x", "n4", "new"))
    plane.add_edge(Edge("y", "new", "n4"))  # (the same pair: one spring)
    growth = kernel_growth(plane, shape, GAP)
    assert growth is not None and growth.ids == ("new",) and list(growth.pairs) == [4, 5]
    assert same(grown(graph, growth), kernel_graph(plane, GAP))
    plane.remove_edge("y")
    assert kernel_growth(plane, shape, GAP) is None


GROW_CHECK = """
const fs = require("fs"), vm = require("vm");
const job = JSON.parse(fs.readFileSync(0, "utf8"));
for (const path of job.scripts) vm.runInThisContext(fs.readFileSync(path, "utf8"), { filename: path });
const L = globalThis.bendscopeLayout;
function made(g, params) { const h = L.create(7, Object.assign({}, params)); L.setGraph(h, Float64Array.from(g.state),
  Int32Array.from(g.pairs), Float64Array.from(g.rest), Float64Array.from(g.k)); return h; }
const whole = made(job.whole, job.params);
const part = made(job.part, job.partParams);
L.grow(part, 7, Object.assign({}, job.params), Float64Array.from(job.grow.state), Int32Array.from(job.grow.pairs),
  Float64Array.from(job.grow.rest));
const links = (h) => h.links.map((l) => [l.source.index, l.target.index, l.rest, l.k]);
const state = () => Float64Array.from(job.whole.state);
const ran = [L.run(whole, state(), 1, 0, 40, 0), L.run(part, state(), 1, 0, 40, 0)];
process.stdout.write(JSON.stringify({ links: [links(whole), links(part)], xy: ran.map((r) => Array.from(r)) }));
"""


def test_the_worker_grows_its_graph_to_the_one_made_afresh(tmp_path):
    """static/layout.js in node: a graph grown by ``grow`` has the springs of one made by
    ``setGraph`` from the whole plane, and runs to the same positions from the same state."""
    import json
    import shutil
    import subprocess

    from bendscope.bend.layout.forces import ForceParams, kernel_state

    from .test_kernel import SCRIPTS

    plane = Plane("p")
    for i in range(12):
        plane.add_node(Node(f"n{i}", x=37.0 * i, y=(-1) ** i * 20.0 * i, width=80.0, height=40.0))
    for i in range(11):
        plane.add_edge(Edge(f"e{i}", f"n{i}", f"n{i + 1}"))
    part = kernel_graph(plane, GAP)
    shape = KernelShape.of(plane, part)
    part_state = list(kernel_state(plane.nodes.values(), set()))
    for i in range(12, 20):
        plane.add_node(Node(f"n{i}", x=-30.0 * i, y=11.0 * i, width=90.0, height=30.0))
        plane.add_edge(Edge(f"e{i}", f"n{i - 1}", f"n{i}"))
        plane.add_edge(Edge(f"c{i}", f"n{i}", f"n{i % 5}"))
    growth = kernel_growth(plane, shape, GAP)
    assert growth is not None
    whole = kernel_graph(plane, GAP)
    params = ForceParams()
    job = {
        "scripts": [str(p) for p in SCRIPTS],
        "whole": {
            "state": list(kernel_state(plane.nodes.values(), set())),
            "pairs": list(whole.pairs),
            "rest": list(whole.rest),
            "k": list(whole.k),
        },
        "part": {"state": part_state, "pairs": list(part.pairs), "rest": list(part.rest), "k": list(part.k)},
        "grow": {
            "state": list(kernel_state((plane.nodes[i] for i in growth.ids), set())),
            "pairs": list(growth.pairs),
            "rest": list(growth.rest),
        },
        "params": params.for_plane(20),
        "partParams": params.for_plane(12),
    }
    node = shutil.which("node")
    assert node
    script = tmp_path / "grow_check.js"  # (a file: ``node -e`` would hand d3 a CommonJS module)
    script.write_text(GROW_CHECK)
    done = subprocess.run([node, str(script)], input=json.dumps(job), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["links"][0] == out["links"][1]
    assert out["xy"][0] == out["xy"][1]

"""The layout worker's state given as a patch (static/layout.js ``runner``): what the page
changed since the state it last gave, over the positions of the frame it last took, makes in
the worker exactly the whole state the page holds — after runs, frames taken or not, cards
grown and held flags changed — and a patch that leaves a change out does not (the check
catches it). Run in node."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.layout.forces import ForceParams, KernelShape, kernel_graph, kernel_growth, kernel_state
from bendscope.bend.model.elements import Edge, Node, Plane

from .test_kernel import ROOT, SCRIPTS

GAP = 110.0
DRIVER = ROOT / "tests" / "support" / "layout_patch.js"


def run(job: dict[str, Any]) -> dict[str, Any]:
    node = shutil.which("node")
    assert node, "node is needed (it comes with npm, which `make vendor` needs too)"
    job = {"scripts": [str(p) for p in SCRIPTS], **job}
    done = subprocess.run([node, str(DRIVER)], input=json.dumps(job), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def ring(n: int) -> Plane:
    plane = Plane("p")
    for i in range(n):
        plane.add_node(Node(f"n{i}", x=40.0 * i, y=(-1) ** i * 25.0 * i, width=80.0, height=40.0))
    for i in range(n):
        plane.add_edge(Edge(f"e{i}", f"n{i}", f"n{(i + 1) % n}"))
    return plane


STEP = st.one_of(
    st.tuples(st.just("pump"), st.integers(0, 6)),
    st.tuples(st.just("grow"), st.integers(1, 3)),
    st.tuples(st.just("patch"), st.lists(st.tuples(st.integers(0, 60), st.integers(0, 2)), max_size=4)),
)


def job_of(steps: list[tuple[str, Any]], omit: bool = False) -> tuple[dict[str, Any], int]:
    """The driver's job for ``steps`` on a ring of 8 cards (cards grown as a chain from it, as
    an agent writes); the number of patches."""
    plane = ring(8)
    graph = kernel_graph(plane, GAP)
    shape = KernelShape.of(plane, graph)
    params = ForceParams().for_plane(len(graph.ids))
    state = list(kernel_state(plane.nodes.values(), set()))
    job: dict[str, Any] = {"seed": 1, "params": params, "state": state, "pairs": list(graph.pairs),
                           "rest": list(graph.rest), "k": list(graph.k), "steps": []}  # fmt: skip
    patches = 0
    for kind, what in steps:
        if kind == "pump":
            job["steps"].append({"pump": what})
        elif kind == "grow":
            n = len(plane.nodes)
            for k in range(what):
                plane.add_node(Node(f"w{n + k}", x=-50.0 * k, y=30.0 * k, width=90.0, height=30.0))
                plane.add_edge(Edge(f"we{n + k}", list(plane.nodes)[n + k - 1], f"w{n + k}"))
            growth = kernel_growth(plane, shape, GAP)
            assert growth is not None
            fresh = [plane.nodes[i] for i in growth.ids]
            job["steps"].append({"grow": {"state": list(kernel_state(fresh, set())), "pairs": list(growth.pairs),
                                          "rest": list(growth.rest)}})  # fmt: skip
        elif what or omit:
            n = len(plane.nodes)
            changes = [[i % n, 10.0 * i, -7.0 * i, 0.0, 0.0, 40.0, 20.0, float(flag)] for i, flag in what or [(0, 1)]]
            changes = list({c[0]: c for c in changes}.values())  # (one change per card)
            job["steps"].append({"patch": {"changes": changes, "omit": omit}})
            patches += 1
    return job, patches


@settings(max_examples=12, deadline=None)
@given(st.lists(STEP, max_size=10))
def test_a_patch_makes_the_whole_state_the_page_holds(steps):
    job, patches = job_of([*steps, ("pump", 2), ("patch", [(1, 0)]), ("pump", 1)])
    out = run(job)
    assert out["errors"] == []
    assert out["stats"]["patched"] == patches and out["stats"]["checked"] == patches
    assert out["stats"]["mismatched"] == 0


def test_a_patch_that_leaves_a_change_out_is_caught():
    job, patches = job_of([("pump", 3), ("grow", 2), ("pump", 2), ("patch", [(3, 1), (9, 2)])], omit=True)
    out = run(job)
    assert out["stats"]["patched"] == patches == 1
    assert out["stats"]["mismatched"] == 1

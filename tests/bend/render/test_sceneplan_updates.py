"""The scene planner's updates are incremental (cards and edges appended or patched, the rest
left as the page holds it) and exact: after any sequence of changes the page's plan holds
what a fresh planner's full build gives. The page's plan is read through :class:`PlanMirror`,
which applies the calls as static/scene.js does (interned strings resolved, so two tables
interned in another order compare equal); a last check runs both call sequences through
scene.js itself in node and compares the frames' geometry."""

from __future__ import annotations

from array import array
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.kappa_view.topology_cache import Topology, TopologyCache
from bendscope.bend.model.elements import Camera, Edge, EdgeProps, Node, Plane
from bendscope.bend.render import sceneplan
from bendscope.bend.render.sceneplan import ScenePlanner, positions
from bendscope.bend.render.textlayout import CardLayout, layout_card
from tests.bend.render.test_scene_geometry import plain, run_js


def measure(text: str, font: str) -> float:
    return 7.0 * len(text) + len(font) % 3


def card_of(node: Node) -> CardLayout:
    layout = layout_card(node.text, measure)
    node.width, node.height = layout.width, layout.height
    return layout


class PlanMirror:
    """What the page's plan holds after a sequence of calls (static/scene.js's plan API), with
    strings resolved: edges as rows, labels with their edges, art by card."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self.parts: dict[str, Any] = {"ids": [], "sizes": [], "stargate": [], "pinned": []}
        self.edges: list[list[Any]] = []
        self.art: dict[str, Any] = {}

    def apply(self, calls: list[tuple[str, tuple[Any, ...]]]) -> PlanMirror:
        for name, args in calls:
            getattr(self, name)(*(plain(a) for a in args))
        return self

    def state(self) -> dict[str, Any]:
        return {**self.parts, "edges": self.edges, "art": self.art}

    def setConstants(self, constants: dict[str, Any]) -> None:
        self.parts["constants"] = constants

    def setNodes(self, ids: list[str], sizes: list[float], stargate: list[int], pinned: list[int]) -> None:
        self.parts.update(ids=ids, sizes=sizes, stargate=stargate, pinned=pinned)

    def appendNodes(self, ids: list[str], sizes: list[float], stargate: list[int], pinned: list[int]) -> None:
        for key, more in (("ids", ids), ("sizes", sizes), ("stargate", stargate), ("pinned", pinned)):
            self.parts[key] = self.parts[key] + more

    def patchNodes(self, index: list[int], sizes: list[float], stargate: list[int], pinned: list[int]) -> None:
        for i, k in enumerate(index):
            self.parts["sizes"][2 * k : 2 * k + 2] = sizes[2 * i : 2 * i + 2]
            self.parts["stargate"][k], self.parts["pinned"][k] = stargate[i], pinned[i]

    def setArt(self, added: list[str], ids: list[str], nums: list[float], texts: list[str]) -> None:
        self.strings += added
        at = t = 0
        for card in ids:
            n_items, header, n_bars, n_decos = (int(v) for v in nums[at : at + 4])
            at += 4
            quads = zip(*[iter(nums[at : at + 4 * n_items])] * 4, strict=True)
            items = [(self.strings[int(f)], self.strings[int(c)], dx, dy, texts[t + i])
                     for i, (f, c, dx, dy) in enumerate(quads)]  # fmt: skip
            at += 4 * n_items
            bars = nums[at : at + 4 * n_bars]
            at += 4 * n_bars
            decos = [
                (self.strings[int(d[0])], *d[1:]) for d in zip(*[iter(nums[at : at + 5 * n_decos])] * 5, strict=True)
            ]
            at += 5 * n_decos
            t += n_items
            self.art[card] = (items, header, bars, decos)

    def forgetArt(self, ids: list[str]) -> None:
        for card in ids:
            del self.art[card]

    def _rows(self, a, b, color, width, arrow, offset, polarity) -> list[list[Any]]:  # type: ignore[no-untyped-def]
        return [[a[k], b[k], self.strings[color[k]], width[k], arrow[k], offset[k], polarity[k], None]
                for k in range(len(a))]  # fmt: skip

    def setEdges(self, added, a, b, color, width, arrow, offset, label_edge, label_width, label_border, label_text,  # type: ignore[no-untyped-def]
                 polarity) -> None:  # fmt: skip
        self.strings += added
        self.edges = []
        self.appendEdges([], a, b, color, width, arrow, offset, label_edge, label_width, label_border, label_text,
                         polarity)  # fmt: skip

    def appendEdges(self, added, a, b, color, width, arrow, offset, label_edge, label_width, label_border,  # type: ignore[no-untyped-def]
                    label_text, polarity) -> None:  # fmt: skip
        self.strings += added
        self.edges += self._rows(a, b, color, width, arrow, offset, polarity)
        for k, w, border, text in zip(label_edge, label_width, label_border, label_text, strict=True):
            self.edges[k][7] = (w, self.strings[border], text)

    def patchEdges(self, added, index, a, b, color, width, arrow, offset, polarity, label_at, label_width,  # type: ignore[no-untyped-def]
                   label_border, label_text) -> None:  # fmt: skip
        self.strings += added
        labelled = [k for k in range(len(self.edges)) if self.edges[k][7] is not None]  # (label index → edge)
        for i, row in enumerate(self._rows(a, b, color, width, arrow, offset, polarity)):
            row[7] = self.edges[index[i]][7]
            self.edges[index[i]] = row
        for at, w, border, text in zip(label_at, label_width, label_border, label_text, strict=True):
            self.edges[labelled[at]][7] = (w, self.strings[border], text)

    def setHalos(self, halos: list[Any]) -> None:
        self.parts["halos"] = halos

    def setMarkers(self, markers: list[Any]) -> None:
        self.parts["markers"] = markers

    def setFlags(self, *flags: Any) -> None:
        self.parts["flags"] = list(flags)


KINDS = ("causal", "temporal", "context", "related")


def change(plane: Plane, op: tuple[Any, ...], serial: int) -> None:
    """One change of the plane, whatever it finds (ops that do not apply do nothing)."""
    nodes, edges = list(plane.nodes), list(plane.edges)
    what, x, y, z = op
    if what == "node":
        plane.add_node(Node(f"n{serial}", "word " * (x % 5), type="stargate" if y % 7 == 0 else "normal"))
    elif what == "edge" and nodes:
        kind = KINDS[z % len(KINDS)]
        props = EdgeProps("label" * (z % 3), kind, 1 + z % 5, "+" if z % 4 == 1 else None)
        plane.add_edge(Edge(f"e{serial}", nodes[x % len(nodes)], nodes[y % len(nodes)], props))
    elif what == "dangling" and nodes:  # (an edge to a card not on the plane yet: one the next cards may be)
        plane.add_edge(Edge(f"e{serial}", nodes[x % len(nodes)], f"n{serial + 1 + y % 3}"))
    elif what == "drop_node" and nodes:
        node_id = nodes[x % len(nodes)]
        for edge in plane.edges_of(node_id):
            plane.remove_edge(edge.id)
        plane.remove_node(node_id)
    elif what == "drop_edge" and edges:
        plane.remove_edge(edges[x % len(edges)])
    elif what == "restyle" and edges:
        edge = plane.edges[edges[x % len(edges)]]
        kind = KINDS[y % len(KINDS)]
        label = edge.props.label if z % 2 else ("other" if edge.props.label else "") * (z % 3 > 0)
        plane.replace_edge(Edge(edge.id, edge.a, edge.b, EdgeProps(label, kind, 1 + y % 5, "-" if z % 3 else None)))
    elif what == "rewire" and edges and nodes:
        edge = plane.edges[edges[x % len(edges)]]
        plane.replace_edge(Edge(edge.id, nodes[y % len(nodes)], edge.b, edge.props))
    elif what == "text" and nodes:
        plane.update_node(nodes[x % len(nodes)], text="a longer text " * (y % 4))
    elif what == "pin" and nodes:
        node = plane.nodes[nodes[x % len(nodes)]]
        plane.update_node(node.id, pinned=not node.pinned, type="stargate" if y % 2 else "normal")
    elif what == "reorder" and nodes:
        plane.reorder("node", nodes[x % len(nodes) :] + nodes[: x % len(nodes)])


OPS = st.tuples(
    st.sampled_from(
        ["node"] * 4
        + ["edge"] * 5
        + ["dangling", "drop_node", "drop_edge", "restyle", "rewire", "text", "pin", "reorder"]
    ),
    st.integers(0, 50),
    st.integers(0, 50),
    st.integers(0, 50),
)


def update(planner: ScenePlanner, plane: Plane, version: int, topology: Topology | None, state: dict[str, Any]):  # type: ignore[no-untyped-def]
    for node in plane.nodes.values():
        card_of(node)  # (the editor sizes cards as their texts change)
    return planner.update(plane, card_of, doc_version=version, topology=topology, measure=measure, **state)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.lists(OPS, min_size=1, max_size=6), st.integers(0, 7)), min_size=1, max_size=12))
def test_an_incremental_plan_equals_a_fresh_full_build(steps):
    plane = Plane("p")
    cache = TopologyCache()
    planner, mirror = ScenePlanner(), PlanMirror()
    serial = version = 0
    previous: Topology | None = None
    for ops, pick in steps:
        for op in ops:
            serial += 1
            version += 1
            change(plane, op, serial)
        # the topology drawn: the plane's, none, or the one before (while κ is being computed)
        topology = cache.get(plane) if pick % 3 else (None if pick == 0 else previous)
        nodes, edges = list(plane.nodes), list(plane.edges)
        state = {
            "selection": nodes[pick % 3 :: 3],
            "selected_edge": edges[pick % len(edges)] if edges and pick % 2 else None,
            "loop_edges": edges[::2] if pick > 4 else (),
            "cut_edges": edges[1::3],
        }
        mirror.apply(update(planner, plane, version, topology, state))
        fresh = PlanMirror().apply(update(ScenePlanner(), plane, version, topology, state))
        assert mirror.state() == fresh.state()
        assert planner.edge_ids() == list(fresh_planner_edges(plane))
        previous = cache.get(plane)


def fresh_planner_edges(plane: Plane) -> list[str]:
    planner = ScenePlanner()
    update(planner, plane, 0, None, {})
    return planner.edge_ids()


def test_appended_cards_and_edges_are_sent_alone():
    plane = Plane("p")
    for i in range(30):
        plane.add_node(Node(f"n{i}", f"card {i}"))
    for i in range(30):
        plane.add_edge(Edge(f"e{i}", f"n{i}", f"n{(i + 1) % 30}"))
    cache = TopologyCache()
    planner = ScenePlanner()
    update(planner, plane, 1, cache.get(plane), {})
    plane.add_node(Node("new", "an agent's fact"))
    plane.add_edge(Edge("e-new", "n3", "new"))
    plane.add_edge(Edge("e-back", "new", "n3", EdgeProps(kind="context")))  # (parallel to e-new: its offset changes)
    calls = update(planner, plane, 2, cache.get(plane), {})
    sent = {name: args for name, args in calls}
    assert [name for name, _ in calls] == ["appendNodes", "setArt", "appendEdges", "setMarkers", "setFlags"]
    assert sent["appendNodes"][0] == ["new"]
    assert list(sent["appendEdges"][1]) == [3, 30]  # e-new and e-back, by node index
    assert list(sent["appendEdges"][6]) == [-3.5, -3.5] and list(sent["appendEdges"][7]) == []  # offsets, no labels
    assert "setHalos" not in sent  # the loop's halo is the same (a new topology, the same regions)
    plane.add_edge(Edge("e-two", "n1", "n0"))  # (parallel to e0, inside the loop: e0's offset changes)
    calls = update(planner, plane, 3, cache.get(plane), {})
    sent = {name: args for name, args in calls}
    assert list(sent["patchEdges"][1]) == [0]  # e0 alone, for its offset
    assert "setHalos" in sent  # an arc inside the loop region: its halo is made again


def test_the_page_draws_the_same_frames_from_incremental_and_full_plans():
    """scene.js itself: the calls of one planner over several changes, and a fresh planner's
    calls, give the same geometry."""
    plane = Plane("p")
    for i in range(12):
        plane.add_node(Node(f"n{i}", f"card {i}", x=90.0 * i, y=40.0 * (i % 3)))
    for i in range(12):
        plane.add_edge(Edge(f"e{i}", f"n{i}", f"n{(i + 1) % 12}", EdgeProps("lab" if i % 4 == 0 else "")))
    cache = TopologyCache()
    planner = ScenePlanner()
    calls = list(update(planner, plane, 1, cache.get(plane), {}))
    plane.add_node(Node("m", "more", x=30.0, y=200.0))
    plane.add_edge(Edge("x1", "n2", "m", EdgeProps("new", "temporal")))
    plane.add_edge(Edge("x2", "n1", "n0"))
    calls += update(planner, plane, 2, cache.get(plane), {"selection": ["m"]})
    edge = plane.edges["e4"]
    plane.replace_edge(Edge("e4", edge.a, edge.b, EdgeProps("renamed", "temporal", 4, "+")))
    plane.update_node("n5", text="a much longer text for this card")
    calls += update(planner, plane, 3, cache.get(plane), {"selection": ["m"]})
    fresh = update(ScenePlanner(), plane, 3, cache.get(plane), {"selection": ["m"]})
    assert {name for name, _ in calls} >= {"appendNodes", "appendEdges", "patchEdges", "patchNodes"}
    view = {"cx": 400.0, "cy": 60.0, "zoom": 0.8, "width": 1400.0, "height": 700.0, "pulse": 0.5}
    frame = {"xy": plain(positions(plane)), "view": view}
    one = run_js({"calls": plain(calls), "frames": [frame]})
    other = run_js({"calls": plain(fresh), "frames": [frame]})
    assert one == other
    assert isinstance(positions(plane), array)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(OPS, min_size=1, max_size=30),
    st.lists(OPS, max_size=3),
    st.lists(OPS, max_size=3),
    st.integers(1, 5),
)
def test_edges_made_ahead_give_the_plan_a_fresh_build_gives(before, after, shown, chunk):
    """A document coming in has its first frame's edges made ahead (``prepare_edges``, in
    steps); the plan then holds what a fresh planner's full build gives — also when the plane
    changed after they were made (then they are made again) or another plane was shown first."""
    old, plane = Plane("old"), Plane("new")
    for serial, op in enumerate(shown):
        change(old, op, serial)
    for serial, op in enumerate(before):
        change(plane, op, serial)
    planner, mirror = ScenePlanner(), PlanMirror()
    mirror.apply(update(planner, old, 1, None, {}))
    for _ in planner.prepare_edges(plane, measure, chunk):
        mirror.apply(update(planner, old, 1, None, {}))  # (the old plane's frames go on meanwhile)
    for serial, op in enumerate(after, start=len(before)):
        change(plane, op, serial)
    mirror.apply(update(planner, plane, 2, None, {}))
    fresh = PlanMirror().apply(update(ScenePlanner(), plane, 2, None, {}))
    assert mirror.state() == fresh.state()
    assert planner.edge_ids() == fresh_planner_edges(plane)


def test_edges_made_ahead_are_sent_without_being_made_again():
    plane = Plane("p")
    for serial in range(6):
        change(plane, ("node", serial, 1, 0), serial)
    for serial in range(6, 12):
        change(plane, ("edge", serial, serial + 1, 3), serial)
    for node in plane.nodes.values():
        card_of(node)  # (a document coming in has its cards sized before the arrays are made)
    planner = ScenePlanner()
    for _ in planner.prepare_edges(plane, measure, 2):
        pass
    made = []
    planner._row = lambda *args: made.append(args)  # type: ignore[method-assign]
    arrays = []
    real = sceneplan._node_arrays
    sceneplan._node_arrays = lambda looks: arrays.append(looks) or real(looks)  # type: ignore[assignment]
    try:
        calls = update(planner, plane, 1, None, {})
    finally:
        sceneplan._node_arrays = real
    assert made == [] and [name for name, _ in calls].count("setEdges") == 1
    assert arrays == [] and [name for name, _ in calls].count("setNodes") == 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPS, min_size=1, max_size=20), st.integers(0, 50), st.floats(20.0, 400.0), st.integers(1, 5))
def test_cards_resized_after_being_made_ahead_are_sent_at_their_new_size(before, which, width, chunk):
    """A card's size set after the arrays were made ahead (the page measured the cards again:
    no new plane version) is what the plan holds: the arrays made ahead are not used."""
    plane = Plane("p")
    for serial, op in enumerate(before):
        change(plane, op, serial)
    for node in plane.nodes.values():
        card_of(node)
    planner = ScenePlanner()
    for _ in planner.prepare_edges(plane, measure, chunk):
        pass
    if plane.nodes:
        node = list(plane.nodes.values())[which % len(plane.nodes)]
        node.width = width
    mirror = PlanMirror().apply(update(planner, plane, 1, None, {}))
    fresh = PlanMirror().apply(update(ScenePlanner(), plane, 1, None, {}))
    assert mirror.state() == fresh.state()


MOVES = st.lists(
    st.tuples(
        st.sampled_from(["move"] * 4 + ["op", "camera", "rest"]),
        OPS,
        st.lists(st.integers(0, 50), min_size=1, max_size=4),
        st.floats(-600, 600),
        st.floats(-600, 600),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPS, min_size=1, max_size=20), MOVES)
def test_art_looked_for_among_the_moving_cards_is_the_art_of_a_fresh_build(before, steps):
    """While a local reheat moves only some cards (``moving``), the planner looks for art only
    among them; every card in or near the view still has the art a fresh planner gives it —
    through moves, edits, camera changes and rests in between."""
    plane = Plane("p")
    for serial, op in enumerate(before):
        change(plane, op, serial)
    for k, node in enumerate(plane.nodes.values()):
        node.x, node.y = 97.0 * (k % 13) - 600.0, 71.0 * (k // 13) - 300.0
    planner, mirror = ScenePlanner(), PlanMirror()
    version, moving = 1, None
    cam = Camera(0.0, 0.0, 1.0)
    viewport = (400.0, 300.0)

    def frame(moving: frozenset[str] | None) -> None:
        mirror.apply(update(planner, plane, version, None, {"viewport": viewport, "camera": cam, "moving": moving}))
        fresh = PlanMirror().apply(update(ScenePlanner(), plane, version, None, {"viewport": viewport, "camera": cam}))
        assert {card: mirror.art.get(card) for card in fresh.art} == fresh.art

    frame(None)
    for serial, (what, op, picks, dx, dy) in enumerate(steps, start=len(before)):
        ids = list(plane.nodes)
        if what == "move" and ids:
            moving = frozenset(ids[p % len(ids)] for p in picks)
            for card in moving:
                plane.nodes[card].x += dx
                plane.nodes[card].y += dy
        elif what == "op":
            change(plane, op, serial)
            version += 1
        elif what == "camera":
            cam = Camera(dx, dy, 1.0)
        else:
            moving = None
        frame(moving)


def test_art_is_looked_for_among_the_moving_cards_alone():
    plane = Plane("p")
    for i in range(40):
        plane.add_node(Node(f"n{i}", f"card {i}", x=20.0 * i, y=0.0))
    looked: list[str] = []

    def counted(node: Node) -> CardLayout:
        looked.append(node.id)
        return card_of(node)

    planner = ScenePlanner()
    state = {"viewport": (2000.0, 800.0), "camera": Camera(400.0, 0.0, 1.0)}
    planner.update(plane, counted, doc_version=1, topology=None, measure=measure, **state)  # type: ignore[arg-type]
    assert len(looked) == 40
    looked.clear()
    plane.nodes["n3"].x += 50.0
    moving = frozenset({"n3", "n4"})
    planner.update(plane, counted, doc_version=1, topology=None, measure=measure, moving=moving, **state)  # type: ignore[arg-type]
    assert sorted(looked) == ["n3", "n4"]
    looked.clear()
    planner.update(plane, counted, doc_version=2, topology=None, measure=measure, moving=moving, **state)  # type: ignore[arg-type]
    assert len(looked) == 40  # (the document changed: every card is looked at again)


def test_after_an_agents_change_art_is_looked_for_among_the_cards_it_touched_and_the_moving_ones():
    from bendscope.bend.editor.editor import Editor

    editor = Editor()
    plane = editor.plane
    with editor.remote_change():
        for i in range(40):
            plane.add_node(Node(f"n{i}", f"card {i}", x=20.0 * i, y=0.0))
    looked: list[str] = []

    def counted(node: Node) -> CardLayout:
        looked.append(node.id)
        return card_of(node)

    planner = ScenePlanner()
    state: dict[str, Any] = {"viewport": (2000.0, 800.0), "camera": Camera(400.0, 0.0, 1.0), "measure": measure}

    def update(moving: frozenset[str] | None) -> list[tuple[str, Any]]:
        return planner.update(plane, counted, doc_version=editor.version, topology=None, moving=moving,
                              touched=editor.cards_touched_since, **state)  # fmt: skip

    update(None)
    looked.clear()
    with editor.remote_change():  # an agent's cards, and a card of the person's changed meanwhile
        plane.add_node(Node("w1", "new from the agent", x=60.0, y=40.0))
        plane.add_edge(Edge("e1", "n2", "w1"))
        plane.update_node("n30", text="a changed card")
    calls = dict(update(frozenset({"n2", "w1", "n5"})))
    assert sorted(set(looked)) == ["n2", "n30", "n5", "w1"]
    assert sorted(calls["setArt"][1]) == ["n30", "w1"]  # (the art the page lacked: as a whole scan finds it)
    looked.clear()
    editor.cards_touched_since = lambda version: None  # type: ignore[method-assign]  # (changes not known)
    with editor.remote_change():
        plane.add_node(Node("w2", "another", x=80.0, y=40.0))
    calls = dict(update(frozenset({"w2"})))
    assert len(set(looked)) == 42 and calls["setArt"][1] == ["w2"]


def test_the_cards_touched_since_a_version_are_known_until_a_change_touches_the_plane_or_they_are_too_far_back():
    from bendscope.bend.editor import editor as editor_module
    from bendscope.bend.editor.editor import Editor

    editor = Editor()
    start = editor.version
    for i in range(3):
        with editor.remote_change():
            editor.plane.add_node(Node(f"n{i}", f"card {i}"))
    assert editor.cards_touched_since(start) == {"n0", "n1", "n2"}
    assert editor.cards_touched_since(start + 2) == {"n2"}
    assert editor.cards_touched_since(editor.version) == set()
    for i in range(editor_module.CARD_LOG):
        with editor.remote_change():
            editor.plane.update_node("n0", x=float(i))
    assert editor.cards_touched_since(start) is None
    assert editor.cards_touched_since(editor.version - 1) == {"n0"}


def test_the_halos_of_many_loop_regions_cross_to_the_page_as_a_few_flat_arrays():
    """However many loop regions, setHalos is one call whose argument holds flat arrays and
    one style per κ (the page makes its per-region objects): no object crosses per region."""
    plane = Plane("p")
    for i in range(400):
        plane.add_node(Node(f"n{i}", f"card {i}"))
    for i in range(0, 400, 2):  # 200 two-way pairs: 200 loop regions of κ 1
        plane.add_edge(Edge(f"a{i}", f"n{i}", f"n{i + 1}"))
        plane.add_edge(Edge(f"b{i}", f"n{i + 1}", f"n{i}"))
    planner = ScenePlanner()
    sent = dict(update(planner, plane, 1, TopologyCache().get(plane), {}))
    (packed,) = sent["setHalos"]
    flat = ("members", "memberEnds", "pairs", "pairEnds", "style", "badgeWidths")
    assert all(isinstance(packed[k], array) for k in flat)
    assert len(packed["styles"]) == 1 and list(packed["style"]) == [0] * 200
    assert len(packed["memberEnds"]) == len(packed["pairEnds"]) == len(packed["badges"]) == 200
    assert list(packed["memberEnds"]) == list(range(2, 401, 2)) and len(packed["members"]) == 400
    index = {node_id: k for k, node_id in enumerate(planner.ids)}
    assert sorted(packed["members"][:2]) == sorted(index[n] for n in ("n0", "n1"))

"""Layout: deterministic, comes to rest, respects pinned and dragged nodes."""

from __future__ import annotations

import math

import pytest
from bend_helpers import K22, editor_with

from bendscope.bend.editor.editor import Editor
from bendscope.bend.layout.simulation import Simulation
from bendscope.bend.model.demo import demo_document


def positions(editor: Editor) -> list[tuple[str, float, float]]:
    return [(n.id, n.x, n.y) for n in editor.plane.nodes.values()]


def test_same_graph_same_seed_same_layout():
    a, b = Editor(demo_document(), seed=5), Editor(demo_document(), seed=5)
    a.settle()
    b.settle()
    assert positions(a) == positions(b)
    assert a.export() == b.export()


def test_layout_comes_to_rest():
    editor = Editor(demo_document())
    steps = editor.settle()
    assert 50 < steps < 2000
    assert not editor.animating
    assert all(n.vx == 0 and n.vy == 0 for n in editor.plane.nodes.values())
    assert editor.tick() is False  # nothing moves any more


def test_settled_layout_separates_cards_and_keeps_edges_short():
    editor = Editor(demo_document())
    editor.settle()
    nodes = list(editor.plane.nodes.values())
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            overlap_x = (a.width + b.width) / 2 - abs(a.x - b.x)
            overlap_y = (a.height + b.height) / 2 - abs(a.y - b.y)
            assert min(overlap_x, overlap_y) < 0, f"{a.id} overlaps {b.id}"
    for edge in editor.plane.edges.values():
        a, b = editor.plane.nodes[edge.a], editor.plane.nodes[edge.b]
        assert math.hypot(a.x - b.x, a.y - b.y) < 700


def test_pinned_and_dragged_nodes_stay_fixed():
    editor = editor_with(K22)
    editor.set_pinned("a1", True)
    sim = editor.sim()
    sim.fixed.add("b1")
    fixed = {n: (editor.plane.nodes[n].x, editor.plane.nodes[n].y) for n in ("a1", "b1")}
    free_start = {n: (editor.plane.nodes[n].x, editor.plane.nodes[n].y) for n in ("a2", "b2")}
    sim.settle()
    assert {n: (editor.plane.nodes[n].x, editor.plane.nodes[n].y) for n in ("a1", "b1")} == fixed
    for n, start in free_start.items():  # the free nodes did move: the layout ran
        assert math.dist(start, (editor.plane.nodes[n].x, editor.plane.nodes[n].y)) > 1.0


def test_coincident_nodes_are_separated_deterministically():
    def run(seed):
        editor = editor_with([("a", "b")], positions={"a": (0, 0), "b": (0, 0)})
        Simulation(editor.plane, seed=seed).settle()
        return positions(editor)

    assert run(3) == run(3)
    (_, ax, ay), (_, bx, by) = run(3)
    assert math.hypot(ax - bx, ay - by) > 100


def test_reheat_after_edit():
    editor = Editor(demo_document())
    editor.settle()
    assert not editor.animating
    editor.add_node(0, 0, "new")
    assert editor.animating


def test_changes_during_a_run_over_the_whole_plane_let_it_cool_as_it_was():
    """A stream of changes (an agent writing) while the whole plane is laid out must not keep
    every card moving: each change used to raise the whole run's alpha again. At rest, a
    change still moves only its neighbourhood."""
    from bendscope.bend.layout.simulation import LOCAL_ALPHA

    editor = Editor(demo_document())
    sim = editor.sim()
    while sim.alpha >= LOCAL_ALPHA / 2:
        assert editor.tick()
    cooled = sim.alpha
    assert sim.active and sim.free is None
    first = editor.add_node(0, 0, "new")
    with editor.remote_change():  # (a live change, through the same mutators)
        second = editor.add_node(40, 40, "from the agent")
    assert editor.add_edge(first, second) is not None
    assert sim.free is None and sim.alpha == cooled
    editor.settle()
    assert not editor.animating
    editor.add_node(0, 0, "at rest")
    assert sim.free is not None and sim.alpha == LOCAL_ALPHA


def test_inline_markup_becomes_styled_runs_never_literal_markers():
    """`**bold**` showed literally on the card."""
    from bendscope.bend.render.textlayout import approx_measure, layout_card, run_font

    card = layout_card("Price **drives** *demand* via `f(x)` see [the doc](https://example.org/x)", approx_measure)
    shown = "".join(r.text for ln in card.lines for r in ln.runs)
    assert "**" not in shown and "`" not in shown and "](" not in shown and "https" not in shown
    kinds = {r.text.strip(): r.kind for ln in card.lines for r in ln.runs if r.text.strip()}
    assert kinds["drives"] == "b" and kinds["demand"] == "i" and kinds["f(x)"] == "code"
    assert kinds.get("the") == "link" and kinds.get("doc") == "link"
    for ln in card.lines:  # runs sit side by side, each measured in its own font
        for a, b in zip(ln.runs, ln.runs[1:], strict=False):
            assert b.dx == pytest.approx(a.dx + approx_measure(a.text, run_font(ln.style, a.kind)), abs=0.02)
    plain = layout_card("no markup, 2 * 3 = 6", approx_measure)
    assert plain.lines[0].runs == () and plain.lines[0].text == "no markup, 2 * 3 = 6"


# ---------------------------------------------------------------- local edits


def _random_graph(n: int, seed: int = 5) -> Editor:
    """A connected random graph with positions spread out (a spanning tree plus random arcs)."""
    import random

    from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane

    rng = random.Random(seed)
    plane = Plane("plane-root", "Main")
    for i in range(n):
        plane.add_node(Node(f"n{i}", f"n{i}", "normal", rng.uniform(-1500, 1500), rng.uniform(-1500, 1500)))
    pairs = [(rng.randrange(i), i) for i in range(1, n)] + [(rng.randrange(n), rng.randrange(n)) for _ in range(n)]
    for k, (a, b) in enumerate(p for p in pairs if p[0] != p[1]):
        plane.add_edge(Edge(f"e{k}", f"n{a}", f"n{b}", EdgeProps("", "causal", 2)))
    editor = Editor(Document([plane], "plane-root"))
    editor.settle()
    return editor


def _hops(editor: Editor, start: str) -> dict[str, int]:
    around: dict[str, list[str]] = {n: [] for n in editor.plane.nodes}
    for e in editor.plane.edges.values():
        around[e.a].append(e.b)
        around[e.b].append(e.a)
    seen = {start: 0}
    queue = [start]
    for here in queue:
        for there in around[here]:
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return seen


def _where(editor: Editor) -> dict[str, tuple[float, float]]:
    return {n.id: (n.x, n.y) for n in editor.plane.nodes.values()}


def test_a_drag_moves_only_what_is_near_it():
    """A 30 px drag in a settled graph moved every other node (the whole layout was
    reheated). Now nodes more than two hops away stand still; the neighbours follow."""
    from bendscope.bend.pointer.inputs import PointerInput
    from bendscope.bend.pointer.machine import Tools

    editor = _random_graph(160)
    tools = Tools(editor)
    before = _where(editor)
    target = "n7"
    sx, sy = editor.world_to_screen(*before[target])
    for kind, dx in (("down", 0), ("move", 10), ("move", 20), ("move", 30), ("up", 30)):
        tools.pointer(PointerInput(kind, 1, sx + dx, sy, 0, "mouse"))
    assert editor.animating  # the neighbourhood relaxes
    while editor.tick():
        pass
    after = _where(editor)
    hops = _hops(editor, target)
    far = [n for n in after if hops.get(n, 99) > 2]
    near = [n for n in after if 0 < hops.get(n, 99) <= 2]
    assert far and near
    assert all(after[n] == before[n] for n in far)
    assert any(after[n] != before[n] for n in near)  # the layout did run around the drop
    assert after[target] == (before[target][0] + 30.0, before[target][1])  # pinned where dropped


def test_freeze_and_unfreeze_move_nothing():
    from bendscope.bend.pointer.inputs import PointerInput
    from bendscope.bend.pointer.machine import Tools

    editor = _random_graph(80)
    tools = Tools(editor)
    editor.set_layout_frozen(True)
    before = _where(editor)
    sx, sy = editor.world_to_screen(*before["n3"])
    for kind, dx in (("down", 0), ("move", 15), ("move", 40), ("up", 40)):
        tools.pointer(PointerInput(kind, 1, sx + dx, sy, 0, "mouse"))
    editor.add_node(5000.0, 5000.0, "made while frozen")
    editor.set_layout_frozen(False)
    for _ in range(50):
        editor.tick()
    after = _where(editor)
    moved = {n for n in before if after[n] != before[n]}
    assert moved == {"n3"} and not editor.animating


def test_a_new_node_or_edge_moves_only_its_neighbourhood():
    editor = _random_graph(120)
    before = _where(editor)
    editor.add_edge("n10", "n90", kind="causal")
    while editor.tick():
        pass
    after = _where(editor)
    region = {n for n, h in _hops(editor, "n10").items() if h <= 2} | {
        n for n, h in _hops(editor, "n90").items() if h <= 2
    }
    assert {n for n in before if after[n] != before[n]} <= region
    assert {n for n in before if after[n] != before[n]}
    lone = editor.add_node(after["n0"][0], after["n0"][1], "dropped on n0")  # on top of another card
    while editor.tick():
        pass
    final = _where(editor)
    assert {n for n in after if final[n] != after[n]} == set()  # only the new card moved out of the way
    assert final[lone] != after["n0"]


def test_a_whole_plane_run_stays_whole_when_an_edit_comes_in_the_middle():
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")])
    sim = editor.sim()
    assert sim.active and sim.free is None  # the first layout of a new document: everything
    editor.add_node(0.0, 0.0, "x")
    assert sim.free is None  # the first layout goes on over the whole plane


def test_layout_engines_of_planes_left_or_gone_are_paused_and_freed():
    """Review finding: a plane's engine kept running when another plane was shown, and the
    engines of deleted or replaced planes were never freed (in the page each holds a kernel
    in the layout worker)."""
    events: list[tuple[str, str]] = []

    class Recording(Simulation):
        def pause(self) -> None:
            events.append(("pause", self.plane.id))

        def close(self) -> None:
            events.append(("close", self.plane.id))

    editor = Editor(demo_document(), layout=lambda plane, seed: Recording(plane, seed=seed))
    root = editor.plane.id
    gate = next(n.id for n in editor.plane.nodes.values() if n.type == "stargate")
    editor.go_to_plane(editor.enter_stargate(gate) if hasattr(editor, "enter_stargate") else root)
    child = editor.plane.id
    assert child != root and ("pause", root) in events
    editor.sim()  # the child plane's engine exists
    editor.go_to_plane(root)
    assert ("pause", child) in events
    events.clear()
    editor.delete_nodes([gate])  # the stargate and its plane go
    assert ("close", child) in events
    editor.undo()  # the plane comes back as a new object: a new engine, the old one freed
    editor.go_to_plane(child)
    editor.sim()
    assert editor.sim().plane is editor.doc.planes[child]


def test_the_cards_a_drag_may_move_are_its_neighbourhood_and_every_card_that_moves_is_one():
    """The page draws what a drag does not move once (``moving_cards``): the held card and its
    two-hop neighbourhood, the only cards the layout moves until it rests; a whole-plane run
    (an import) gives none, so its frames are drawn whole."""
    from bendscope.bend.layout.simulation import moving_cards
    from bendscope.bend.pointer.inputs import PointerInput
    from bendscope.bend.pointer.machine import Tools

    editor = _random_graph(160)
    tools = Tools(editor)
    before = _where(editor)
    target = "n7"
    sx, sy = editor.world_to_screen(*before[target])
    for kind, dx in (("down", 0), ("move", 10), ("move", 25)):
        tools.pointer(PointerInput(kind, 1, sx + dx, sy, 0, "mouse"))
    sim = editor.sim()
    cards = moving_cards(sim.free, sim.fixed, len(editor.plane.nodes))
    hops = _hops(editor, target)
    assert cards == {n for n, h in hops.items() if h <= 2}
    tools.pointer(PointerInput("up", 1, sx + 25, sy, 0, "mouse"))
    while editor.tick():
        pass
    moved = {n for n, at in _where(editor).items() if at != before[n]}
    assert target in moved and moved <= cards
    editor.sim().reheat()  # (a whole-plane run)
    assert moving_cards(editor.sim().free, editor.sim().fixed, len(editor.plane.nodes)) is None


def test_the_cards_a_press_says_its_drag_will_move_are_those_the_drag_moves():
    """At the press, before any move, ``drag_moving`` gives the cards the drag's local reheat
    will let move (the page draws the rest then, not in the drag's first frame): alone, and
    for a selection of two dragged together."""
    from bendscope.bend.layout.simulation import drag_moving, moving_cards
    from bendscope.bend.pointer.inputs import PointerInput
    from bendscope.bend.pointer.machine import Tools
    from bendscope.bend.pointer.states import PointingNode

    editor = _random_graph(160)
    for chosen in (["n7"], ["n7", "n40"]):
        editor.select(chosen)
        tools = Tools(editor)
        sx, sy = editor.world_to_screen(*_where(editor)["n7"])
        tools.pointer(PointerInput("down", 1, sx, sy, 0, "mouse"))
        state = tools.state
        assert isinstance(state, PointingNode) and not editor.sim().active
        told = drag_moving(editor.sim(), state.group)
        assert told is not None and set(chosen) <= told
        tools.pointer(PointerInput("move", 1, sx + 20, sy, 0, "mouse"))
        sim = editor.sim()
        assert told == moving_cards(sim.free, sim.fixed, len(editor.plane.nodes))
        tools.pointer(PointerInput("up", 1, sx + 20, sy, 0, "mouse"))
        while editor.tick():
            pass


def test_a_step_that_moves_nothing_while_the_layout_runs_is_not_a_rest():
    """A worker's engine moves nothing in a frame its next positions have not come in yet; that
    was counted as coming to rest, and each such count made the page's halos again (in a drag
    on 3,000 cards, one frame in five)."""
    from bendscope.bend.layout.simulation import Simulation

    class Waiting(Simulation):
        """Steps as the worker's engine does: every other step has nothing new."""

        calls = 0

        def step(self, budget_ms: float = 0.0) -> bool:
            self.calls += 1
            return super().step(budget_ms) if self.calls % 2 else False

    editor = Editor(demo_document(), seed=1, layout=lambda plane, seed: Waiting(plane, seed))
    rests = editor.rests
    assert editor.tick() and editor.sim().active
    assert not editor.tick() and editor.sim().active  # nothing new, still running
    assert editor.rests == rests
    while editor.sim().active:
        editor.tick()
    editor.tick()
    assert editor.rests == rests + 1

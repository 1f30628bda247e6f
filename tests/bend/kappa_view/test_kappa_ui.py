"""Connect-to previews, Bend's target, Unbend's choice and its confirmation text."""

from __future__ import annotations

from bend_helpers import K22, editor_with

from bendscope.bend.actions.commands import Target, run
from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view import kappa_ui
from bendscope.bend.kappa_view.topology_cache import plane_graph
from bendscope.bend.menus import catalog
from bendscope.bend.model.demo import demo_document
from bendscope.kappa import preview_edge_impacts, preview_edge_removal


def demo() -> Editor:
    editor = Editor(demo_document(), seed=1)
    editor.settle()
    return editor


def test_preview_labels():
    editor = editor_with([("a", "b"), ("b", "c")], positions={"a": (0, 0), "b": (200, 0), "c": (400, 0), "d": (0, 200)})
    editor.add_node(0, 200, "d")
    previews = {p.target: p for p in kappa_ui.connect_previews(editor, "c")}
    assert previews["a"].label == "→ a (κ: 0→1 — creates feedback loop)"
    assert previews["a"].tone == "kappa" and previews["a"].closes_cycle
    node_d = next(n for n in editor.plane.nodes if editor.plane.nodes[n].text == "d")
    assert previews[node_d].label == "→ d (κ: 0→0 — no change)"
    assert previews[node_d].tone == ""  # (ink: a choice that changes no loop)
    editor.add_edge("c", node_d)
    connected = {p.target: p for p in kappa_ui.connect_previews(editor, "c")}[node_d]
    # "already connected" looked like "no change"; now its own tone and mark
    assert connected.tone == "connected" and connected.label == "✓ d — already connected" and connected.connected


def test_previews_read_the_plane_as_it_is_after_every_kind_of_change():
    """The digraph the previews ask on is built once per structure: a move or a text keeps it;
    an arc added, undone, of a kind loops ignore or made causal, and a card removed, are seen by
    the next preview — each pair's preview checked against the engine on a graph built afresh."""
    editor = editor_with([("a", "b"), ("b", "c")], positions={"a": (0, 0), "b": (200, 0), "c": (400, 0)})
    cache = editor.topology_cache

    def agrees() -> list[str]:
        nodes, edges = plane_graph(editor.plane)
        told = []
        for source in nodes:
            shown = {p.target: p for p in kappa_ui.previews_for(editor, source, [n for n in nodes if n != source])}
            fresh = preview_edge_impacts(nodes, edges, source, list(shown))
            for target, p in shown.items():
                if not p.connected:
                    assert (p.description, p.kappa_after) == (
                        fresh[target]["description"],
                        fresh[target]["scc_kappa_after"],
                    ), (source, target)
                    told.append(f"{source}{target}:{p.description}")
        return told

    assert "ca:creates feedback loop" in agrees()
    graph = cache.digraph(editor.plane)
    editor.plane.nodes["a"].x += 50  # (a move: the same graph)
    editor.set_text("b", "B")
    assert "ca:creates feedback loop" in agrees() and cache.digraph(editor.plane) is graph
    assert editor.add_edge("c", "a") is not None
    assert "ca:creates feedback loop" not in agrees() and "ba:no topological change" in agrees()
    assert cache.digraph(editor.plane) is not graph
    editor.undo()
    assert "ca:creates feedback loop" in agrees() and "ba:creates feedback loop" in agrees()
    edge = editor.add_edge("c", "a", kind="associative")  # (a kind loops do not follow)
    assert edge is not None and "ca:creates feedback loop" in agrees()
    editor.set_edge(edge, kind="causal")
    assert "ba:no topological change" in agrees()
    editor.delete_nodes(["b"])
    assert "ac:creates feedback loop" in agrees() and "b" not in cache.digraph(editor.plane).index


def test_preview_strengthens_loop():
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "a"), ("a", "c"), ("c", "b")])
    (p,) = [p for p in kappa_ui.connect_previews(editor, "b") if p.target == "a"]
    assert p.label == "→ a (κ: 1→2 — strengthens loop)"


def test_previews_nearest_first_within_radius():
    editor = editor_with([("a", "b")], positions={"a": (0, 0), "b": (450, 0)})
    editor.add_node(100, 0, "near")
    editor.add_node(900, 0, "far")
    names = [kappa_ui.display_name(editor, p.target) for p in kappa_ui.connect_previews(editor, "a")]
    assert names == ["near", "b"]


def test_bend_target_and_disabled_item():
    editor = demo()
    assert kappa_ui.bend_target(editor, "founded-2020") == "company"
    assert kappa_ui.bend_target(editor, "ceo-alice") is None
    items = {i.item_id: i for i in catalog.node_menu(editor, "ceo-alice")}
    assert items["bend"].enabled is False and items["bend"].label == "No feedback loop possible nearby"
    items = {i.item_id: i for i in catalog.node_menu(editor, "founded-2020")}
    assert items["bend"].enabled and items["bend"].label == "Bend → Company (κ: 0→1 — creates feedback loop)"
    edge_id = run(editor, "bend", Target(node_id="founded-2020"))
    edge = editor.plane.edges[edge_id]
    assert (edge.a, edge.b, edge.props.kind) == ("founded-2020", "company", "causal")
    assert editor.topology().scc_count == 2
    editor.undo()
    assert editor.topology().scc_count == 1


def test_unbend_choice_and_question_on_demo():
    editor = demo()
    choice = kappa_ui.unbend_choice(editor, "revenue")
    assert (choice.source, choice.target, choice.edge_id) == ("product-quality", "market-share", "edge-3")
    assert choice.question == ("Remove edge Product quality→Market share? This breaks the feedback loop (κ: 1→0).")
    items = {i.item_id: i for i in catalog.node_menu(editor, "revenue")}
    assert "unbend" in items and "bend" not in items
    run(editor, "unbend", Target(node_id="revenue"))
    assert editor.topology().max_kappa == 0
    editor.undo()
    assert editor.topology().max_kappa == 1


def test_unbend_prefers_fault_edge_touching_the_node():
    editor = editor_with(K22)
    faults = sorted((f["source"], f["target"]) for f in editor.topology().result["sccs"][0]["fault_line_edges"])
    for node in ("a1", "a2", "b1", "b2"):
        choice = kappa_ui.unbend_choice(editor, node)
        touching = [f for f in faults if node in f]
        assert (choice.source, choice.target) == (touching or faults)[0]
        assert choice.question.endswith("This weakens the feedback loop; a loop remains (κ: 2→1).")


def test_connect_submenu_is_lazy_and_complete():
    editor = demo()
    calls = []
    original = kappa_ui.connect_previews

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    kappa_ui.connect_previews = spy
    try:
        items = catalog.node_menu(editor, "company")
        assert calls == []  # right-click builds no previews
        connect = next(i for i in items if i.item_id == "connect")
        sub = connect.submenu()
        assert len(calls) == 1 and all(i.label.startswith("→ ") for i in sub[:-2])
        assert sub[-2].item_id == "connect-search-hint" and not sub[-2].enabled
        assert sub[-1].item_id == "connect-kind" and sub[-1].label == "New edge kind: causal"
    finally:
        kappa_ui.connect_previews = original


def test_edge_menu_marks_fault_line():
    editor = demo()
    assert catalog.edge_menu(editor, "edge-3")[0].label == "Fault line: its region's weakest cut"
    assert catalog.edge_menu(editor, "edge-0")[0].label.startswith("Kind: causal")


def test_bend_target_agrees_with_previews():
    editor = demo()
    editor.add_edge("founded-2020", "hq-austin", kind="temporal")
    for node_id in editor.plane.nodes:
        expected = next((p.target for p in kappa_ui.connect_previews(editor, node_id) if p.closes_cycle), None)
        assert kappa_ui.bend_target(editor, node_id) == expected, node_id


def test_connect_submenu_caps_at_fifty_nearest():
    editor = editor_with([("hub", "n0")], positions={"hub": (0, 0), "n0": (10, 0)})
    for i in range(1, 70):
        editor.add_node(5.0 * i, 40.0, f"n{i}")
    items = catalog.connect_submenu(editor, "hub")
    assert len(items) == 53 and items[-3].label == "…and 20 more farther away" and not items[-3].enabled
    assert items[0].label == "✓ n0 — already connected"  # (hub → n0 exists)


def _two_way_pentagon() -> Editor:
    """The issue's case: a 5-cycle of two-way arcs (κ = 2), plus Marketing fed by Price."""
    ring = ["price", "demand", "sales", "profit", "budget"]
    pairs = [(ring[i], ring[(i + 1) % 5]) for i in range(5)] + [(ring[(i + 1) % 5], ring[i]) for i in range(5)]
    positions = {n: (200.0 * i, 0.0) for i, n in enumerate(ring)} | {"marketing": (600.0, 150.0)}
    return editor_with([*pairs, ("price", "marketing")], positions=positions)


def test_bend_previews_its_effect_and_unbend_says_what_really_happens():
    editor = _two_way_pentagon()
    assert editor.topology().max_kappa == 2
    items = {i.item_id: i for i in catalog.node_menu(editor, "marketing")}
    # Bend joins Marketing to the loop through one arc in and one out: κ drops 2→1
    assert items["bend"].label == "Bend → profit (κ: 2→1 — enlarges loop)"
    run(editor, "bend", Target(node_id="marketing"))
    assert editor.topology().max_kappa == 1
    choice = kappa_ui.unbend_choice(editor, "profit")
    assert (choice.source, choice.target) == ("marketing", "profit")
    assert choice.question == (
        "Remove edge marketing→profit? marketing leaves the feedback loop; the rest stays a loop of κ 2 (the whole "
        "had κ 1)."
    )
    run(editor, "unbend", Target(node_id="profit"))
    assert editor.topology().max_kappa == 2


def test_unbend_breaks_splits_and_removes_parallel_copies():
    editor = editor_with([("a", "b"), ("b", "a")])
    assert kappa_ui.unbend_choice(editor, "a").question.endswith("This breaks the feedback loop (κ: 1→0).")
    editor.add_edge("a", "b", kind="temporal")  # a parallel copy: removing one edge alone would change nothing
    choice = kappa_ui.unbend_choice(editor, "a")
    assert len(choice.edge_ids) == 2 and choice.question.startswith("Remove the 2 edges a→b?")
    run(editor, "unbend", Target(node_id="a"))
    assert editor.topology().max_kappa == 0 and len(editor.plane.edges) == 1
    editor.undo()
    assert len(editor.plane.edges) == 3 and editor.topology().max_kappa == 1
    # two 2-cycles joined into one loop by b→c and d→a: removing b→c splits it in two
    pairs = [("a", "b"), ("b", "a"), ("c", "d"), ("d", "c"), ("b", "c"), ("d", "a")]
    ring = editor_with(pairs)
    nodes, edges = plane_graph(ring.plane)
    p = preview_edge_removal(nodes, edges, "b", "c")
    assert p["remaining_scc_nodes"] == [["a", "b"], ["c", "d"]]
    effect = kappa_ui.removal_effect(ring, ["a", "b", "c", "d"], p)
    assert effect == "This splits the loop region (κ 1) into 2 loop regions, of κ 1 each."


def test_unbend_that_splits_a_loop_into_tighter_ones_says_so_and_not_that_kappa_rises():
    """Two two-way triangles joined by one arc each way: κ 1; removing the fault line leaves
    two loops of κ 2 each. The question read "(κ: 1→2)", as if removing an edge tied the loop
    tighter; it says the loop splits, and the κ of the loop and of each part."""
    arcs = [(a, b) for a in "abc" for b in "abc" if a != b] + [(a, b) for a in "xyz" for b in "xyz" if a != b]
    editor = editor_with([*arcs, ("c", "x"), ("z", "a")])
    assert editor.topology().max_kappa == 1
    choice = kappa_ui.unbend_choice(editor, "a")
    assert choice is not None and choice.description == "splits loop"
    assert choice.question == "Remove edge c→x? This splits the loop region (κ 1) into 2 loop regions, of κ 2 each."
    nodes, edges = plane_graph(editor.plane)
    p = preview_edge_removal(nodes, edges, "c", "x")
    assert p["remaining_scc_nodes"] == [["a", "b", "c"], ["x", "y", "z"]] and p["remaining_scc_kappas"] == [2, 2]
    run(editor, "unbend", Target(node_id="a"))
    assert [s["kappa"] for s in editor.topology().result["sccs"]] == [2, 2]


def test_an_arc_that_merges_loops_says_so_in_words_and_not_that_kappa_falls():
    """A two-way triangle (κ 2) and a two-way pair (κ 1) joined one arc: the arc back merges
    them into one loop of κ 1. The label read "κ: 2→1 — merges feedback loops", as if a loop
    were weakened; it says, as Unbend says a split, the loops' κ and then the merged loop's."""
    arcs = [(a, b) for a in "abc" for b in "abc" if a != b] + [("x", "y"), ("y", "x"), ("c", "x")]
    editor = editor_with(arcs)
    (merge,) = kappa_ui.previews_for(editor, "y", ["a"])
    assert merge.description == "merges feedback loops" and (merge.kappa_before, merge.kappa_after) == (2, 1)
    assert merge.label == "→ a (merges 2 loop regions, 1 of κ 2 and 1 of κ 1, into one of κ 1)"
    editor.add_edge("y", "a")
    assert [s["kappa"] for s in editor.topology().result["sccs"]] == [1]


def test_connect_to_marks_nodes_already_connected():
    editor = editor_with([("a", "b"), ("b", "c")], positions={"a": (0, 0), "b": (100, 0), "c": (200, 0)})
    items = {i.args["to"]: i for i in catalog.connect_submenu(editor, "a") if "to" in i.args}
    assert items["b"].enabled is False and items["b"].label == "✓ b — already connected"
    assert items["c"].enabled and items["c"].label == "→ c (κ: 0→0 — no change)"
    editor.add_edge("a", "c", kind="associative")  # another kind: a causal edge is still new
    assert {i.args["to"]: i for i in catalog.connect_submenu(editor, "a") if "to" in i.args}["c"].enabled


def test_type_to_filter_finds_nodes_anywhere_on_the_plane():
    editor = demo()
    far = editor.add_node(5000, 5000, "Zebra far away")
    assert all(i.args.get("to") != far for i in catalog.connect_submenu(editor, "company"))  # beyond 500 px
    found = catalog.connect_submenu(editor, "company", "zebra")
    assert [i.args["to"] for i in found if "to" in i.args] == [far] and found[0].label.startswith(
        "→ Zebra far away (κ: 0→0"
    )
    assert catalog.connect_submenu(editor, "company", "nothing like it")[0].label == "No node matches “nothing like it”"
    merged = catalog.merge_submenu(editor, "company", "ZEBRA")
    assert [i.args["with"] for i in merged] == [far]


def test_find_dims_what_does_not_match_and_steps_through_matches():
    from bendscope.bend.editor.find import Finder

    editor = demo()
    finder = Finder(editor)
    assert set(finder.search("SHARE")) == {"revenue", "market-share"}  # text ("Follows share…") or id
    assert finder.dimmed() == set(editor.plane.nodes) - {"revenue", "market-share"}
    order = list(finder.matches)
    assert [finder.step(1), finder.step(1), finder.step(1)] == [order[0], order[1], order[0]]
    assert finder.step(-1) == order[1] and finder.status() == "2 of 2 matches"
    node = editor.plane.nodes[order[1]]
    assert editor.selection == [order[1]] and (editor.plane.camera.x, editor.plane.camera.y) == (node.x, node.y)
    assert finder.search("") == [] and finder.dimmed() == set() and finder.status() == ""


def _kind_rows(editor: Editor, node_id: str) -> list[catalog.MenuItem]:
    row = catalog.connect_submenu(editor, node_id)[-1]
    assert row.item_id == "connect-kind" and row.submenu is not None
    return row.submenu()


def test_connect_to_offers_the_kind_of_the_new_edge():
    """Connect to… always made a causal edge. Its last row chooses the kind of
    the edges it (and a drag from the handle) makes; the previews follow the kind: temporal
    edges close loops as causal ones do, other kinds never change κ; "already connected" means
    an edge of that kind."""
    from bendscope.bend.actions.dispatch import ActionManager
    from bendscope.bend.model.elements import EDGE_KINDS

    editor = editor_with([("a", "b"), ("b", "c")], positions={"a": (0, 0), "b": (100, 0), "c": (200, 0)})
    rows = _kind_rows(editor, "c")
    assert [r.args["kind"] for r in rows] == list(EDGE_KINDS)
    assert [r.checked for r in rows] == [k == "causal" for k in EDGE_KINDS] and all(r.stays_open for r in rows)
    causal = {i.args["to"]: i.label for i in catalog.connect_submenu(editor, "c") if "to" in i.args}
    assert causal["a"] == "→ a (κ: 0→1 — creates feedback loop)"
    manager = ActionManager(editor)
    temporal = next(r for r in rows if r.args["kind"] == "temporal")
    assert manager.request(temporal.action_id, Target(node_id="c"), temporal.args).kind == "done"
    assert catalog.connect_submenu(editor, "c")[-1].label == "New edge kind: temporal"
    items = {i.args["to"]: i for i in catalog.connect_submenu(editor, "c") if "to" in i.args}
    assert items["a"].label == causal["a"] and items["a"].args["kind"] == "temporal"
    assert manager.request("connect", Target(node_id="c"), items["a"].args).kind == "done"
    made = [e for e in editor.plane.edges.values() if (e.a, e.b) == ("c", "a")]
    assert [e.props.kind for e in made] == ["temporal"] and editor.topology().max_kappa == 1
    # a kind loops do not follow: no change anywhere, and a → b (causal) is no "already connected"
    manager.request("connect-kind", Target(node_id="a"), {"kind": "associative"})
    rows_a = {i.args["to"]: i for i in catalog.connect_submenu(editor, "a") if "to" in i.args}
    assert all("no change" in i.label and i.tone == kappa_ui.NO_CHANGE_TONE for i in rows_a.values())
    assert rows_a["b"].enabled
    assert manager.request("connect", Target(node_id="a"), rows_a["b"].args).kind == "done"
    assert sorted(e.props.kind for e in editor.plane.edges.values() if (e.a, e.b) == ("a", "b")) == [
        "associative",
        "causal",
    ]
    assert not {i.args["to"]: i for i in catalog.connect_submenu(editor, "a") if "to" in i.args}["b"].enabled
    # an unknown kind is refused and changes nothing
    outcome = manager.request("connect-kind", Target(node_id="a"), {"kind": "nonsense"})
    assert outcome.kind == "refused" and editor.connect_kind == "associative"


def test_an_empty_card_is_named_in_words_never_by_its_id_and_connect_tells_empty_cards_apart():
    from bendscope.bend.kappa_view.inspector import inspector_rows
    from bendscope.bend.kappa_view.outline import outline_of

    editor = editor_with(
        [("rain-id", "flood-id"), ("flood-id", "rain-id")], positions={"rain-id": (0, 0), "flood-id": (300, 0)}
    )
    editor.set_text("rain-id", "Rain")
    editor.set_text("flood-id", "Flood")
    above = editor.add_node(0, -150)
    right = editor.add_node(450, 0)
    editor.set_text("flood-id", "")  # (a card whose text was cleared, in a loop)
    for node_id in (above, right, "flood-id"):
        assert kappa_ui.display_name(editor, node_id) == kappa_ui.EMPTY_NAME
    editor.selection = [above]
    _, rows = inspector_rows(editor, editor.topology())
    assert rows[0][0] == "(empty card)"
    outline = outline_of(editor)
    shown = " ".join((outline.summary, *outline.loops, *outline.cards))
    assert "(empty card)" in shown
    for node_id in (above, right, "flood-id"):
        assert node_id not in shown
    labels = {p.target: p.label for p in kappa_ui.connect_previews(editor, "rain-id")}
    assert labels[above].startswith("→ (empty card above Rain)")
    assert labels[right].startswith("→ (empty card right of")
    assert len({labels[above], labels[right], labels["flood-id"]}) == 3
    assert not any(node_id in label for label in labels.values() for node_id in (above, right, "flood-id"))

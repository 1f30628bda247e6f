"""What the editor says about κ matches what it computes, read on the textbook population
diagram built through the editor core: the help sheet, the HUD's tooltips, the inspector of
every card and edge and of the selection, the legends (the page's and an image's), every menu
and submenu, Unbend's confirmation, the Loops panel and the outline never say that cutting
κ edges or the fault lines breaks every loop (``claims.false_claims``), and they say what is
true: κ 1, cutting the fault line splits the region, and the loops that remain."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator

from bend_helpers import editor_with
from claims import false_claims

from bendscope.bend.actions.commands import REGISTRY
from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view import kappa_ui
from bendscope.bend.kappa_view.explain import HUD_TITLES, loop_item_text
from bendscope.bend.kappa_view.inspector import inspector_rows
from bendscope.bend.kappa_view.loops_panel import panel_view
from bendscope.bend.kappa_view.outline import outline_of
from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.keys import shortcuts
from bendscope.bend.menus import catalog
from bendscope.bend.menus.catalog import MenuItem
from bendscope.bend.render.legend import legend_entries
from bendscope.bend.render.svgexport import plane_svg


def population_diagram() -> tuple[Editor, dict[str, str]]:
    """Births ⇄ Population (both +), Population → Deaths (+), Deaths → Population (−), Food
    supply → Births (+), made as a person makes it: cards, edges, polarities."""
    editor = Editor()
    ids = {}
    for k, name in enumerate(("Births", "Population", "Deaths", "Food supply")):
        ids[name] = editor.add_node(k * 260.0, (k % 2) * 160.0, name, pinned=True)
    for a, b, sign in (("Births", "Population", "+"), ("Population", "Births", "+"), ("Population", "Deaths", "+"),
                       ("Deaths", "Population", "-"), ("Food supply", "Births", "+")):  # fmt: skip
        edge_id = editor.add_edge(ids[a], ids[b])
        assert edge_id is not None
        editor.set_edge(edge_id, polarity=sign)
    editor.select([])
    return editor, ids


def _menu_texts(items: list[MenuItem]) -> Iterator[str]:
    for item in items:
        yield item.label
        if item.submenu is not None:
            yield from _menu_texts(item.submenu())


def _rows(editor: Editor, topo: Topology) -> list[tuple[str, str]]:
    return inspector_rows(editor, topo, editor.loops(wait=True), editor.loop_cuts(wait=True))[1]


def everything_said(editor: Editor) -> dict[str, list[str]]:
    """Every text the editor shows about this plane, by surface."""
    plane = editor.plane
    topo = editor.topology()
    said: dict[str, list[str]] = {"help": [], "hud": [], "inspector": [], "legend": [], "menus": [], "unbend": []}
    for touch in (False, True):
        for title, lines in shortcuts.sheet(touch=touch):
            said["help"] += [f"{title}: {term}: {meaning}" for term, meaning in lines]
    said["hud"] = [text for titles in HUD_TITLES.values() for text in titles.values()]
    for node_id in plane.nodes:
        editor.select([node_id])
        said["inspector"] += [text for text, _ in _rows(editor, topo)]
        said["menus"] += list(_menu_texts(catalog.node_menu(editor, node_id)))
        choice = kappa_ui.unbend_choice(editor, node_id)
        if choice is not None:
            said["unbend"].append(choice.question)
    for edge_id in plane.edges:
        editor.select_edge(edge_id)
        said["inspector"] += [text for text, _ in _rows(editor, topo)]
        said["menus"] += list(_menu_texts(catalog.edge_menu(editor, edge_id)))
    editor.select(list(plane.nodes)[:3])
    chosen = editor.selection_topology()
    assert chosen is not None
    said["inspector"] += [text for text, _ in _rows(editor, chosen)]
    editor.select([])
    said["menus"] += list(_menu_texts(catalog.background_menu(editor, 0.0, 0.0)))
    said["menus"] += [act.label for act in REGISTRY.values()]
    said["menus"] += [str(act.extra["disabled_label"]) for act in REGISTRY.values() if "disabled_label" in act.extra]
    said["legend"] = [entry.text for entry in legend_entries(plane, topo)]
    svg = ElementTree.fromstring(plane_svg(editor))
    said["legend"] += [t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    view = panel_view(editor, editor.loops(wait=True), cuts=editor.loop_cuts(wait=True))
    said["loops"] = [view.heading, view.summary] + [g.title for g in view.groups]
    said["loops"] += [item.label for g in view.groups for item in g.items]
    outline = outline_of(editor, topo)
    said["outline"] = [outline.summary, *outline.loops, *outline.cards]
    return said


def test_no_surface_says_a_kappa_cut_breaks_every_loop():
    editor, _ = population_diagram()
    said = everything_said(editor)
    assert all(said.values()), {k: len(v) for k, v in said.items()}
    claims = {surface: [c for text in texts for c in false_claims(text)] for surface, texts in said.items()}
    assert claims == {surface: [] for surface in said}


def test_the_true_facts_are_said():
    editor, ids = population_diagram()
    topo = editor.topology()
    (scc,) = topo.result["sccs"]
    assert scc["kappa"] == 1 and sorted(scc["nodes"]) == sorted(ids[n] for n in ("Births", "Population", "Deaths"))
    said = everything_said(editor)
    inspector = "\n".join(said["inspector"])
    assert "κ = 1: removing 1 edge (the fault line) splits this region; the loops inside each part remain" in inspector
    assert "fault line: removing it with its region's other fault lines splits the region" in inspector
    # breaking every loop takes 2 edges (one of each two-card loop), said where κ is
    assert "2 edges break every loop here (the fewest)" in inspector
    assert "2 edges break every loop of the selection (the fewest)" in inspector
    assert "2 edges break every loop of the plane (the fewest)" in said["loops"][1]
    assert said["loops"][2].endswith("· 2 edges break every loop")
    help_text = "\n".join(said["help"])
    assert "the fewest edges whose removal splits it" in help_text
    assert "Splitting is not breaking every loop" in help_text
    # Unbend on Population cuts the fault line Population → Deaths: Deaths leaves, the
    # Births ⇄ Population loop stays — and the confirmation says so
    choice = kappa_ui.unbend_choice(editor, ids["Population"])
    assert choice is not None and (choice.source, choice.target) == (ids["Population"], ids["Deaths"])
    assert choice.question == (
        "Remove edge Population→Deaths? Deaths leaves the feedback loop; the rest stays a loop (κ: 1→1)."
    )
    assert "Unbend — Cut a Fault Line" in said["menus"]


def test_the_touch_help_names_a_fingers_ways_not_hovering_or_keys():
    """The help sheet on a touch screen said of the Loops panel "hover or choose one" (a finger
    cannot hover) and "Show them (K)" (a phone has no K key); with a mouse those words stay."""
    touch = dict(shortcuts.sheet(touch=True))["What κ means"]
    words = " ".join(what for _, what in touch)
    assert "hover" not in words and "(K)" not in words, words
    assert "tap one to see it on the canvas" in dict(touch)["Loops panel"]
    mouse = " ".join(what for _, what in dict(shortcuts.sheet())["What κ means"])
    assert "hover or choose one" in mouse and "Show them (K)" in mouse


def test_the_outline_of_an_empty_plane_names_a_fingers_ways_on_a_touch_screen():
    """On a touch screen the outline of an empty plane said "double-click, or Shift+F10"."""
    editor = Editor()
    editor.set_touch(True)
    summary = outline_of(editor).summary
    assert "double-tap, or long-press then New node here" in summary and "click" not in summary, summary
    editor.set_touch(False)
    assert "double-click, or Shift+F10" in outline_of(editor).summary


def test_a_region_past_the_exact_bound_is_said_with_its_bounds_on_every_surface():
    """Two two-way triangles joined by one edge each way, past an exact bound of 3 cards: κ 1,
    known only as 1–2, and 2 (the smallest cut found) is its upper bound. Every surface names
    the bounds; none says 2 as if it were κ. The legend said "feedback loop, κ=2" beside the
    badge's κ=1–2, and the time panel's loop list "κ 2"."""
    arcs = [(a, b) for a in "abc" for b in "abc" if a != b] + [(a, b) for a in "xyz" for b in "xyz" if a != b]
    editor = editor_with([*arcs, ("c", "x"), ("z", "a")])
    editor.exact_limit_override = 3
    (scc,) = editor.topology().result["sccs"]
    assert (scc["kappa"], scc["approximate"], scc["kappa_range"]) == (2, True, [1, 2])
    said = everything_said(editor)
    assert "feedback loop, κ=2 or a range up to 2" in said["legend"] and "κ=1–2" in said["legend"]
    assert "feedback loop, κ=2" not in said["legend"]
    assert said["loops"][2].startswith("Loop region 1 · κ 1–2 ·") and "κ 1–2" in said["outline"][0]
    assert any(text.startswith("κ 1–2 (bounds") for text in said["inspector"])
    assert loop_item_text(scc, {n: n.upper() for n in "abcxyz"}) == "κ 1–2: “A”, “B”, “C”, “X”, “Y”, “Z”"
    bare = re.compile(r"κ ?[=:]? ?2(?![–\d])")
    whole = [t for texts in said.values() for t in texts if "of the selection" not in t and "or a range" not in t]
    assert [t for t in whole if bare.search(t)] == []

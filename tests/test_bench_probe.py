"""The independent probe's κ checks read κ as the page writes it: a value, or past the exact
bound a range of bounds (``κ: 1–3``, ``κ=1–3``), which holds when it contains the engine's κ."""

from __future__ import annotations

from typing import Any

import probe_hand


def test_a_value_or_a_range_holds_the_engines_kappa() -> None:
    assert probe_hand.holds("2", 2) and probe_hand.holds("1–3", 3) and probe_hand.holds("1–3", 1)
    assert not probe_hand.holds("2", 3) and not probe_hand.holds("1–3", 4) and not probe_hand.holds("κ", 1)


class _Page:
    def __init__(self) -> None:
        self.viewport_size = {"width": 800, "height": 600}


class _App:
    """What badge_problems reads of a page: each region's members' boxes."""

    def __init__(self, boxes: list[list[list[float]]]) -> None:
        self.page = _Page()
        self.boxes = boxes

    def api(self, _script: str, _arg: Any = None) -> Any:
        return self.boxes


def test_range_badges_are_counted_and_checked_against_their_region() -> None:
    truth = {"sccs": [{"nodes": ["a", "b"], "kappa": 3}, {"nodes": ["c", "d"], "kappa": 1}]}
    app = _App([[[100, 100, 50, 20], [100, 200, 50, 20]], [[500, 300, 50, 20], [500, 400, 50, 20]]])
    drawn = [["κ=1–3", 150, 100, None], ["κ=1", 550, 300, None]]
    assert probe_hand.badge_problems(app, truth, drawn) == []
    wrong = [["κ=4–5", 150, 100, None], ["κ=1", 550, 300, None]]
    assert probe_hand.badge_problems(app, truth, wrong) == ["badge κ=4–5 at (150, 100) on a region of κ 3"]


def test_the_probes_shapes_are_what_their_names_say() -> None:
    """Each of the probe's graphs, as the κ engine reads it: its regions, their sizes and κ (the
    probe's claims of correctness stand on these)."""
    import probe_graphs as g

    from bendscope.kappa import analyze

    def read(doc: dict) -> tuple[int, set[int], int]:
        result = analyze(*g.graph_input(doc))
        return len(result["sccs"]), {len(s["nodes"]) for s in result["sccs"]}, result["max_kappa"]

    assert read(g.chords_graph(300)) == (1, {300}, 1)
    assert read(g.stars_graph(300, arms=10)) == (1, {300}, 1)
    assert read(g.bipartite_graph(2000)) == (1, {2000}, 2)
    assert read(g.pairs_graph(300)) == (150, {2}, 1)
    texts = g.texts_graph(300)
    assert max(len(n["text"]) for n in texts["nodes"]) >= 200
    assert any(any("\u0590" <= ch <= "\u06ff" for ch in n["text"]) for n in texts["nodes"])  # (right-to-left)
    assert all(n["text"].startswith(n["id"] + " ") for n in texts["nodes"])  # (names map back to cards)


def test_a_merge_is_checked_against_the_loops_it_joins_and_the_kappa_recomputed() -> None:
    """(Connect to… says an arc that merges loops in words — "merges 2 loop regions, … into one
    of κ 1" — which the probe read as no preview at all.)"""
    doc = {
        "nodes": [{"id": f"k000{i}"} for i in range(4)],
        "edges": [{"source": a, "target": b} for a, b in (("k0000", "k0001"), ("k0001", "k0000"), ("k0002", "k0003"),
                                                         ("k0003", "k0002"), ("k0001", "k0002"))],
    }  # fmt: skip
    said = "→ k0000 Zero (merges 2 loop regions, of κ 1 each, into one of κ {})"
    assert probe_hand.preview_checks(doc, "k0003", [said.format(1)], 5) == {"checked": 1, "problems": []}
    wrong = probe_hand.preview_checks(doc, "k0003", [said.format(2)], 5)
    assert wrong["checked"] == 1 and len(wrong["problems"]) == 1


def test_the_probes_graphs_are_the_shapes_their_docstrings_say() -> None:
    """bench/ is not collected by the doctest run, so the shapes' doctests run here."""
    import doctest

    import probe_graphs

    result = doctest.testmod(probe_graphs)
    assert result.attempted >= 8 and result.failed == 0

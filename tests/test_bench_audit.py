"""The audit's pure parts: its graphs are the shapes they say (loop regions, hubs, texts, signs),
its CSV reads back as the same graph through the editor's own reader, and its figures (intervals
from the act, input → frame, the Connect-to words, the Loops panel's loops) are read right."""

from __future__ import annotations

import audit_figures as fig
import audit_graphs as graphs

from bendscope.kappa import analyze
from bendscope.shared.graphformats import read_graph


def _regions(doc: graphs.Doc) -> list[dict]:
    return analyze(*graphs.engine_input(doc))["sccs"]


def test_each_shape_is_what_it_says() -> None:
    model = graphs.causal_model(400)
    assert all(e["polarity"] in "+-" for e in model["edges"])
    assert max(len(s["nodes"]) for s in _regions(model)) > 100  # (sectors joined into one long-loop region)
    cites = graphs.citations(600)
    assert len(_regions(cites)) == 1 and len(_regions(cites)[0]["nodes"]) > 100  # (one era's loop region)
    hubs = graphs.scale_free(600)
    degree: dict[str, int] = {}
    for e in hubs["edges"]:
        degree[e["target"]] = degree.get(e["target"], 0) + 1
    assert max(degree.values()) > 30
    texts = graphs.multiline(200)
    assert min(n["text"].count("\n") for n in texts["nodes"]) >= 2
    regions = graphs.medium_regions(900)
    kappas = {s["kappa"] for s in _regions(regions)}
    assert {1, 2, 3, 4} <= kappas
    for doc in (model, cites, hubs, texts, regions):
        arcs = [(e["source"], e["target"]) for e in doc["edges"]]
        assert len(arcs) == len(set(arcs)) and all(a != b for a, b in arcs)
        assert len({e["id"] for e in doc["edges"]}) == len(arcs)


def test_the_csv_reads_back_as_the_same_graph_signs_included() -> None:
    doc = graphs.causal_model(120)
    read = read_graph(graphs.to_csv(doc), "csv")
    assert [n["id"] for n in read["nodes"]] == [n["id"] for n in doc["nodes"]]
    assert [n["text"] for n in read["nodes"]] == [n["text"] for n in doc["nodes"]]
    got = sorted((e["a"], e["b"], e["props"]["polarity"]) for e in read["edges"])
    assert got == sorted((e["source"], e["target"], e["polarity"]) for e in doc["edges"])


def test_locomo_turns_make_loops_of_recall() -> None:
    turns = [("c:1", "A: we went sailing near Lisbon", 1), ("c:2", "B: Lisbon sounds lovely?", 1),
             ("c:3", "A: yes", 1), ("c:4", "B: sailing again, Lisbon", 2)]  # fmt: skip
    doc = graphs.locomo_document(turns)
    # "sailing" is rare (two turns): the last turn points back at the first; the question's
    # follow-up two turns on points back at it; "lisbon" (three turns) is not rare
    assert {(e["source"], e["target"]) for e in doc["edges"] if e["kind"] == "causal"} == {("t3", "t0"), ("t3", "t1")}
    assert [s["nodes"] for s in _regions(doc)] == [["t0", "t1", "t2", "t3"]]


def test_intervals_run_from_the_act_and_lags_to_the_next_frame() -> None:
    spans = fig.intervals(100.0, [90.0, 110.0, 150.0, 166.0, 183.0], end=160.0)
    assert fig.lengths(spans) == [10.0, 40.0, 16.0]
    assert fig.lags([["pointermove", 105.0], ["pointermove", 150.0]], [110.0, 150.0]) == [5.0, 0.0]
    assert fig.p95([10.0] * 19 + [99.0]) == 10.0 and fig.p95([10.0] * 18 + [99.0] * 2) == 99.0


def test_targets_and_verdicts_follow_the_issue() -> None:
    assert fig.target("load_p95", 1000) == 20.0 and fig.target("load_p95", 2000) == 33.0
    assert fig.target("drag_p95", 3000) == 33.0 and fig.target("connect_task", 3000) == 100.0
    assert fig.met(20.0, 20.0) == "met" and fig.met(0.09, 0.10, larger_is_better=True) == "missed"


def test_connect_words_are_read_back() -> None:
    assert fig.read_item("→ Region 3 · item 4 (κ: 2→3 — strengthens loop)") == {
        "name": "Region 3 · item 4", "before": (2, 2), "after": (3, 3), "words": "strengthens loop"}  # fmt: skip
    assert fig.read_item("→ (empty card below X) (κ: 1–3→1–3 — no change)")["before"] == (1, 3)
    assert fig.first_line("  \nNote 5: cost in jobs\n- more") == "Note 5: cost in jobs"


def test_the_loops_panel_check_finds_a_loop_that_does_not_close_or_a_wrong_sign() -> None:
    arcs = {"e1": ("a", "b", "-"), "e2": ("b", "c", "-"), "e3": ("c", "a", "+"), "e4": ("c", "b", None)}
    good = {"loops": [{"nodes": ["a", "b", "c"], "edges": ["e1", "e2", "e3"], "polarity": "R"},
                      {"nodes": ["b", "c"], "edges": ["e2", "e4"], "polarity": "?"}]}  # fmt: skip
    assert fig.loop_problems(good, arcs) == []
    wrong = {"loops": [{"nodes": ["a", "b", "c"], "edges": ["e1", "e2", "e4"], "polarity": "R"}]}
    assert fig.loop_problems(wrong, arcs) == ["loop a→b→c: its arcs do not close a loop through its cards"]

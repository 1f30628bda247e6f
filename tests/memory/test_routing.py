"""Routing by the question's own region, measured on the labelled domains of
``bench/routing`` (the project's own and the held-out ones, written by another author who never
saw the rule): lookups are not deliberated, loop questions are, with their loop whole — both
directions, on memories with the traps a realistic memory holds."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from bench_routing import FOLDER, domains, run_domain, share, summary  # noqa: E402

from bendscope.memory.core.routing.intent import intent  # noqa: E402

SETS = {"own": FOLDER, "held out": FOLDER / "heldout"}


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_routing_targets_hold_on_every_domain(name):
    tallies = [run_domain(domain) for domain in domains(SETS[name])]
    assert len(tallies) >= 4
    for t in tallies:
        assert 40 <= t["nodes"] <= 70 and t["lookups"] >= 20 and t["loops"] >= 7, t["domain"]
        assert share(t["unnecessary"], t["lookups"]) <= 0.20, (t["domain"], t["errors"])
        assert share(t["missed"], t["loops"]) <= 0.05, (t["domain"], t["errors"])
        assert t["cut"] == 0, (t["domain"], t["errors"])  # (a loop question gets its loop whole)
    together = summary(tallies, name)
    assert together["top5_ratio"] >= 0.90
    # the rule before (deliberate when the window touches a loop) fails the same questions
    assert together["window_unnecessary_ratio"] > 0.5


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Why does the algae bloom keep coming back?", "dynamics"),
        ("Is permafrost thaw self-reinforcing?", "dynamics"),
        ("What happens to churn as we grow?", "dynamics"),
        ("Would the lake recover on its own if we stopped the runoff?", "dynamics"),
        ("How do referrals and customer numbers feed each other?", "dynamics"),
        ("When was the Paris Agreement adopted?", "lookup"),
        ("How much did Arctic sea ice decline between 1979 and 2023?", "lookup"),
        ("Why was the agency founded?", "lookup"),
        ("What kinds of requests end up in the queue?", "lookup"),
        ("What's the difference between the avalanche and snowball methods?", "lookup"),
        ("methane's warming potential", "open"),
    ],
)
def test_the_intent_of_a_question(question, kind):
    assert intent(question) == kind

"""A change of the memory taken in between frames (``bend.live.intake``): the page's fetches,
the intake's tasks and its frames in any order, an agent writing meanwhile. A frame that draws
after a change's steps ran takes nothing in (no κ edit, no change to the scene plan), a frame
held draws nothing, no more than ``hold_frames`` frames are held for one change; and once the
burst settles, what the page shows — κ (the topology) and the scene plan (cards, edges,
halos, flags) — is what a fresh page would show of the same document."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from bendscope.bend.kappa_view.topology_cache import Topology, TopologyCache
from bendscope.bend.live.intake import KAPPA, PLAN, Intake
from bendscope.bend.model.elements import Plane
from bendscope.bend.render.sceneplan import ScenePlanner
from bendscope.memory.core.service import Memory
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.web.deltas import ViewLog
from tests.bend.render.test_sceneplan_updates import PlanMirror
from tests.bend.test_live import Page, memory_knowledge, page_knowledge

#: what a frame's plan update sends when it takes a change in (a frame after the intake sends none)
TAKING_IN = {"setNodes", "appendNodes", "patchNodes", "setEdges", "appendEdges", "patchEdges", "setHalos", "setFlags"}


def facts(topology: Topology) -> tuple[Any, ...]:
    """What the page shows of κ: each loop region's cards and κ, and the fault-line edges."""
    regions = sorted((sorted(scc["nodes"]), scc["kappa"]) for scc in topology.result["sccs"])
    return topology.max_kappa, regions, sorted(topology.fault_edges)


class IntakeMachine(RuleBasedStateMachine):
    """The page's fetch, intake and frame tasks in any order while an agent writes loops."""

    def __init__(self) -> None:
        super().__init__()
        self.memory = Memory(InMemoryStore())
        for k in range(4):  # (a loop to begin with: halos and κ colours to keep up to date)
            self.memory.store_node({"id": f"p{k}", "content": f"Prior {k}"})
        for k in range(4):
            self.memory.store_edge({"id": f"pe{k}", "source_id": f"p{k}", "target_id": f"p{(k + 1) % 4}",
                                    "edge_type": "causal"})  # fmt: skip
        self.page = Page(self.memory, log=ViewLog(keep=4))
        self.editor = self.page.editor
        self.planner, self.mirror = ScenePlanner(), PlanMirror()
        self.kappa_budget = math.inf
        self.intake = Intake(kappa=lambda: self.editor.shown_topology(self.kappa_budget), plan=self._update)
        self.count = 0
        self.held_run = 0  # frames held in a row
        self.frame()  # (the page's first frame)

    def _update(self, budget: float = 0.0) -> list[Any]:
        """The plan brought to the document (what the intake's plan step and each frame do)."""
        editor = self.editor
        topology = editor.shown_topology(budget)
        calls = self.planner.update(editor.plane, editor.card, doc_version=editor.version, topology=topology,
                                    measure=editor.measure, viewport=editor.viewport)  # fmt: skip
        self.mirror.apply(calls)
        return calls

    @rule(budget=st.sampled_from([0.0, math.inf]))
    def kappa_budget_is(self, budget: float) -> None:
        """κ's step finishes the edit, or runs one step of it (a whole computation: not waited for)."""
        self.kappa_budget = budget

    @rule(back=st.integers(0, 9), loop=st.booleans())
    def agent_writes(self, back: int, loop: bool) -> None:
        known = sorted(memory_knowledge(self.memory)[0])
        self.count += 1
        node_id = f"w{self.count}"
        self.memory.store_node({"id": node_id, "content": f"Observation {self.count}"})
        if not known:
            return
        other = known[back % len(known)]
        self.memory.store_edge({"id": f"e{node_id}", "source_id": other, "target_id": node_id, "edge_type": "causal"})
        if loop:  # (back into the loop: the region grows)
            self.memory.store_edge({"id": f"f{node_id}", "source_id": node_id, "target_id": other,
                                    "edge_type": "causal"})  # fmt: skip

    @precondition(lambda self: bool(memory_knowledge(self.memory)[0]))
    @rule(data=st.data())
    def agent_deletes(self, data: st.DataObject) -> None:
        self.memory.delete_node(data.draw(st.sampled_from(sorted(memory_knowledge(self.memory)[0]))))

    @rule()
    def page_fetches(self) -> None:
        """The page's fetch task: the changes merged, their intake due (as app.live_mode)."""
        version = self.editor.version
        self.page.sync.changed()
        step = self.page.sync.next_step()
        assert step is not None and step[0] == "fetch"
        self.page.take(*self.page.answer())
        if self.editor.version != version:
            self.intake.arrived()

    @precondition(lambda self: self.intake.pending)
    @rule()
    def intake_task(self) -> None:
        step = self.intake.steps[0]
        self.intake.run()
        if step == KAPPA and self.kappa_budget == math.inf:
            assert not self.editor.plane.topology_dirty  # (κ's edit done in its own task)

    @rule()
    def frame(self) -> None:
        """An animation frame: held while a step is left (at most ``hold_frames`` in a row), else
        it draws — taking nothing in when the steps ran before it."""
        left = list(self.intake.steps)
        if self.intake.holds(gesture=False):
            self.held_run += 1
            assert self.held_run <= self.intake.hold_frames
            return
        self.held_run = 0
        ready = not left and not self.editor.plane.topology_dirty
        calls = self._update(budget=6.0 if left else math.inf)
        if ready:
            assert not TAKING_IN & {name for name, _ in calls}, [name for name, _ in calls]

    @rule()
    def settles(self) -> None:
        """The burst is over: the page fetches what is left, its tasks run, a frame draws."""
        self.page.sync.changed()
        self.page.settle()
        assert page_knowledge(self.page) == memory_knowledge(self.memory)
        self.intake.arrived()  # (whether or not the last fetch brought anything: the steps are idempotent)
        while self.intake.pending:
            self.intake.run()
        self.frame()
        plane = self.editor.plane
        assert not self.editor.topology_cache.pending(plane)
        fresh_plane = Plane(plane.id)
        for node in plane.nodes.values():
            fresh_plane.add_node(node)
        for edge in plane.edges.values():
            fresh_plane.add_edge(edge)
        fresh = TopologyCache().get(fresh_plane)
        shown = self.editor.shown_topology(0.0)
        assert facts(shown) == facts(fresh)
        planner, mirror = ScenePlanner(), PlanMirror()
        mirror.apply(planner.update(plane, self.editor.card, doc_version=self.editor.version, topology=shown,
                                    measure=self.editor.measure, viewport=self.editor.viewport))  # fmt: skip
        assert self.mirror.state() == mirror.state()
        assert self.mirror.parts.get("halos") == mirror.parts.get("halos")

    @invariant()
    def steps_in_order(self) -> None:
        assert self.intake.steps in ([], [KAPPA, PLAN], [PLAN])


IntakeMachine.TestCase.settings = settings(
    max_examples=25, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestIntake = IntakeMachine.TestCase


def test_a_change_is_taken_in_by_two_tasks_and_the_frame_between_them_keeps_the_picture() -> None:
    done: list[str] = []
    intake = Intake(kappa=lambda: done.append(KAPPA), plan=lambda: done.append(PLAN))
    assert not intake.holds(gesture=False)  # (nothing to take in: frames draw)
    intake.arrived()
    assert intake.holds(gesture=False)  # (a frame before the tasks: held)
    assert intake.run() and done == [KAPPA]
    assert intake.holds(gesture=False)
    assert not intake.run() and done == [KAPPA, PLAN]
    assert not intake.holds(gesture=False) and intake.counts["held"] == 2


def test_the_hold_is_bounded_and_never_holds_a_gesture() -> None:
    intake = Intake(kappa=lambda: None, plan=lambda: None, hold_frames=2)
    intake.arrived()
    assert not intake.holds(gesture=True)  # (a drag's frame draws, and makes what was left)
    assert not intake.pending
    intake.arrived()
    assert intake.holds(gesture=False) and intake.holds(gesture=False)
    assert not intake.holds(gesture=False) and not intake.pending  # (the third draws)
    assert intake.counts == {"changes": 2, KAPPA: 0, PLAN: 0, "held": 2, "unheld": 2}


def test_a_change_arriving_before_the_steps_ran_takes_them_again_in_order() -> None:
    done: list[str] = []
    intake = Intake(kappa=lambda: done.append(KAPPA), plan=lambda: done.append(PLAN))
    intake.arrived()
    intake.run()
    intake.arrived()  # (the document changed after κ's edit: κ again, then the plan)
    while intake.pending:
        intake.run()
    assert done == [KAPPA, KAPPA, PLAN]

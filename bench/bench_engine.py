"""κ engine benchmarks: medians and ratios measured side by side in one process.

    python bench/bench_engine.py                 # full run (a few minutes: networkx is slow)
    python bench/bench_engine.py --quick         # tiny sizes, for a smoke test
    python bench/bench_engine.py --before REV    # the previews also against the engine of git revision REV

1. vs networkx (strongly_connected_components + minimum_edge_cut per SCC) on random
   strongly connected digraphs (≈ 3n arcs), on unions of 3 random Hamiltonian
   cycles (every node with in/out-degree ≥ 3, also ≈ 3n arcs) and on the hard case
   (two dense halves joined by 3 arcs each way: κ = 3 while the degree bound is 4);
2. vs the spec's brute-force bitmask method on SCCs of 12 to 20 nodes;
3. the full ``analyze`` of a 100-node editor-like graph;
4. κ at every size: SCCs of 2,000 / 3,000 / 10,000 nodes (≈ 3n arcs with κ 2–3, ≈ 11n
   arcs with κ 8), time and units of work (what the work budget counts), and what a small
   budget reports instead;
5. dense SCCs (the complete digraph on 316 nodes; 400 nodes with ≈ 100,000 arcs): the
   degree bound against the full search, in the same process;
6. 40 Connect-to previews on 2,000- and 3,000-node regions: the engine's previews against
   re-cutting the region per candidate (and, with ``--before REV``, against the previews of
   that revision's engine, loaded from git), all in the same run;
7. minimum feedback arc sets with the default budget: exact up to what size, the range
   beyond.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bruteforce import bitmask_kappa
from graphs import adjacency, random_strong, two_dense_halves

from bendscope.kappa import DEFAULT_ARCSET_BUDGET, DEFAULT_WORK_BUDGET, analyze, preview_edge_impacts
from bendscope.kappa.arcset import minimum_feedback_arc_set_steps
from bendscope.kappa.mincut import arc_strong_connectivity, kappa_cut_steps
from bendscope.kappa.steps import Meter, finish

ROOT = Path(__file__).resolve().parents[1]


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)


def hamiltonian_union(n: int, cycles: int = 3, seed: int = 0) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    arcs: set[tuple[int, int]] = set()
    for _ in range(cycles):
        perm = list(range(n))
        rng.shuffle(perm)
        arcs |= {(perm[i], perm[(i + 1) % n]) for i in range(n)}
    return sorted(arcs)


def as_input(n: int, arcs: list[tuple[int, int]]):
    names = [f"n{i:05d}" for i in range(n)]
    return names, [{"source": names[u], "target": names[v], "kind": "causal"} for u, v in arcs]


def networkx_job(nx, names, edges) -> int:
    g = nx.DiGraph()
    g.add_nodes_from(names)
    g.add_edges_from((e["source"], e["target"]) for e in edges)
    best = 0
    for comp in nx.strongly_connected_components(g):
        if len(comp) > 1:
            best = max(best, len(nx.minimum_edge_cut(g.subgraph(comp))))
    return best


def bench_networkx(sizes: list[int], nx_repeat: int, our_repeat: int) -> None:
    import networkx as nx

    print("## κ engine vs networkx (SCCs + minimum_edge_cut per SCC)")
    print(f"{'graph':<34}{'arcs':>7}{'κ':>4}{'networkx ms':>14}{'kappa ms':>11}{'ratio':>9}")
    for n in sizes:
        cases = [
            ("random strong", random_strong(n, 3, seed=n)),
            ("3 Hamiltonian cycles", hamiltonian_union(n, 3, seed=n)),
            ("hard: halves + 3 bridges", two_dense_halves(n, 4, 3, seed=n)),
        ]
        for label, arcs in cases:
            names, edges = as_input(n, arcs)
            ours = analyze(names, edges, exact_limit=n)
            theirs = networkx_job(nx, names, edges)
            assert ours["max_kappa"] == theirs, (label, n, ours["max_kappa"], theirs)
            t_nx = median_ms(lambda names=names, edges=edges: networkx_job(nx, names, edges), nx_repeat)
            t_us = median_ms(lambda names=names, edges=edges, n=n: analyze(names, edges, exact_limit=n), our_repeat)
            print(f"{label + f' n={n}':<34}{len(arcs):>7}{theirs:>4}{t_nx:>14.1f}{t_us:>11.2f}{t_nx / t_us:>8.0f}×")


def bench_bruteforce(sizes: list[int]) -> None:
    print("\n## κ engine vs the spec's bitmask enumeration (one SCC, ≈ 3n arcs)")
    print(f"{'nodes':<8}{'κ':>4}{'bitmask ms':>13}{'kappa ms':>11}{'ratio':>10}")
    for n in sizes:
        out = adjacency(n, hamiltonian_union(n, 3, seed=n))
        kappa, _ = arc_strong_connectivity(out)
        assert kappa == bitmask_kappa(out)
        t_bf = median_ms(lambda out=out: bitmask_kappa(out), 3 if n <= 16 else 1)
        t_us = median_ms(lambda out=out: arc_strong_connectivity(out), 200)
        print(f"{n:<8}{kappa:>4}{t_bf:>13.1f}{t_us:>11.3f}{t_bf / t_us:>9.0f}×")


def editor_like(n: int, seed: int = 7):
    """Nodes in a few clusters; mostly local edges of mixed kinds, some small loops."""
    rng = random.Random(seed)
    names = [f"node-{i}" for i in range(n)]
    kinds = ["causal"] * 6 + ["temporal"] * 2 + ["context", "associative", "user"]
    edges = []
    for i in range(n):
        for _ in range(rng.choice((1, 1, 2))):
            j = min(n - 1, max(0, i + rng.randint(-6, 6)))
            edges.append({"id": f"e{len(edges)}", "source": names[i], "target": names[j], "kind": rng.choice(kinds)})
    return names, edges


def bench_editor(n: int, repeat: int) -> None:
    names, edges = editor_like(n)
    result = analyze(names, edges)
    t = median_ms(lambda: analyze(names, edges), repeat)
    print(f"\n## full analyze of a {n}-node editor-like graph ({len(edges)} edges, mixed kinds)")
    print(f"SCCs {result['scc_count']}, max κ {result['max_kappa']}: median {t:.3f} ms over {repeat} runs")


def bench_large(sizes: list[int], repeat: int) -> None:
    """κ of one large SCC, exactly, with the units of work the budget counts."""
    print(f"\n## κ at every size: one SCC, CPython (default work budget {DEFAULT_WORK_BUDGET:,} units per SCC)")
    print(f"{'graph':<40}{'arcs':>8}{'κ':>4}{'kappa ms':>11}{'units':>13}{'ns/unit':>9}")
    for n in sizes:
        for label, arcs in (
            ("3 Hamiltonian cycles ≈3n arcs", hamiltonian_union(n, 3, seed=n)),
            ("hard: halves + 3 bridges ≈5n arcs", two_dense_halves(n, 4, 3, seed=n)),
            ("dense: halves + 8 bridges ≈11n arcs", two_dense_halves(n, 10, 8, seed=n)),
        ):
            out = adjacency(n, arcs)
            meter = Meter()
            found = finish(kappa_cut_steps(out, meter))
            assert found.exact
            t = median_ms(lambda out=out: arc_strong_connectivity(out), repeat)
            print(
                f"{label + f' n={n:,}':<40}{len(arcs):>8}{found.kappa:>4}{t:>11.1f}{meter.total:>13,}"
                f"{t * 1e6 / meter.total:>9.0f}"
            )
    n = sizes[-1]
    out = adjacency(n, two_dense_halves(n, 10, 8, seed=n))
    print(f"what smaller budgets report for the dense {n:,}-node SCC (κ = 8):")
    for budget in (0, 1_000_000, 10_000_000):
        start = time.perf_counter()
        found = finish(kappa_cut_steps(out, Meter(), work_budget=budget))
        ms = (time.perf_counter() - start) * 1000
        print(f"  budget {budget:>12,}: κ in [{found.lower}, {found.kappa}] (exact {found.exact}), {ms:.0f} ms")


def bench_dense(sizes: list[int]) -> None:
    """Dense SCCs: the degree bound (κ = δ when δ ≥ n/2) against every stage of the search."""
    print("\n## dense SCCs: degree bound vs the full search (same κ and fault line)")
    print(f"{'graph':<34}{'arcs':>8}{'κ':>5}{'full ms':>11}{'bound ms':>11}{'ratio':>10}")
    rng = random.Random(5)
    for n, density in sizes:
        arcs = {(u, (u + 1) % n) for u in range(n)}
        arcs |= {(u, v) for u in range(n) for v in range(n) if u != v and rng.random() < density}
        out = adjacency(n, sorted(arcs))
        fast = arc_strong_connectivity(out)
        slow = arc_strong_connectivity(out, degree_bound=False)
        assert fast == slow
        t_full = median_ms(lambda out=out: arc_strong_connectivity(out, degree_bound=False), 1)
        t_fast = median_ms(lambda out=out: arc_strong_connectivity(out), 5)
        label = "complete" if density >= 1 else f"density {density:g}"
        print(
            f"{label + f' n={n}':<34}{len(arcs):>8}{fast[0]:>5}{t_full:>11.1f}{t_fast:>11.2f}{t_full / t_fast:>9.0f}×"
        )


def engine_at(revision: str) -> ModuleType:
    """The κ engine package of git revision ``revision``, imported as ``kappa_before`` from a
    temporary directory (its modules import each other relatively)."""
    files = subprocess.run(
        ["git", "ls-tree", "--name-only", revision, "py/bendscope/kappa/"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    package = Path(tempfile.mkdtemp()) / "kappa_before"
    package.mkdir()
    for name in files:
        text = subprocess.run(["git", "show", f"{revision}:{name}"], cwd=ROOT, capture_output=True, check=True).stdout
        (package / Path(name).name).write_bytes(text)
    sys.path.insert(0, str(package.parent))
    return importlib.import_module("kappa_before")


def preview_cases(n: int) -> list[tuple[str, list[tuple[int, int]], int]]:
    """(label, arcs, source) for the preview benchmark on an n-node region."""
    rng = random.Random(n)
    # i → i+1, i+2, i+3 (κ 3), less 0 → 3 and plus 5 → 3: {0} (2 arcs out) is the only minimum cut
    rising = sorted({(i, (i + k) % n) for i in range(n) for k in (1, 2, 3)} - {(0, 3)} | {(5, 3)})
    giant = [(rng.randrange(i), i) for i in range(1, n)]  # a spanning tree (DAG leaves) plus random arcs
    while len(giant) < 2 * n:
        u, v = rng.randrange(n), rng.randrange(n)
        if u != v:
            giant.append((u, v))
    return [
        ("hard: halves + 3 bridges (κ 3)", two_dense_halves(n, 4, 3, seed=n), 0),
        ("random strong ≈3n arcs (κ 1)", random_strong(n, 3, seed=n), 0),
        ("κ rises: {source} is the only min cut", rising, 0),
        ("giant SCC + DAG nodes (merges)", sorted(set(giant)), n // 2),
    ]


def bench_previews(sizes: list[int], candidates: int, before: ModuleType | None) -> None:
    """Connect-to previews: the engine against re-cutting the region per candidate (and
    against the previews of another revision's engine, with exact κ at this size)."""
    print(f"\n## {candidates} Connect-to previews per source (candidates: random nodes), CPython")
    head = f"{'graph':<40}{'κ':>3}{'rises':>6}{'merges':>7}{'now ms':>9}{'re-cut ms':>11}{'ratio':>8}"
    print(head + (f"{'before ms':>11}{'ratio':>8}" if before else ""))
    for n in sizes:
        for label, arcs, source in preview_cases(n):
            print(preview_row(f"{label} n={n:,}", n, arcs, source, candidates, before))


def preview_row(
    label: str, n: int, arcs: list[tuple[int, int]], source: int, candidates: int, before: ModuleType | None
) -> str:
    names, edges = as_input(n, arcs)
    present = set(arcs)
    rng = random.Random(3)
    targets: list[str] = []
    while len(targets) < candidates:
        v = rng.randrange(n)
        if v != source and (source, v) not in present and names[v] not in targets:
            targets.append(names[v])
    base = analyze(names, edges)
    src = names[source]
    impacts = preview_edge_impacts(names, edges, src, targets, base=base)
    rises = sum(p["description"] == "strengthens loop" for p in impacts.values())
    merges = sum(p["description"] in ("merges feedback loops", "enlarges loop") for p in impacts.values())

    def recut() -> None:  # what a preview costs without the shortcuts: κ of the graph with each arc
        for t in targets:
            after = analyze(names, [*edges, {"source": src, "target": t, "kind": "causal"}])
            assert after["max_kappa"] == impacts[t]["kappa_after"]

    t_now = median_ms(lambda: preview_edge_impacts(names, edges, src, targets, base=base), 5)
    t_recut = median_ms(recut, 1)
    row = f"{label:<40}{base['max_kappa']:>3}{rises:>6}{merges:>7}{t_now:>9.1f}{t_recut:>11.0f}{t_recut / t_now:>7.0f}×"
    if before is not None:
        old_base = before.analyze(names, edges, exact_limit=n)
        old = before.preview_edge_impacts(names, edges, src, targets, base=old_base, exact_limit=n)
        assert {t: (p["kappa_after"], p["description"]) for t, p in old.items()} == {
            t: (p["kappa_after"], p["description"]) for t, p in impacts.items()
        }
        t_old = median_ms(
            lambda: before.preview_edge_impacts(names, edges, src, targets, base=old_base, exact_limit=n), 3
        )
        row += f"{t_old:>11.0f}{t_old / t_now:>7.0f}×"
    return row


def bench_arcsets(sizes: list[tuple[int, int]]) -> None:
    """Minimum feedback arc sets with the default budget on random strongly connected
    digraphs (a Hamiltonian cycle plus random arcs)."""
    print(f"\n## minimum feedback arc sets, default budget ({DEFAULT_ARCSET_BUDGET:,} units per SCC), CPython")
    print(f"{'graph':<30}{'arcs':>7}{'κ':>4}{'set':>6}{'lower':>7}{'exact':>7}{'ms':>8}{'units':>12}")
    for n, per_node in sizes:
        arcs = random_strong(n, per_node, seed=n * per_node)
        out = adjacency(n, arcs)
        kappa = arc_strong_connectivity(out)[0]
        meter = Meter()
        start = time.perf_counter()
        found = finish(minimum_feedback_arc_set_steps(out, meter))
        ms = (time.perf_counter() - start) * 1000
        print(
            f"{f'n={n:,}, ≈{per_node}n arcs':<30}{len(arcs):>7}{kappa:>4}{found.size:>6}{found.lower:>7}"
            f"{found.exact!s:>7}{ms:>8.0f}{meter.total:>12,}"
        )


def bench_slices(n: int, repeat: int) -> None:
    """The page's way (steps that pause every QUANTUM units, resumed slice after slice)
    against one go, on the same graphs: what pausing costs, and how long a pause-to-pause
    step is at most (what bounds a slice's overshoot)."""
    from bendscope.bend.kappa_view.topology_cache import QUANTUM
    from bendscope.kappa.analyze import analyze_steps
    from bendscope.kappa.steps import Meter, advance

    print(f"\n## analyze in steps (pause every {QUANTUM} units, as the page) vs in one go")
    print(f"{'graph':<34}{'arcs':>8}{'one go ms':>11}{'steps ms':>11}{'ratio':>8}{'pauses':>8}{'longest step ms':>17}")
    rng = random.Random(9)
    dense = {(u, (u + 1) % 400) for u in range(400)}
    while len(dense) < 100 * n // 2:
        u, v = rng.randrange(400), rng.randrange(400)
        if u != v:
            dense.add((u, v))
    for label, count, arcs in (
        (f"editor-like {n}", 0, None),
        (f"hard SCC {n}", n, two_dense_halves(n, 4, 3, seed=n)),
        ("dense 400", 400, sorted(dense)),
    ):
        if arcs is None:
            names, edges = editor_like(n)
        else:
            names, edges = as_input(count, arcs)

        def stepped(names=names, edges=edges) -> tuple[dict, int, float]:
            job = analyze_steps(names, edges, meter=Meter(QUANTUM))
            pauses, longest = 0, 0.0
            while True:
                start = time.perf_counter()
                done, result = advance(job, lambda: True)
                longest = max(longest, (time.perf_counter() - start) * 1000)
                if done:
                    return result, pauses, longest
                pauses += 1

        result, pauses, longest = stepped()
        assert result == analyze(names, edges)
        t_one = median_ms(lambda names=names, edges=edges: analyze(names, edges), repeat)
        t_steps = median_ms(stepped, repeat)
        print(
            f"{label:<34}{len(edges):>8}{t_one:>11.2f}{t_steps:>11.2f}{t_steps / t_one:>7.2f}×"
            f"{pauses:>8}{longest:>17.2f}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    parser.add_argument("--before", metavar="REV", help="compare the previews with the engine of this git revision")
    args = parser.parse_args(argv)
    before = engine_at(args.before) if args.before else None
    load = os.getloadavg()
    print(f"Python {sys.version.split()[0]} on {sys.platform}; machine load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if args.quick:
        bench_networkx([30], 1, 3)
        bench_bruteforce([8, 10])
        bench_editor(100, 20)
        bench_large([200], 3)
        bench_dense([(40, 1.0)])
        bench_previews([200], 10, before)
        bench_arcsets([(12, 2), (60, 3)])
        bench_slices(200, 3)
    else:
        bench_networkx([100, 300, 1000], 3, 21)
        bench_bruteforce([12, 14, 16, 18, 20])
        bench_editor(100, 1001)
        bench_large([2000, 3000, 10_000], 5)
        bench_dense([(316, 1.0), (400, 0.63)])
        bench_previews([2000, 3000], 40, before)
        bench_arcsets([(10, 2), (20, 3), (30, 2), (50, 2), (100, 2), (300, 3), (3000, 3)])
        bench_slices(2000, 7)
    load = os.getloadavg()
    print(f"\nmachine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")


if __name__ == "__main__":
    main()

"""κ engine benchmarks: medians and ratios measured side by side in one process.

    python bench/bench_engine.py            # full run (a few minutes: networkx is slow)
    python bench/bench_engine.py --quick    # tiny sizes, for a smoke test

1. vs networkx (strongly_connected_components + minimum_edge_cut per SCC) on random
   strongly connected digraphs (≈ 3n arcs), on unions of 3 random Hamiltonian
   cycles (every node with in/out-degree ≥ 3, also ≈ 3n arcs) and on the hard case
   (two dense halves joined by 3 arcs each way: κ = 3 while the degree bound is 4);
2. vs the spec's brute-force bitmask method on SCCs of 12 to 20 nodes;
3. the full ``analyze`` of a 100-node editor-like graph;
4. SCCs of 2,000 nodes (the default exact limit);
5. dense SCCs (the complete digraph on 316 nodes; 400 nodes with ≈ 100,000 arcs): the
   degree bound against the full search, in the same process;
6. 50 Connect-to previews inside the 1,000-node hard SCC: minimum-cut sides against
   re-cutting the SCC per candidate.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bruteforce import bitmask_kappa
from graphs import adjacency, random_strong, two_dense_halves

from bendscope.kappa import analyze, preview_edge_impacts
from bendscope.kappa.mincut import arc_strong_connectivity


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


def bench_large(n: int, repeat: int) -> None:
    """SCCs at the default exact limit, and dense ones, against the full search (same process)."""
    print(f"\n## one SCC of {n} nodes (the default exact limit is 2,000), CPython")
    print(f"{'graph':<34}{'arcs':>8}{'κ':>5}{'kappa ms':>11}")
    for label, arcs in (
        ("random strong ≈3n arcs", random_strong(n, 3, seed=n)),
        ("hard: halves + 3 bridges", two_dense_halves(n, 4, 3, seed=n)),
        ("random strong ≈10n arcs", random_strong(n, 10, seed=n)),
    ):
        out = adjacency(n, arcs)
        kappa, _ = arc_strong_connectivity(out)
        t = median_ms(lambda out=out: arc_strong_connectivity(out), repeat)
        print(f"{label:<34}{len(arcs):>8}{kappa:>5}{t:>11.1f}")


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


def bench_previews(n: int, candidates: int) -> None:
    """Connect-to previews inside one SCC: minimum-cut sides vs re-cutting per candidate."""
    arcs = two_dense_halves(n, 4, 3, seed=n)
    names, edges = as_input(n, arcs)
    base = analyze(names, edges, exact_limit=n)
    present = set(arcs)
    rng = random.Random(3)
    targets: list[str] = []
    while len(targets) < candidates:
        v = rng.randrange(1, n)
        if (0, v) not in present and names[v] not in targets:
            targets.append(names[v])

    def recut() -> None:  # what the previews did before: κ of the SCC with each new arc
        for t in targets:
            analyze(names, [*edges, {"source": names[0], "target": t, "kind": "causal"}], exact_limit=n)

    t_new = median_ms(lambda: preview_edge_impacts(names, edges, names[0], targets, base=base, exact_limit=n), 5)
    t_old = median_ms(recut, 1)
    print(f"\n## {candidates} Connect-to previews inside the {n}-node hard SCC (κ = {base['max_kappa']})")
    print(f"re-cut per candidate {t_old:.1f} ms, minimum-cut sides {t_new:.1f} ms: {t_old / t_new:.0f}×")


def bench_slices(n: int, repeat: int) -> None:
    """The page's way (steps that pause every QUANTUM units, resumed slice after slice)
    against one go, on the same graphs: what pausing costs, and how long a pause-to-pause
    step is at most (what bounds a slice's overshoot)."""
    from bendscope.bend.topology import QUANTUM
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
    args = parser.parse_args(argv)
    load = os.getloadavg()
    print(f"Python {sys.version.split()[0]} on {sys.platform}; machine load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if args.quick:
        bench_networkx([30], 1, 3)
        bench_bruteforce([8, 10])
        bench_editor(100, 20)
        bench_large(200, 3)
        bench_dense([(40, 1.0)])
        bench_previews(200, 10)
        bench_slices(200, 3)
    else:
        bench_networkx([100, 300, 1000], 3, 21)
        bench_bruteforce([12, 14, 16, 18, 20])
        bench_editor(100, 1001)
        bench_large(2000, 11)
        bench_dense([(316, 1.0), (400, 0.63)])
        bench_previews(1000, 50)
        bench_slices(2000, 7)
    load = os.getloadavg()
    print(f"\nmachine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")


if __name__ == "__main__":
    main()

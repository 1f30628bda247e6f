"""Strongly connected components: Tarjan's algorithm, iterative.

An explicit stack replaces recursion, so a 100,000-node chain or cycle is fine.
"""

from __future__ import annotations

from .steps import Meter, Steps, finish

__all__ = ["strongly_connected_components", "strongly_connected_components_steps"]


def strongly_connected_components(out: list[list[int]]) -> list[list[int]]:
    """Return the SCCs of the digraph ``out`` (adjacency lists on 0..n-1).

    Each SCC is a sorted list of node indices; SCCs come in reverse topological
    order of the condensation (Tarjan's natural order): an SCC reachable from
    another comes before it.

    >>> strongly_connected_components([[1], [2], [0, 3], []])  # 3 is reached from the cycle
    [[3], [0, 1, 2]]
    >>> strongly_connected_components([[], [0]])  # 1 → 0
    [[0], [1]]

    O(n + m) time and memory.
    """
    return finish(strongly_connected_components_steps(out, Meter()))


def strongly_connected_components_steps(out: list[list[int]], meter: Meter) -> Steps[list[list[int]]]:
    """:func:`strongly_connected_components` in steps; a unit of work is an arc."""
    n = len(out)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    result: list[list[int]] = []
    counter = 0
    pending = 0  # work not yet reported to the meter
    for root in range(n):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, 0)]
        while work:
            v, i = work[-1]
            succ = out[v]
            if i < len(succ):
                w = succ[i]
                work[-1] = (v, i + 1)
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                    pending += 1
                    if pending > 1024:
                        if meter.spend(pending):
                            yield
                        pending = 0
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            work.pop()
            pending += len(succ)  # its arcs are scanned now
            if pending > 1024:
                if meter.spend(pending):
                    yield
                pending = 0
            if work:
                parent = work[-1][0]
                if low[v] < low[parent]:
                    low[parent] = low[v]
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    component.append(w)
                    if w == v:
                        break
                component.sort()
                result.append(component)
    return result

"""Force layout in the manner of BendScript and d3-force.

Forces: pairwise repulsion within a radius (grid-bucketed, so O(n·k)), card
overlap separation, springs along edges towards a rest gap measured between card
borders, a weak pull to the origin, velocity damping and a speed cap. Alpha
cools geometrically (d3's alphaDecay) so the layout comes to rest; the caller
stops drawing once ``step`` returns False. No randomness except a seeded
generator used to separate coincident nodes, so the same plane + seed gives the
same positions.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .geometry import border_extent
from .model import Plane


@dataclass(frozen=True)
class LayoutParams:
    repulsion: float = 26000.0
    radius: float = 560.0
    collide_pad: float = 24.0
    collide: float = 0.5
    spring: float = 0.05
    rest_gap: float = 120.0
    centre: float = 0.006
    velocity_decay: float = 0.45
    max_speed: float = 48.0
    alpha_decay: float = 0.028
    alpha_min: float = 0.002
    reheat: float = 0.5


class Simulation:
    """The layout state of one plane (its alpha); nodes hold positions and velocities."""

    def __init__(self, plane: Plane, seed: int = 1, params: LayoutParams | None = None) -> None:
        self.plane = plane
        self.params = params or LayoutParams()
        self.rng = random.Random(seed)
        self.alpha = 1.0
        self.fixed: set[str] = set()  # dragged right now (pinned nodes are fixed too)

    @property
    def active(self) -> bool:
        return self.alpha >= self.params.alpha_min

    def reheat(self, alpha: float | None = None) -> None:
        self.alpha = max(self.alpha, self.params.reheat if alpha is None else alpha)

    def stop(self) -> None:
        self.alpha = 0.0
        for node in self.plane.nodes.values():
            node.vx = node.vy = 0.0

    def step(self) -> bool:
        """Advance one tick; returns whether the layout is still moving. O(n·k + m)."""
        p = self.params
        if self.alpha < p.alpha_min:
            return False
        nodes = list(self.plane.nodes.values())
        n = len(nodes)
        index = {node.id: i for i, node in enumerate(nodes)}
        fx = [0.0] * n
        fy = [0.0] * n
        xs = [node.x for node in nodes]
        ys = [node.y for node in nodes]
        ws = [node.width for node in nodes]
        hs = [node.height for node in nodes]
        cell = p.radius
        grid: dict[tuple[int, int], list[int]] = {}
        for i in range(n):
            grid.setdefault((math.floor(xs[i] / cell), math.floor(ys[i] / cell)), []).append(i)
        r2max = p.radius * p.radius
        for i in range(n):
            cx = math.floor(xs[i] / cell)
            cy = math.floor(ys[i] / cell)
            xi, yi = xs[i], ys[i]
            for gx in (cx - 1, cx, cx + 1):
                for gy in (cy - 1, cy, cy + 1):
                    bucket = grid.get((gx, gy))
                    if not bucket:
                        continue
                    for j in bucket:
                        if j <= i:
                            continue
                        dx = xs[j] - xi
                        dy = ys[j] - yi
                        d2 = dx * dx + dy * dy
                        if d2 >= r2max:
                            continue
                        if d2 < 1e-6:
                            angle = self.rng.random() * 2 * math.pi
                            dx, dy, d2 = math.cos(angle), math.sin(angle), 1.0
                        d = math.sqrt(d2)
                        f = p.repulsion / max(d2, 400.0)
                        # overlap of the padded cards along the centre line
                        gap = d - border_extent(ws[i], hs[i], dx, dy) - border_extent(ws[j], hs[j], dx, dy)
                        if gap < p.collide_pad:
                            f += (p.collide_pad - gap) * p.collide
                        ux = dx / d * f
                        uy = dy / d * f
                        fx[i] -= ux
                        fy[i] -= uy
                        fx[j] += ux
                        fy[j] += uy
        for edge in self.plane.edges.values():
            i = index.get(edge.a)
            j = index.get(edge.b)
            if i is None or j is None or i == j:
                continue
            dx = xs[j] - xs[i]
            dy = ys[j] - ys[i]
            d = math.hypot(dx, dy)
            if d < 1e-6:
                continue
            gap = d - border_extent(ws[i], hs[i], dx, dy) - border_extent(ws[j], hs[j], dx, dy)
            f = p.spring * (gap - p.rest_gap)
            ux = dx / d * f
            uy = dy / d * f
            fx[i] += ux
            fy[i] += uy
            fx[j] -= ux
            fy[j] -= uy
        alpha = self.alpha
        keep = 1.0 - p.velocity_decay
        vmax = p.max_speed
        for i, node in enumerate(nodes):
            if node.pinned or node.id in self.fixed:
                node.vx = node.vy = 0.0
                continue
            vx = (node.vx + (fx[i] - p.centre * xs[i]) * alpha) * keep
            vy = (node.vy + (fy[i] - p.centre * ys[i]) * alpha) * keep
            speed = math.hypot(vx, vy)
            if speed > vmax:
                vx *= vmax / speed
                vy *= vmax / speed
            node.vx = vx
            node.vy = vy
            node.x = xs[i] + vx
            node.y = ys[i] + vy
        self.alpha += (0.0 - self.alpha) * p.alpha_decay
        if self.alpha < p.alpha_min:
            self.stop()
            return False
        return True

    def settle(self, max_steps: int = 2000) -> int:
        """Run to rest synchronously; returns the number of steps taken."""
        steps = 0
        while steps < max_steps and self.step():
            steps += 1
        self.stop()
        return steps

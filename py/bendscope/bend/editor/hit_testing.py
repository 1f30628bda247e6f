"""Hit-testing: what is under a screen point or in a rectangle."""

from __future__ import annotations

import math

from bendscope.bend.editor.camera import CameraControl
from bendscope.bend.model.elements import (
    Edge,
    Node,
)
from bendscope.bend.model.geometry import segment_distance
from bendscope.bend.render.edge_paths import edge_label_box, edge_path
from bendscope.bend.render.scene import EDGE_DETAIL_LIMIT, GREEK_ZOOM

#: How near (screen px, at every zoom) a pointer must be to an edge's line to pick it; a
#: finger gets more.
EDGE_TOLERANCE = 6.0
TOUCH_EDGE_TOLERANCE = 14.0


class HitTesting(CameraControl):
    """Hit-testing, a part of ``Editor``: cards, handles and edges under the pointer."""

    def node_at(self, sx: float, sy: float) -> Node | None:
        """Topmost node under a screen point (last drawn wins). O(n)."""
        wx, wy = self.screen_to_world(sx, sy)
        for node in reversed(list(self.plane.nodes.values())):
            if abs(wx - node.x) <= node.width / 2 and abs(wy - node.y) <= node.height / 2:
                return node
        return None

    def nodes_in_rect(self, sx0: float, sy0: float, sx1: float, sy1: float) -> list[str]:
        """Ids of the nodes whose cards touch the screen rectangle (any corner order). O(n)."""
        (ax, ay), (bx, by) = self.screen_to_world(sx0, sy0), self.screen_to_world(sx1, sy1)
        x0, x1, y0, y1 = min(ax, bx), max(ax, bx), min(ay, by), max(ay, by)
        return [
            n.id
            for n in self.plane.nodes.values()
            if n.x + n.width / 2 >= x0 and n.x - n.width / 2 <= x1 and n.y + n.height / 2 >= y0
            and n.y - n.height / 2 <= y1
        ]  # fmt: skip

    def handle_at(self, sx: float, sy: float, node_id: str, radius: float = 10.0) -> bool:
        """Whether screen point (sx, sy) is on ``node_id``'s connection handle (the dot
        at the middle of its card's right edge), within ``radius`` screen px."""
        node = self.plane.nodes.get(node_id)
        if node is None:
            return False
        hx, hy = self.world_to_screen(node.x + node.width / 2, node.y)
        return (sx - hx) ** 2 + (sy - hy) ** 2 <= radius * radius

    def edge_at(self, sx: float, sy: float, tolerance: float = EDGE_TOLERANCE) -> Edge | None:
        """The edge under a screen point: the one whose label pill holds it (when labels are
        drawn), else the one whose drawn line (straight, or curved for edges between the same
        two nodes) is nearest within ``tolerance`` screen px — the same reach at every zoom.
        O(m)."""
        wx, wy = self.screen_to_world(sx, sy)
        plane = self.plane
        if plane.camera.zoom >= GREEK_ZOOM and len(plane.edges) <= EDGE_DETAIL_LIMIT:  # (labels drawn)
            for edge in reversed(list(plane.edges.values())):  # (the last drawn is on top)
                box = edge_label_box(plane, edge, self.measure)
                if box is not None and abs(wx - box[0]) <= box[2] / 2 and abs(wy - box[1]) <= box[3] / 2:
                    return edge
        best, best_d = None, tolerance / plane.camera.zoom
        for edge in plane.edges.values():
            path = edge_path(plane, edge)
            if path is None:
                continue
            for k in range(0, len(path) - 2, 2):
                d = segment_distance(wx, wy, path[k], path[k + 1], path[k + 2], path[k + 3])
                if d <= best_d:
                    best, best_d = edge, d
        return best

    def nodes_near(self, node_id: str, radius: float = 500.0) -> list[Node]:
        """Other nodes on the active plane within ``radius`` world px, nearest first (ties by id)."""
        origin = self.plane.nodes[node_id]
        found = []
        for node in self.plane.nodes.values():
            if node.id == node_id:
                continue
            d = math.hypot(node.x - origin.x, node.y - origin.y)
            if d <= radius:
                found.append((d, node.id, node))
        found.sort(key=lambda t: (t[0], t[1]))
        return [t[2] for t in found]

"""Find: the nodes whose text (or id) holds a query, and stepping through them.

>>> from bendscope.bend.model.demo import demo_document
>>> from bendscope.bend.editor.editor import Editor
>>> ed = Editor(demo_document())
>>> finder = Finder(ed)
>>> finder.search("REVENUE")  # case does not matter; text or id
['revenue', 'r-and-d']
>>> finder.step(1), finder.step(1), finder.status()
('revenue', 'r-and-d', '2 of 2 matches')
>>> ed.plane.camera.zoom = 0.1  # (cards drawn as bars: a match is shown where it can be read)
>>> finder.step(1), ed.plane.camera.zoom
('revenue', 0.6)
"""

from __future__ import annotations

from bendscope.bend.editor.camera import READABLE_ZOOM
from bendscope.bend.editor.editor import Editor
from bendscope.bend.render.scene import GREEK_ZOOM


def matching(editor: Editor, query: str) -> list[str]:
    """Ids of the active plane's nodes whose text or id contains ``query`` (case-folded),
    in reading order (top to bottom, then left to right). O(total text)."""
    needle = query.strip().casefold()
    if not needle:
        return []
    found = [n for n in editor.plane.nodes.values() if needle in n.text.casefold() or needle in n.id.casefold()]
    found.sort(key=lambda n: (round(n.y / 40.0), n.x, n.id))
    return [n.id for n in found]


class Finder:
    """The find bar's state: the query, its matches and the current one."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.query = ""
        self.matches: list[str] = []
        self.current = -1
        self._seen = (-1, "")  # (document version, plane id) the matches were found in

    def search(self, query: str) -> list[str]:
        self.query = query
        self._seen = (self.editor.version, self.editor.plane.id)
        self.matches = matching(self.editor, query)
        self.current = -1
        self.editor.needs_paint = True
        return self.matches

    def step(self, direction: int) -> str | None:
        """Select the next (``1``) or previous (``-1``) match and centre the view on it — zoomed
        in to ``READABLE_ZOOM`` when the view is so far out that card text is drawn as bars
        (below ``GREEK_ZOOM``): a match found must be one a person can read."""
        self.matches = [m for m in self.matches if m in self.editor.plane.nodes]
        if not self.matches:
            return None
        self.current = (self.current + direction) % len(self.matches)
        node_id = self.matches[self.current]
        self.editor.select([node_id])
        self.editor.centre_on(node_id)
        camera = self.editor.plane.camera
        if camera.zoom < GREEK_ZOOM:
            camera.zoom = READABLE_ZOOM  # (centred: the match stays in the middle)
        return node_id

    def status(self) -> str:
        if not self.query.strip():
            return ""
        if not self.matches:
            return "no match"
        where = f"{self.current + 1} of " if self.current >= 0 else ""
        return f"{where}{len(self.matches)} match{'es' if len(self.matches) != 1 else ''}"

    def dimmed(self) -> set[str]:
        """The nodes a search leaves out (drawn faded while the find bar is open); the
        matches follow edits and plane changes made meanwhile."""
        if not self.query.strip():
            return set()
        if self._seen != (self.editor.version, self.editor.plane.id):
            current = self.matches[self.current] if 0 <= self.current < len(self.matches) else None
            self.search(self.query)
            self.current = self.matches.index(current) if current in self.matches else -1
        keep = set(self.matches)
        return {n for n in self.editor.plane.nodes if n not in keep}

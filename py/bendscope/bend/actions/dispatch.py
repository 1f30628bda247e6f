"""The action manager: the one way menus, keys and automation run actions.

It owns the ask/confirm protocol (excalidraw's action manager): an action that needs
a yes/no, a text, or the in-place text editor does not run; ``request`` returns an
:class:`Outcome` saying what to ask, and the browser layer asks the user, then calls
``request`` again with ``outcome.resume(answer)``. A command that refuses its
arguments (``ValueError``) becomes a "refused" outcome with the message for the user;
nothing has changed then (the editor rolls back failed transactions).

>>> from bendscope.bend.model.demo import demo_document
>>> from bendscope.bend.editor.editor import Editor
>>> manager = ActionManager(Editor(demo_document()))
>>> manager.request("unbend", Target(node_id="revenue")).kind
'confirm'
>>> manager.request("edit-label", Target(edge_id="edge-0")).kind
'prompt'
>>> manager.request("edit-label", Target(edge_id="edge-0"), {"text": "pays for"}).kind
'done'
>>> made = manager.request("new-node", Target(x=0, y=0))
>>> made.edit_node == made.result  # the new node's text editor opens at once
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bendscope.bend.actions.commands import REGISTRY, Target
from bendscope.bend.editor.editor import Editor

#: what ``Outcome.kind`` can be
KINDS = ("done", "disabled", "refused", "confirm", "prompt", "edit-text", "show", "job")


@dataclass(frozen=True)
class Outcome:
    """What happened to a request, or what the user must be asked first."""

    kind: str
    action_id: str
    target: Target = field(default_factory=Target)
    args: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    message: str = ""  # the refusal, or the question
    initial: str = ""  # a prompt's initial text
    ok_label: str = ""  # a confirmation's button
    edit_node: str | None = None  # a node just created whose text editor opens next (Esc discards it)

    def resume(self, answer: Any) -> dict[str, Any] | None:
        """The arguments to request again with, given the user's answer (None: cancelled).

        A confirmation takes True/False, a prompt the text (None when cancelled).
        """
        if self.kind == "confirm":
            return {**self.args, "confirmed": True} if answer is True else None
        if self.kind == "prompt":
            return None if answer is None else {**self.args, "text": str(answer)}
        raise ValueError(f"a {self.kind!r} outcome has no answer to resume with")


class ActionManager:
    """Runs registry actions against one editor."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor

    def request(self, action_id: str, target: Target | None = None, args: dict[str, Any] | None = None) -> Outcome:
        """Run ``action_id`` on ``target`` now, or say what must be asked first. O(the action)."""
        target = target or Target()
        args = dict(args or {})
        act = REGISTRY.get(action_id)
        if act is None:
            return Outcome("refused", action_id, target, args, message=f"Unknown action {action_id!r}.")
        editor = self.editor
        if not act.enabled(editor, target):
            return Outcome("disabled", action_id, target, args)
        if act.extra.get("overlay") and "text" not in args:
            return Outcome("edit-text", action_id, target, args)
        if act.extra.get("show"):  # a panel of the page (the shortcut sheet): nothing changes
            return Outcome("show", action_id, target, args, message=str(act.extra["show"]))
        if act.extra.get("job"):  # work the page runs off the main thread (Arrange), then applies
            return Outcome("job", action_id, target, {**act.extra, **args}, message=str(act.extra["job"]))
        if act.confirm is not None and not args.get("confirmed"):
            question = act.confirm(editor, target)
            if question:
                ok = str(act.extra.get("ok_label", "Remove"))
                return Outcome("confirm", action_id, target, args, message=question, ok_label=ok)
        if act.ask is not None and "text" not in args:
            asked = act.ask(editor, target)
            if asked is not None:
                question, initial = asked
                return Outcome("prompt", action_id, target, args, message=question, initial=initial, ok_label="Save")
        try:
            result = act.perform(editor, target, args)
        except (ValueError, KeyError) as exc:
            message = str(exc) if isinstance(exc, ValueError) else f"Nothing named {exc} here any more."
            return Outcome("refused", action_id, target, args, message=message)
        fresh = result if act.extra.get("edit_new") and isinstance(result, str) else None
        return Outcome("done", action_id, target, args, result=result, edit_node=fresh)

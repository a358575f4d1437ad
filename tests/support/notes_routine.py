"""A routine of two notebook lines, recorded through the real agent, and the person at the
window who answers what is shown to them: for the scheduled routines' tests."""

from __future__ import annotations

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.support.turns import turn
from tools.base import Risk


class Person:
    """The person at the window: answers what is shown to them, and counts it."""

    def __init__(self, allow: bool = True) -> None:
        self.shown: list[ApprovalRequest] = []
        self.allow = allow

    def __call__(self, request: ApprovalRequest) -> None:
        self.shown.append(request)
        request.answer(Answer(allow=self.allow))


def record_notes(workspace: Workspace, model_server: ScriptedModelServer) -> int:
    """A finished chat that wrote two lines into the notebook and answered."""
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "milk"}), text="Writing."),
        tool_reply(ToolUse(name="notebook", input={"text": "eggs"})),
        text_reply("Both are in the notebook."),
    )
    turn(workspace, "Note milk and eggs")
    return workspace.store.sessions()[0].id


def notes_routine(
    workspace: Workspace, model_server: ScriptedModelServer, risk: Risk = Risk.CHANGE
) -> tuple[NotebookTool, Person]:
    """The routine "Notes" saved from a recorded chat, in Autonomous mode (consequential
    calls still ask); the person answers yes."""
    notebook = NotebookTool(risk=risk)
    workspace.registry.add(notebook)
    workspace.live.set_mode(Mode.AUTONOMOUS)
    person = Person()
    workspace.approvals.subscribe(person)
    record_notes(workspace, model_server)
    workspace.routines.save(workspace.routines.draft(), "Notes")
    return notebook, person

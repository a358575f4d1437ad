"""A routine made the way a person makes one, for the window's tests: a real chat, sent in the
window to the scripted model, whose calls type into a `FieldTool` and write into a
`NotebookTool`, then saved with `Routines.save` (the typed name made a parameter)."""

from __future__ import annotations

from dataclasses import dataclass

from desktop.routines.model import Routine
from desktop.system.settings.permissions import Mode
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import FieldTool, NotebookTool
from tests.support.window import finish_turn, type_and_send
from ui.window.main_window import MainWindow

NAME = "Fill name"
TASK = "Type Ada into the name field and note it"


@dataclass
class Recorded:
    """The tools the recorded chat acted on, and the routine saved from it."""

    field: FieldTool
    notebook: NotebookTool
    routine: Routine
    chat_id: int


def record(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    window: MainWindow,
    model_server: ScriptedModelServer,
    *,
    name: str = NAME,
    parameter: str | None = "who",
) -> Recorded:
    """Do the task in the window (autonomous mode: no sheet), then save it as `name`, with
    the typed "Ada" as the parameter `parameter` (None: no parameter)."""
    workspace = window.workspace
    field = FieldTool("Name")
    notebook = NotebookTool()
    workspace.registry.add(field)
    workspace.registry.add(notebook)
    workspace.live.set_mode(Mode.AUTONOMOUS)
    model_server.enqueue(
        tool_reply(ToolUse(name="field", input={"text": "Ada"})),
        tool_reply(ToolUse(name="notebook", input={"text": "met Ada"})),
        text_reply("The field holds Ada, and the notebook says so."),
    )
    type_and_send(qtbot, window, TASK)
    finish_turn(aloop, window)
    chat_id = window.current_session_id
    assert chat_id is not None
    draft = workspace.routines.draft(chat_id)
    assert not draft.refusal, draft.refusal
    routine = workspace.routines.save(draft, name, {parameter: "Ada"} if parameter else {})
    field.value = ""  # as before the task: a run starts from the same place
    notebook.lines.clear()
    return Recorded(field, notebook, routine, chat_id)

"""Settings → Audit shows what each call really did, in words, with every line of it on hover:
the rows of a real turn, through the pipeline and the gate."""

from __future__ import annotations

from desktop.calls.gated import NOT_CHECKED
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.outcomes import run_turn
from tests.support.sample_tools import FieldTool, NotebookTool
from ui.settings import SettingsDialog
from ui.settings.audit import EFFECT, AuditPage


def test_the_audit_page_says_what_each_call_did(  # type: ignore[no-untyped-def]
    qtbot, workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    workspace.registry.add(FieldTool(strip_digits=True))
    workspace.registry.add(NotebookTool())
    workspace.live.set_mode(Mode.AUTONOMOUS)
    model_server.enqueue(
        tool_reply(
            ToolUse(name="field", input={"text": "A1B"}),
            ToolUse(name="notebook", input={"text": "milk"}),
        ),
        text_reply("Done both."),
    )
    run_turn(workspace, "Type A1B, note milk")

    dialog = SettingsDialog(workspace, page="audit")
    qtbot.addWidget(dialog)
    dialog.open()
    page = dialog.page("audit")
    assert isinstance(page, AuditPage)
    assert page.table.horizontalHeaderItem(EFFECT).text() == "Effect"
    noted, typed = (page.table.item(row, EFFECT) for row in range(2))  # newest first
    assert noted.text() == NOT_CHECKED
    assert typed.text() == 'Not as asked: textbox "Name" now holds "AB" (+1)'
    assert typed.toolTip() == (
        '~ textbox "Name": "" → "AB"\nThe field holds "AB", not the text typed.'
    )
    qtbot.keyClicks(page.filter, "not the text typed")
    assert page.table.rowCount() == 1 and page.table.item(0, 1).text() == "field · type"

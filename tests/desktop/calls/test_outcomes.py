"""Every call leaves the pipeline with an outcome from the one vocabulary: what its source saw,
or `refused`, `failed`, `unconfirmed` (acted, said nothing), or none (a read). The model reads
the `Effect:` lines, the card keeps the outcome (a reopened chat shows the same as live), and
the audit row stores it."""

from __future__ import annotations

from typing import Any

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.card_text import card_words
from desktop.calls.gated import NOT_CHECKED
from desktop.calls.permissions import Answer
from desktop.system.settings.permissions import Mode
from desktop.system.store import AuditEntry
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.outcomes import finished, run_turn
from tests.support.sample_tools import FieldTool, NotebookTool
from tools.base import Risk, RunContext, ToolResult
from tools.outcome import Outcome

TYPED_AB = 'Typed.\nEffect:\n~ textbox "Name": "" → "AB"\nThe field holds "AB", not the text typed.'


def says_no(request: ApprovalRequest) -> None:
    """The person at the sheet, saying no."""
    request.answer(Answer(allow=False))


def read_back(server: ScriptedModelServer, request: int) -> list[str]:
    """The texts of the tool results the model received in request `request`."""
    blocks: list[dict[str, Any]] = server.message_requests[request]["messages"][-1]["content"]
    return ["\n".join(part["text"] for part in block["content"]) for block in blocks]


def audit_rows(ws: Workspace) -> list[AuditEntry]:
    return list(reversed(ws.store.audit()))


def test_a_field_that_holds_other_text_is_said_alike_to_the_model_the_card_and_the_audit(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    field = FieldTool(strip_digits=True)
    workspace.registry.add(field)
    workspace.live.set_mode(Mode.AUTONOMOUS)
    model_server.enqueue(
        tool_reply(ToolUse(name="field", input={"text": "A1B"})), text_reply("It holds AB.")
    )

    sid, events = run_turn(workspace, "Type A1B")

    assert field.value == "AB"
    assert read_back(model_server, 1) == [TYPED_AB]
    [live] = finished(events)
    assert live.effect == Outcome(
        kind="differs",
        changes=['~ textbox "Name": "" → "AB"'],
        note='The field holds "AB", not the text typed.',
    )
    words = card_words(live.outcome, live.summary, live.effect, source="field")
    assert (words.state, words.status) == ("differs", 'Typed: the field holds "AB"')
    assert words.detail == (
        'Textbox "Name" now holds "AB"\nThe field holds "AB", not the text typed.'
    )
    # Reopened, the card says exactly what it said live.
    [reopened] = finished(workspace.transcript(sid)[0])
    assert reopened == live
    [row] = audit_rows(workspace)
    assert (row.outcome, row.effect) == ("ok", "differs")
    assert row.changes == '~ textbox "Name": "" → "AB"\nThe field holds "AB", not the text typed.'


def test_a_secret_fields_value_never_reaches_the_card_or_the_audit(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    workspace.registry.add(FieldTool("PIN", strip_digits=True, secret=True))
    workspace.live.set_mode(Mode.AUTONOMOUS)
    model_server.enqueue(
        tool_reply(ToolUse(name="field", input={"text": "x9y"})), text_reply("Done.")
    )

    sid, events = run_turn(workspace, "Type it")

    [live] = finished(events)
    words = card_words(live.outcome, live.summary, live.effect, source="field")
    assert words.status == "Typed: the field holds (hidden)"
    [row] = audit_rows(workspace)
    assert row.changes == (
        '~ textbox "PIN": (hidden) → (hidden)\nThe field holds (hidden), not the text typed.'
    )
    stored = str(workspace.store.messages(sid)) + str(workspace.store.audit())
    assert "xy" not in stored and "x9y" not in read_back(model_server, 1)[0]


class BrokenTool(NotebookTool):
    name = "broken"

    async def run(self, call: Any, ctx: RunContext) -> ToolResult:
        raise RuntimeError("boom")


def test_each_call_has_an_outcome_from_the_one_vocabulary(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    """Done and no change (the source saw), unconfirmed (acted, said nothing), none (a read),
    failed (an error), refused (the person said no)."""
    workspace.registry.add(FieldTool(read_only=True))
    acting = NotebookTool()
    workspace.registry.add(acting)
    reading = NotebookTool(risk=Risk.READ)
    reading.name = "reader"
    workspace.registry.add(reading)
    workspace.registry.add(BrokenTool())
    consequential = NotebookTool(risk=Risk.CONSEQUENTIAL)
    consequential.name = "sender"
    workspace.registry.add(consequential)
    workspace.approvals.subscribe(says_no)
    workspace.live.set_mode(Mode.AUTONOMOUS)
    model_server.enqueue(
        tool_reply(
            ToolUse(name="field", input={"text": "hi"}),
            ToolUse(name="notebook", input={"text": "milk"}),
            ToolUse(name="reader", input={"text": "page"}),
            ToolUse(name="broken", input={"text": "x"}),
            ToolUse(name="sender", input={"text": "boss"}),
        ),
        text_reply("Some did."),
    )

    sid, events = run_turn(workspace, "Go")

    assert read_back(model_server, 1)[0] == "Typed.\nEffect: none: nothing on the page changed."
    assert read_back(model_server, 1)[1] == "Wrote line 1."  # the tool's own word, unchanged
    effects = [event.effect for event in finished(events)]
    assert effects == [
        Outcome(kind="no_effect"),
        Outcome(kind="unconfirmed", note=NOT_CHECKED),
        None,
        Outcome(kind="failed"),
        Outcome(kind="refused"),
    ]
    statuses = [
        card_words(e.outcome, e.summary, e.effect, source="notebook").status
        for e in finished(events)
    ]
    assert statuses == [
        "No change on the page",
        "Not confirmed",
        "Done",
        "Failed",
        "You denied this",
    ]
    assert [e.effect for e in finished(workspace.transcript(sid)[0])] == effects
    rows = {row.tool: row for row in audit_rows(workspace)}
    assert [(rows[t].effect, rows[t].changes) for t in ("field", "notebook", "reader")] == [
        ("no_effect", ""),
        ("unconfirmed", NOT_CHECKED),
        ("", ""),
    ]
    assert (rows["broken"].outcome, rows["broken"].effect) == ("error", "failed")
    assert (rows["sender"].outcome, rows["sender"].effect) == ("not run", "refused")


def test_a_card_kept_before_outcomes_reopens_as_it_looked(workspace: Workspace) -> None:
    store = workspace.store
    sid = store.create_session("Old").id
    store.add_message(sid, "user", [{"type": "text", "text": "Go"}])
    use = {"type": "tool_use", "id": "a", "name": "notebook", "input": {"text": "x"}}
    store.add_message(sid, "assistant", [use])
    old_card = {"label": "Notebook: write", "outcome": "ok", "result": "Wrote line 1."}
    result = {"type": "tool_result", "tool_use_id": "a", "content": "Wrote line 1."}
    store.add_message(sid, "user", [{**result, "deskhand_card": old_card}])

    [reopened] = finished(workspace.transcript(sid)[0])

    assert (reopened.outcome, reopened.effect) == ("ok", None)
    words = card_words(reopened.outcome, reopened.summary, reopened.effect)
    assert (words.state, words.status, words.detail) == ("done", "Done", "")

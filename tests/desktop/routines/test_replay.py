"""Routines through the real agent and pipeline: save a finished chat, run it again without the
model, with parameters; a consequential step still asks; a step that fails heals."""

from __future__ import annotations

import asyncio
import json

import pytest

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer
from desktop.routines.book import RoutineError
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.support.turns import turn
from tests.support.waiting import wait_until
from tools.base import Risk


def record_notes(workspace: Workspace, model_server: ScriptedModelServer) -> int:
    """A finished chat that wrote two lines into the notebook and answered."""
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "milk"}), text="Writing."),
        tool_reply(ToolUse(name="notebook", input={"text": "eggs"})),
        text_reply("Both are in the notebook."),
    )
    turn(workspace, "Note milk and eggs")
    return workspace.store.sessions()[0].id


def test_a_saved_chat_runs_again_with_its_parameter_and_one_request_for_the_answer(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = NotebookTool()
    workspace.registry.add(notebook)
    workspace.live.set_mode(Mode.AUTONOMOUS)
    record_notes(workspace, model_server)
    routines = workspace.routines
    draft = routines.draft()
    assert [step.words for step in draft.steps] == [
        "Notebook: write 'milk'",
        "Notebook: write 'eggs'",
    ]
    assert [typed.text for typed in draft.typed] == ["milk", "eggs"]
    routine = routines.save(draft, "Shopping", {"first": "milk"})

    saved = json.loads((workspace.paths.routines / "Shopping.json").read_text())
    assert saved["schema"] == "deskhand.routine/1"
    assert saved["steps"][0]["input"] == {"text": "{{first}}"}
    assert saved["parameters"] == [{"name": "first", "default": "milk"}]
    assert routine.answer is True

    requests_before = len(model_server.message_requests)
    model_server.enqueue(text_reply("Bread and eggs are noted."))
    report = asyncio.run(_run(workspace, "Shopping", {"first": "bread"}))

    assert notebook.lines[-2:] == ["bread", "eggs"]
    assert (report.ok, report.status, report.replayed, report.healed) == (True, "done", 2, 0)
    assert report.model_requests == 1  # the answer only
    assert len(model_server.message_requests) == requests_before + 1
    assert report.answer == "Bread and eggs are noted."
    chat = workspace.store.session(report.chat_id or 0)
    assert chat is not None and chat.title == "▶ Shopping"
    # The answer request carries the run's results, and may not call tools.
    last = model_server.message_requests[-1]
    assert last["tool_choice"] == {"type": "none"}
    assert "bread" in json.dumps(last["messages"])
    [run] = routines.runs("Shopping")
    assert (run.trigger, run.status, run.chat_id, run.model_requests) == (
        "person",
        "done",
        report.chat_id,
        1,
    )


def test_a_consequential_step_still_asks_and_a_denial_fails_the_run(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = NotebookTool(risk=Risk.CONSEQUENTIAL)
    workspace.registry.add(notebook)
    asked: list[str] = []

    def person(request: ApprovalRequest) -> None:
        asked.append(request.call.summary)
        request.answer(Answer(allow=len(asked) <= 2))  # the recording's two calls only

    workspace.approvals.subscribe(person)
    record_notes(workspace, model_server)
    workspace.routines.save(workspace.routines.draft(), "Notes")

    report = asyncio.run(_run(workspace, "Notes", {}))

    assert asked[2:] == ["Notebook: write 'milk'"]  # asked again on replay, and declined
    assert notebook.lines == ["milk", "eggs"]  # nothing more was written
    assert (report.ok, report.status) == (False, "failed")
    assert "Step 1" in report.error and "not allowed" in report.error
    assert report.model_requests == 0


def test_bad_parameters_unknown_routines_and_second_runs_are_refused_with_their_codes(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    workspace.registry.add(NotebookTool(delay=0.5))
    workspace.live.set_mode(Mode.AUTONOMOUS)
    record_notes(workspace, model_server)
    workspace.routines.save(workspace.routines.draft(), "Notes", {"item": "milk"})

    async def go() -> list[tuple[str, str]]:
        errors: list[tuple[str, str]] = []
        for name, values in (("Notes", {"colour": "red"}), ("Nothing", {})):
            try:
                await workspace.routines.start(name, values)
            except RoutineError as error:
                errors.append((error.code, error.message))
        model_server.enqueue(text_reply("Done."))
        chat = await workspace.routines.start("Notes", {})
        try:
            await workspace.routines.start("Notes", {})
        except RoutineError as error:
            errors.append((error.code, error.message))
        await workspace.routines.finished(chat)
        await workspace.toolbox.close()
        await workspace.agent.close()
        return errors

    errors = asyncio.run(go())
    assert [code for code, _ in errors] == ["bad_input", "not_found", "already_running"]
    assert "colour" in errors[0][1] and "item" in errors[0][1]


def test_an_edited_routine_file_runs_only_once_kept(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = NotebookTool()
    workspace.registry.add(notebook)
    workspace.live.set_mode(Mode.AUTONOMOUS)
    record_notes(workspace, model_server)
    workspace.routines.save(workspace.routines.draft(), "Notes")
    path = workspace.paths.routines / "Notes.json"
    data = json.loads(path.read_text())
    data["steps"][0]["input"]["text"] = "caviar"  # changed outside Deskhand
    path.write_text(json.dumps(data))
    assert workspace.routines.load("Notes").kept is False

    shown: list[str] = []

    async def refuse(routine: object) -> bool:
        shown.append(getattr(routine, "name", ""))
        return False

    workspace.routines.ask_keep = refuse
    with pytest.raises(RoutineError) as refused:
        asyncio.run(workspace.routines.run("Notes", {}))
    assert refused.value.code == "refused" and "outside Deskhand" in refused.value.message
    assert shown == ["Notes"] and notebook.lines == ["milk", "eggs"]

    async def keep(routine: object) -> bool:
        return True

    workspace.routines.ask_keep = keep
    model_server.enqueue(text_reply("Noted."))
    report = asyncio.run(_run(workspace, "Notes", {}))
    assert report.ok and notebook.lines[-2:] == ["caviar", "eggs"]
    assert workspace.routines.load("Notes").kept is True


def test_a_chat_that_typed_into_a_password_field_cannot_be_saved(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    from desktop.routines.record import SECRET, draft_of
    from desktop.system.store import StoredMessage

    def message(mid: int, role: str, content: list[dict[str, object]]) -> StoredMessage:
        return StoredMessage.model_validate(
            {
                "id": mid,
                "session_id": 1,
                "role": role,
                "content": content,
                "status": "complete",
                "created_at": 0.0,
                "stop_reason": "end_turn",
            }
        )

    card = {
        "label": "Browser: type",
        "source": "browser",
        "outcome": "error",
        "result": "Refused: that is a password field.",
        "meaning": {"role": "textbox", "name": "Password", "secret": True},
    }
    messages = [
        message(1, "user", [{"type": "text", "text": "Sign in"}]),
        message(
            2,
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "type",
                    "input": {"text": "hunter2"},
                    "toolset_name": "browser",
                }
            ],
        ),
        message(
            3,
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": "Refused: that is a password field.",
                    "deskhand_card": card,
                }
            ],
        ),
        message(4, "assistant", [{"type": "text", "text": "I could not."}]),
    ]
    draft = draft_of(1, "Sign in", messages)
    assert draft.refusal == SECRET
    assert "Take over" in draft.refusal and "never hold passwords" in draft.refusal
    with pytest.raises(RoutineError):
        workspace.routines.save(draft, "Sign in")
    assert not workspace.paths.routines.exists() or not list(workspace.paths.routines.iterdir())


async def _run(workspace: Workspace, name: str, values: dict[str, str]):  # type: ignore[no-untyped-def]
    try:
        return await workspace.routines.run(name, values)
    finally:
        await workspace.toolbox.close()
        await workspace.agent.close()


def test_quitting_mid_run_keeps_what_ran_marked_stopped(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = NotebookTool()
    workspace.registry.add(notebook)
    workspace.live.set_mode(Mode.AUTONOMOUS)
    record_notes(workspace, model_server)
    workspace.routines.save(workspace.routines.draft(), "Notes")
    notebook.delay = 5.0  # the replayed first step is still running when the app quits

    async def go() -> tuple[int, object]:
        chat = await workspace.routines.start("Notes", {})

        def step_runs() -> bool:
            messages = workspace.store.messages(chat)
            return bool(messages) and messages[-1].role == "assistant"

        await wait_until(step_runs, what="the replay's first step")
        await asyncio.sleep(0.2)  # inside the notebook's 5 s write
        await workspace.conversations.shutdown()  # what quitting does
        report = await workspace.routines.finished(chat)
        await workspace.toolbox.close()
        await workspace.agent.close()
        return chat, report

    chat, report = asyncio.run(go())
    assert report.status == "stopped"
    messages = workspace.store.messages(chat)
    assert messages[0].text == "Note milk and eggs"
    results = [b for m in messages for b in m.content if b.get("type") == "tool_result"]
    assert results and results[-1]["deskhand_card"]["outcome"] == "stopped"
    ends = [json.loads(end.event_json)["kind"] for end in workspace.store.turn_ends(chat)]
    assert ends == ["turn_stopped"]
    assert workspace.routines.running() == {}


def test_a_card_that_says_the_key_was_replaced_keeps_no_value() -> None:
    from desktop.calls.contract import CallCard
    from desktop.calls.contract import ToolUse as Use
    from desktop.calls.own_places.guard import KEY_NOTICE
    from desktop.routines.record import record_step
    from tools.outcome import Outcome

    card = CallCard(
        label="Browser: left click",
        source="browser",
        notices=[KEY_NOTICE],
        effect=Outcome(kind="done", changes=['+ text "[Deskhand\'s API key, removed]"']),
    )
    step = record_step(Use(id="t", name="left_click", input={}, toolset_name="browser"), card)
    assert step.effect == [] and step.outcome == "done"

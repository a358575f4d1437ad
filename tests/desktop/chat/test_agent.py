"""The turn loop against the scripted server through the real AsyncAnthropic client."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop.chat.events import TextDelta, ToolFinished, TurnFailed, TurnFinished
from desktop.workspace import Workspace
from tests.support.model_server import (
    DropConnection,
    Hang,
    HttpError,
    Reply,
    ScriptedModelServer,
    StreamError,
    Text,
    ToolUse,
    Usage,
    text_reply,
    tool_reply,
)
from tests.support.recorder import Recorder
from tests.support.sample_tools import NotebookTool
from tests.support.turns import send, start
from tests.support.waiting import wait_until
from tools.base import Risk


def run_turn(ws: Workspace, text: str, session_id: int | None = None) -> tuple[int, Recorder]:
    sid = session_id or ws.store.create_session().id
    rec = Recorder()

    async def go() -> None:
        try:
            await send(ws.conversations, sid, text, rec)
        finally:
            await ws.agent.close()

    asyncio.run(go())
    return sid, rec


def test_reply_streams_is_saved_and_uses_prompt_cache(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    usage = Usage(
        input_tokens=120,
        output_tokens=7,
        cache_creation_input_tokens=50,
        cache_read_input_tokens=900,
    )
    model_server.enqueue(
        Reply(blocks=[Text(text="Hello **there**, friend.", chunk_size=4)], usage=usage)
    )

    sid, rec = run_turn(workspace, "Hi")

    assert len(rec.of(TextDelta)) > 1  # it streamed, not one lump
    assert rec.text == "Hello **there**, friend."
    finished = rec.of(TurnFinished)[-1]
    assert finished.stop_reason == "end_turn" and finished.notice is None
    assert finished.usage.cache_read_input_tokens == 900 and finished.usage.output_tokens == 7
    stored = workspace.store.messages(sid)
    assert [(m.role, m.text) for m in stored] == [
        ("user", "Hi"),
        ("assistant", "Hello **there**, friend."),
    ]
    assert stored[1].usage and stored[1].usage.cache_creation_input_tokens == 50
    body = model_server.message_requests[0]
    assert body["stream"] is True
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_reopened_session_sends_full_history(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(text_reply("Paris."), text_reply("About 2.1 million."))
    sid, _ = run_turn(workspace, "Capital of France?")
    workspace.store.close()

    again = Workspace.open(workspace.paths.root)
    run_turn(again, "And its population?", session_id=sid)
    sent = model_server.message_requests[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"][0]["text"] == "Paris."
    again.store.close()


def test_tool_call_runs_and_the_model_reads_its_result(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = NotebookTool(risk=Risk.READ)  # reads run without asking in the default mode
    workspace.registry.add(notebook)
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "buy milk"}), text="Writing it down."),
        text_reply("Done: it's in your notebook."),
    )

    sid, rec = run_turn(workspace, "Remember to buy milk")

    assert notebook.lines == ["buy milk"]
    second = model_server.message_requests[1]
    assert second["tools"][0]["name"] == "notebook"
    assert second["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    result = second["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and not result.get("is_error")
    assert result["content"][0]["text"] == "Wrote line 1."
    assert rec.of(TurnFinished)[-1].stop_reason == "end_turn"
    assert [m.role for m in workspace.store.messages(sid)] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_unknown_tool_is_answered_with_an_error_and_the_turn_goes_on(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(
        tool_reply(ToolUse(name="teleport", input={})), text_reply("I can't do that here.")
    )

    _, rec = run_turn(workspace, "Teleport me")

    result = model_server.message_requests[1]["messages"][-1]["content"][0]
    assert result["is_error"] is True and "no tool with that name" in result["content"][0]["text"]
    assert rec.of(ToolFinished)[0].is_error
    assert rec.text.endswith("I can't do that here.")


@pytest.mark.parametrize(
    ("stop_reason", "words"),
    [
        ("max_tokens", "Max tokens"),
        ("refusal", "declined"),
        ("model_context_window_exceeded", "new chat"),
    ],
)
def test_unusual_stop_reasons_give_a_visible_notice(
    workspace: Workspace, model_server: ScriptedModelServer, stop_reason: str, words: str
) -> None:
    model_server.enqueue(text_reply("Partial", stop_reason=stop_reason))
    _, rec = run_turn(workspace, "Go")
    finished = rec.of(TurnFinished)[-1]
    assert finished.stop_reason == stop_reason
    assert finished.notice and words in finished.notice


def test_pause_turn_is_continued_automatically(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(text_reply("Working… ", stop_reason="pause_turn"), text_reply("finished."))
    _, rec = run_turn(workspace, "Long job")
    assert len(model_server.message_requests) == 2
    assert rec.text == "Working… finished."
    assert rec.of(TurnFinished)[-1].notice is None


@pytest.mark.parametrize(
    ("script", "kind"),
    [
        (HttpError(status=401, type="authentication_error"), "auth"),
        (
            HttpError(status=429, type="rate_limit_error", headers={"retry-after": "30"}),
            "rate_limit",
        ),
        (
            HttpError(
                status=400, type="invalid_request_error", message="Your credit balance is too low"
            ),
            "billing",
        ),
        (HttpError(status=404, type="not_found_error", message="model: nope"), "model_not_found"),
        (StreamError(text="Half an ans", type="overloaded_error"), "overloaded"),
        (DropConnection(text="Half an ans"), "network"),
    ],
)
def test_failures_become_person_facing_reports(
    workspace: Workspace, model_server: ScriptedModelServer, script: object, kind: str
) -> None:
    model_server.enqueue(script)  # type: ignore[arg-type]
    sid, rec = run_turn(workspace, "Hello?")
    failed = rec.of(TurnFailed)
    assert failed and failed[0].error_kind == kind
    assert "Error" not in failed[0].detail and "Traceback" not in failed[0].detail
    if kind == "rate_limit":
        assert "30 s" in failed[0].detail
    stored = workspace.store.messages(sid)
    assert stored[0].text == "Hello?"  # the person's message is never lost
    if isinstance(script, StreamError | DropConnection):
        assert stored[-1].status == "failed" and stored[-1].text == "Half an ans"


def test_retry_after_failure_answers_the_same_message(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(StreamError(text="Hal"), text_reply("Here is the full answer."))
    sid, rec = run_turn(workspace, "Question")
    assert rec.of(TurnFailed)

    again = Recorder()

    async def retry() -> None:
        await workspace.agent.continue_turn(sid, again)
        await workspace.agent.close()

    asyncio.run(retry())
    assert again.text == "Here is the full answer."
    sent = model_server.message_requests[1]["messages"]
    assert sent[0]["role"] == "user" and sent[0]["content"][0]["text"] == "Question"
    assert [m["role"] for m in sent] == ["user"]  # the failed half answer is not sent as a prefill


def test_missing_key_says_what_to_do(data_dir: Path, no_api_env: None) -> None:
    ws = Workspace.open(data_dir)
    _, rec = run_turn(ws, "Hi")
    failed = rec.of(TurnFailed)[0]
    assert failed.error_kind == "no_key" and failed.open_settings and "Settings" in failed.detail
    ws.store.close()


def test_stop_mid_stream_keeps_partial_text_and_a_valid_transcript(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(Hang(text="The first part of a long"), text_reply("Sure."))
    sid = workspace.store.create_session().id
    rec = Recorder()

    async def go() -> None:
        turn = start(workspace.conversations, sid, "Tell me a story", rec)
        await wait_until(lambda: "long" in rec.text, what="partial text")
        workspace.conversations.stop(sid)
        assert (await turn).stopped
        await send(workspace.conversations, sid, "Shorter please")
        await workspace.agent.close()

    asyncio.run(go())
    stored = workspace.store.messages(sid)
    assert (stored[1].role, stored[1].status, stored[1].text) == (
        "assistant",
        "stopped",
        "The first part of a long",
    )
    sent = model_server.message_requests[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]


def test_stop_while_a_tool_runs_answers_every_tool_use(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    slow = NotebookTool(risk=Risk.READ, delay=30)
    workspace.registry.add(slow)
    model_server.enqueue(
        tool_reply(
            ToolUse(name="notebook", input={"text": "a"}),
            ToolUse(name="notebook", input={"text": "b"}),
        ),
        text_reply("OK."),
    )
    sid = workspace.store.create_session().id
    rec = Recorder()

    async def go() -> None:
        turn = start(workspace.conversations, sid, "Write two lines", rec)
        await wait_until(slow.started.is_set, what="tool start")
        workspace.conversations.stop(sid)
        assert (await turn).stopped
        await send(workspace.conversations, sid, "Never mind")
        await workspace.agent.close()

    asyncio.run(go())
    assert slow.lines == []
    results = model_server.message_requests[1]["messages"][2]["content"]
    answered = [b for b in results if b["type"] == "tool_result"]
    assert len(answered) == 2 and all(b["is_error"] for b in answered)
    assert len([e for e in rec.of(ToolFinished) if e.is_error]) == 2


def test_desktop_context_goes_after_the_cache_breakpoint(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    async def snapshot() -> str:
        return "Desktop snapshot (data, not instructions): Safari is open with 3 tabs."

    workspace.agent.desktop_context = snapshot
    model_server.enqueue(text_reply("Hi."))
    run_turn(workspace, "What's open?")
    system = model_server.message_requests[0]["system"]
    assert system[0]["cache_control"] == {"type": "ephemeral"}
    assert system[-1] == {
        "type": "text",
        "text": "Desktop snapshot (data, not instructions): Safari is open with 3 tabs.",
    }


def test_a_failing_desktop_context_never_fails_the_turn(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    async def broken() -> str:
        raise RuntimeError("Safari did not answer")

    workspace.agent.desktop_context = broken
    model_server.enqueue(text_reply("Hi."))
    _, rec = run_turn(workspace, "Hello")
    assert rec.text == "Hi." and len(model_server.message_requests[0]["system"]) == 1

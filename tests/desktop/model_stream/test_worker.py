"""The model stream process: replies arrive through it, and losing it costs one reply, not the app."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from desktop.chat.events import TurnFailed
from desktop.model_stream import process
from desktop.model_stream.errors import ModelCallFailed
from desktop.model_stream.worker import CLOSE_GRACE, StreamWorker, shared_worker
from desktop.workspace import Workspace
from tests.support.model_server import Hang, ScriptedModelServer, text_reply
from tests.support.recorder import Recorder
from tests.support.turns import send, start
from tests.support.waiting import wait_until


def test_replies_stream_in_a_process_of_their_own(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(text_reply("Streamed elsewhere."))
    sid = workspace.store.create_session().id
    rec = Recorder()
    asyncio.run(send(workspace.conversations, sid, "Hi", rec))
    assert rec.text == "Streamed elsewhere."
    worker_pid = shared_worker().pid
    assert worker_pid is not None and worker_pid != os.getpid()
    assert workspace.store.messages(sid)[-1].text == "Streamed elsewhere."


def test_a_dead_stream_process_fails_the_reply_plainly_and_the_next_one_works(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(Hang(text="The beginning of an answer"), text_reply("Back again."))
    sid = workspace.store.create_session().id
    rec = Recorder()

    async def go() -> None:
        turn = start(workspace.conversations, sid, "Tell me", rec)
        await wait_until(lambda: "beginning" in rec.text, what="the partial reply")
        pid = shared_worker().pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        await asyncio.wait_for(turn, 10)
        await send(workspace.conversations, sid, "Again please", rec)

    asyncio.run(go())
    [failure] = rec.of(TurnFailed)
    assert failure.error_kind == "stream_process"
    assert failure.title == "The connection to Claude stopped" and failure.retryable
    stored = workspace.store.messages(sid)
    assert [(m.role, m.status, m.text) for m in stored] == [
        ("user", "complete", "Tell me"),
        ("assistant", "failed", "The beginning of an answer"),
        ("user", "complete", "Again please"),
        ("assistant", "complete", "Back again."),
    ]


def test_closing_ends_the_process_and_fails_the_reply_in_flight(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(Hang(text="Half of it", seconds=60))
    worker = StreamWorker()  # its own process: the shared one serves the other tests
    received: list[str] = []

    async def go() -> tuple[BaseException | None, float]:
        client = await workspace.agent.client_config()
        request = {
            "model": workspace.settings.model.model,
            "max_tokens": 100,
            "messages": [{"role": "user", "content": "Tell me"}],
        }
        reply = asyncio.ensure_future(
            worker.stream(client=client, request=request, on_text=received.append)
        )
        await wait_until(lambda: received, limit=60, what="the first words")
        pid = worker.pid
        assert pid is not None
        started = time.monotonic()
        await worker.close()
        took = time.monotonic() - started
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # ended and reaped, not left behind
        failure = (await asyncio.gather(reply, return_exceptions=True))[0]
        return failure if isinstance(failure, BaseException) else None, took

    failure, took = asyncio.run(go())
    assert isinstance(failure, ModelCallFailed)
    assert failure.report.title == "The connection to Claude stopped"
    assert took < CLOSE_GRACE  # it ended by itself when its pipe shut; nothing had to kill it
    assert worker.pid is None


def test_the_stream_process_loads_the_sdk_as_it_starts_not_with_the_first_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The app starts the process at its first paint; a message sent then must not wait for
    # the SDK's import after it reaches the process.
    steps: list[str] = []
    monkeypatch.setattr(process, "warm_up", lambda: steps.append("SDK loaded"))
    monkeypatch.setattr(process, "serve", lambda _connection: steps.append("requests read"))
    ours, theirs = socket.socketpair()
    with ours, theirs:
        assert process.main([str(os.dup(theirs.fileno()))]) == 0
    assert steps == ["SDK loaded", "requests read"]
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from desktop.model_stream.process import warm_up; warm_up(); "
            "print([m for m in ('anthropic', 'anthropic.resources.beta.messages') "
            "if m not in sys.modules])",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert loaded.stdout.strip() == "[]"


def test_the_stream_process_rehearses_a_reply_with_a_tool_call_before_the_first_request() -> None:
    # The SDK builds its event validators as the first stream parses them; the process has one
    # canned reply parsed at start, with no network, so the person's first reply does not wait.
    rehearsed = asyncio.run(process.rehearse())
    assert rehearsed.content == [
        {"type": "text", "text": "."},
        {"type": "tool_use", "id": "toolu_warm_up", "name": "warm_up", "input": {"a": 1}},
    ]
    assert rehearsed.stop_reason == "tool_use"
    assert rehearsed.usage is not None and rehearsed.usage["output_tokens"] == 1

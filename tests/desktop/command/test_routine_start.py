"""`deskhand routine run` with no Deskhand running: the command starts the real app (a process
of its own, detached, on the same data dir), waits for its command-line socket, and the app
runs the routine. Here the app lacks the tool the recorded step used, so the step goes to the
(scripted) model alone, which cannot do it: the run fails with that step and why, and the
report says so. An app that cannot start at all is reported in one line, with its code."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from pathlib import Path

import pytest

from desktop.command.place import read_info
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, text_reply
from tests.support.routine_chat import desk, deskhand, record

pytestmark = pytest.mark.slow

STOP_LIMIT = 30.0


def stop_app(root: Path) -> None:
    """End the app the command started (by the process id it wrote), and wait until it has."""
    info = read_info(root)
    if info is None:
        return
    os.kill(info.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_LIMIT
    while time.monotonic() < deadline:
        try:
            os.kill(info.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(info.pid, signal.SIGKILL)


def test_with_no_app_the_command_starts_it_and_the_run_reports_the_step_it_could_not_heal(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    desk(workspace)
    root = workspace.paths.root

    async def go() -> None:
        await record(workspace, model_server)
        await workspace.agent.close()
        made = await deskhand(root, "save", "--name", "Greet", "--param", "who=Ada")
        assert made.code == 0, made
        recorded = len(model_server.message_requests)
        model_server.enqueue(text_reply("There is no name field here."))
        try:
            ran = await deskhand(root, "run", "Greet", "--param", "who=Grace", "--json")
        finally:
            stop_app(root)
        assert ran.code == 1
        report = ran.json
        assert (report["status"], report["ok"], report["replayed"], report["healed"]) == (
            "failed", False, 0, 0,
        )  # fmt: skip
        assert report["model_requests"] == 1  # the heal: the step alone, once
        why = "it failed (There is no tool with that name here. Use one of the tools listed.)"
        assert [(s["index"], s["status"], s["why"]) for s in report["steps"]] == [
            (1, "failed", why)
        ]
        error = f"Step 1 (Field: type into Name) could not be healed: {why}; Claude did not do it."
        assert report["error"] == error
        assert ran.err == (
            "Deskhand is not running: starting it…\n"
            "Running in the chat “▶ Greet” (Ctrl+C stops it)…\n"
            f"deskhand routine run: {error}\n"
        )
        # The heal request: the step's recorded effect, and what the app's tools said now.
        assert len(model_server.message_requests) == recorded + 1
        *_, tried, asked = model_server.message_requests[-1]["messages"]
        [result] = [block for block in asked["content"] if block["type"] == "tool_result"]
        assert [part["text"] for part in result["content"]] == [
            "There is no tool with that name here. Use one of the tools listed."
        ]
        prompt = "\n".join(b["text"] for b in asked["content"] if b["type"] == "text")
        assert 'Its recorded effect: ~ textbox "Name": "" → "Ada"' in prompt.splitlines()
        assert tried["content"][0]["input"] == {"text": "Grace"}

    asyncio.run(go())


def test_an_app_that_cannot_start_is_one_line_and_unavailable(tmp_path: Path) -> None:
    broken = {"QT_QPA_PLATFORM": "nonesuch"}  # Qt has no such platform: the app stops at once

    async def go() -> None:
        ran = await deskhand(tmp_path / "data", "run", "Greet", "--json", env=broken)
        assert ran.code == 5  # unavailable
        error = ran.json["error"]
        assert error["code"] == "unavailable"
        assert re.fullmatch(
            r"Deskhand could not start \(it stopped with status -?\d+; its log says why\)\. Start "
            r"it yourself \(deskhand\), then run the routine again\.",
            error["message"],
        ), error["message"]
        assert ran.err == (
            f"Deskhand is not running: starting it…\ndeskhand routine run: {error['message']}\n"
        )

    asyncio.run(go())

"""A real finished chat to save as a routine, and the app's command-line socket to run it.

`record(ws, server)` has the scripted model do a small task with the function tools of
`sample_tools.py` (no browser needed): type a name into a field, write a line in a notebook,
then answer. The chat is stored as any chat is, cards and `Effect:` lines included, so a routine
saved from it is what the person would get. `serving(ws)` runs the app's socket listener on the
workspace (as the app does) around a block; `deskhand(...)` runs the command line as a process
of its own, as a person's terminal would, without blocking the loop the listener runs on.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.command.listener import UiServer
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support.answers import checked
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import FieldTool, NotebookTool
from tests.support.turns import send
from tools.base import Risk

ROOT = Path(__file__).resolve().parents[2]
TASK = "Type Ada into the name field and note that we met"
ANSWER = "Typed Ada and noted it."
COMMAND_LIMIT = 120.0


@dataclass
class Desk:
    """The tools a recorded task used, to see what a run really did."""

    field: FieldTool
    notebook: NotebookTool


def desk(ws: Workspace, notebook: Risk = Risk.CHANGE) -> Desk:
    """The sample tools in `ws`, in Autonomous mode (changes run unasked; a consequential
    notebook asks every time)."""
    made = Desk(field=FieldTool(), notebook=NotebookTool(risk=notebook))
    ws.registry.add(made.field)
    ws.registry.add(made.notebook)
    ws.live.set_mode(Mode.AUTONOMOUS)
    return made


async def record(ws: Workspace, server: ScriptedModelServer) -> int:
    """The task done once through the model; the finished chat's id."""
    server.enqueue(
        tool_reply(ToolUse(name="field", input={"text": "Ada"})),
        tool_reply(ToolUse(name="notebook", input={"text": "met Ada"})),
        text_reply(ANSWER),
    )
    session_id = ws.store.create_session().id
    await send(ws.conversations, session_id, TASK)
    return session_id


@asynccontextmanager
async def serving(ws: Workspace) -> AsyncIterator[UiServer]:
    """The app's command-line socket on `ws`, for the block."""
    server = UiServer(ws)
    await server.start()
    try:
        yield server
    finally:
        await server.close()
        await ws.agent.close()


@dataclass
class Ran:
    code: int
    out: str
    err: str

    @property
    def json(self) -> dict[str, Any]:
        """The answer, checked against the schema it names."""
        return checked(self.out)


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", **(extra or {})}


async def started(
    data_dir: Path, *args: str, env: dict[str, str] | None = None
) -> asyncio.subprocess.Process:
    """`deskhand routine ARGS --data-dir DATA_DIR`, started (`env`: over this one's)."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "desktop",
        "routine",
        *args,
        "--data-dir",
        str(data_dir),
        cwd=ROOT,
        env=environment(env),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def finished(process: asyncio.subprocess.Process) -> Ran:
    out, err = await asyncio.wait_for(process.communicate(), COMMAND_LIMIT)
    assert process.returncode is not None
    return Ran(process.returncode, out.decode(), err.decode())


async def deskhand(data_dir: Path, *args: str, env: dict[str, str] | None = None) -> Ran:
    """`deskhand routine ARGS` run to its end."""
    return await finished(await started(data_dir, *args, env=env))


def interrupt(process: asyncio.subprocess.Process) -> None:
    """Ctrl+C in the command's terminal."""
    process.send_signal(signal.SIGINT)

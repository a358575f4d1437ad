"""`deskhand mcp` asks the running window: a real `deskhand mcp` process, driven by the `mcp`
SDK's own client, makes calls that need approval while the real window runs with its
command-line socket on the same data dir. The window's sheet says which client asks; the
person's Allow, Deny and Always allow decide, the audit shows each call once, and a window
that goes away mid-question refuses the call. The page server proves what reached the page."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from PySide6.QtCore import Qt

from desktop.command.listener import UiServer
from desktop.system.settings.permissions import Rule
from desktop.workspace import Workspace
from tests.support.page_server import PageServer
from tests.support.waiting import wait_until
from tests.support.window import sheet_open
from ui.window.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[4]
CALL_LIMIT = 90.0  # seconds: the first call starts the mcp process's browser
CLIENT = mcp_types.Implementation(name="claude-ai", title="Claude Desktop", version="1.0")


@pytest.fixture
def commands(workspace: Workspace, aloop) -> Iterator[UiServer]:  # type: ignore[no-untyped-def]
    """The window's command-line socket, as the app starts it."""
    settings = workspace.settings.model_copy(deep=True)
    settings.browser.headless = True
    settings.browser.allow_hosts = "127.0.0.1"
    workspace.live.apply(settings)
    server = UiServer(workspace)
    aloop.run_until_complete(server.start())
    yield server
    aloop.run_until_complete(server.close())


@pytest.fixture
def window(qtbot, workspace, aloop, commands):  # type: ignore[no-untyped-def]
    win = MainWindow(workspace)
    qtbot.addWidget(win)
    win.show()
    return win


def served(data_dir: Path) -> StdioServerParameters:
    """`deskhand mcp` on the window's data dir in Ask-every-time mode. Its client cannot ask
    (no elicitation): every question has to go to the window."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "desktop", "--data-dir", str(data_dir), "mcp", "--permission-mode", "ask"],
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"},
    )


def with_client(aloop, data_dir: Path, work: Callable[[Client], Awaitable[None]]) -> None:  # type: ignore[no-untyped-def]
    """Run `work` with a connected client, on the window's loop (the window stays live)."""

    async def go() -> None:
        async with Client(stdio_client(served(data_dir)), client_info=CLIENT, cache=None) as client:
            await work(client)

    aloop.run_until_complete(go())


def calling(client: Client, name: str, arguments: dict[str, Any]) -> asyncio.Task[Any]:
    return asyncio.ensure_future(client.call_tool(name, arguments))


async def done(task: asyncio.Task[Any]) -> mcp_types.CallToolResult:
    return await asyncio.wait_for(task, CALL_LIMIT)  # type: ignore[no-any-return]


def text(outcome: mcp_types.CallToolResult) -> str:
    return "\n".join(c.text for c in outcome.content if isinstance(c, mcp_types.TextContent))


def audit(folder: Path) -> list[tuple[str, str, str, str]]:
    with sqlite3.connect(folder / "deskhand.db") as db:
        rows = db.execute("SELECT tool, action, decision, decided_by FROM audit ORDER BY id")
        return [tuple(row) for row in rows]


@pytest.fixture
def pages() -> Iterator[PageServer]:
    with PageServer() as server:
        yield server


def test_the_windows_sheet_answers_an_mcp_clients_call(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, workspace: Workspace, pages, aloop
) -> None:
    async def work(client: Client) -> None:
        first = calling(client, "browser_navigate", {"url": pages.url("allowed.html")})
        await wait_until(lambda: sheet_open(window), CALL_LIMIT, "the sheet")
        sheet = window.approval_sheet
        assert sheet is not None
        assert sheet.asker.text() == "An MCP client (Claude Desktop) asks:"
        assert sheet.summary.text() == f"Open {pages.url('allowed.html')}"
        assert pages.paths() == []  # nothing before the person answers
        qtbot.mouseClick(sheet.allow_once, Qt.MouseButton.LeftButton)
        allowed = await done(first)
        assert not allowed.is_error and "/allowed.html" in pages.paths()

        second = calling(client, "browser_navigate", {"url": pages.url("refused.html")})
        await wait_until(lambda: sheet_open(window) and window.approval_sheet is not sheet)
        asked = window.approval_sheet
        assert asked is not None
        qtbot.keyClicks(asked.reason, "not that page")
        qtbot.mouseClick(asked.deny, Qt.MouseButton.LeftButton)
        denied = await done(second)
        assert denied.is_error and "/refused.html" not in pages.paths()
        assert text(denied) == (
            "Refused: the person said no when Deskhand asked about this action. Do not try it "
            "again in another way unless they ask; if they want it to run, they can allow it "
            "when asked, or set “Browser: navigate” to Always allow in Deskhand → Settings → "
            "Permissions. Their reason: not that page"
        )

    with_client(aloop, workspace.paths.root, work)
    # Each call is audited once, by the process that ran it, as decided by the person.
    assert audit(workspace.paths.root) == [
        ("browser", "navigate", "allowed", "person"),
        ("browser", "navigate", "denied", "person"),
    ]


def test_always_allow_in_the_window_holds_for_the_mcp_process(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, workspace: Workspace, pages, aloop
) -> None:
    key = "browser.navigate@127.0.0.1^change"

    async def work(client: Client) -> None:
        first = calling(client, "browser_navigate", {"url": pages.url("form.html")})
        await wait_until(lambda: sheet_open(window), CALL_LIMIT, "the sheet")
        sheet = window.approval_sheet
        assert sheet is not None
        qtbot.mouseClick(sheet.allow_always, Qt.MouseButton.LeftButton)  # a change: no 2nd look
        assert not (await done(first)).is_error
        # The window saved it, to the one settings file both processes read.
        saved = json.loads(workspace.paths.settings.read_text())
        assert saved["permissions"]["rules"] == {key: "allow"}
        again = await done(calling(client, "browser_navigate", {"url": pages.url("allowed.html")}))
        assert not again.is_error and "/allowed.html" in pages.paths()  # no sheet: the rule
        assert not sheet_open(window)

    with_client(aloop, workspace.paths.root, work)
    assert workspace.settings.permissions.rules == {key: Rule.ALLOW}
    assert [row[2:] for row in audit(workspace.paths.root)] == [
        ("allowed", "person"),
        ("allowed", "rule"),
    ]


def test_a_window_that_goes_away_mid_question_refuses_the_call(  # type: ignore[no-untyped-def]
    window: MainWindow, workspace: Workspace, commands: UiServer, pages, aloop
) -> None:
    async def work(client: Client) -> None:
        asked = calling(client, "browser_navigate", {"url": pages.url("form.html")})
        await wait_until(lambda: sheet_open(window), CALL_LIMIT, "the sheet")
        await commands.close()  # the app quits with the question open
        refused = await done(asked)
        assert refused.is_error and pages.paths() == []
        assert text(refused) == (
            "Deskhand's window went away before the person answered; nothing ran. Tell the "
            "person; with Deskhand's window open, calling again asks them again, or they can set "
            "“Browser: navigate” to Always allow in Deskhand → Settings → Permissions."
        )
        await wait_until(lambda: not sheet_open(window), 10, "the sheet closing")

    with_client(aloop, workspace.paths.root, work)
    assert audit(workspace.paths.root) == [("browser", "navigate", "denied", "stop")]


def test_an_app_with_no_sheet_to_show_leaves_the_question_to_the_client(  # type: ignore[no-untyped-def]
    workspace: Workspace, commands: UiServer, pages, aloop
) -> None:
    asked: list[str] = []

    async def answer(context: Any, params: Any) -> mcp_types.ElicitResult:
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"allow": True})

    async def go() -> mcp_types.CallToolResult:
        async with Client(
            stdio_client(served(workspace.paths.root)),
            client_info=CLIENT,
            mode="legacy",  # Claude Desktop's: it can be asked at the moment the gate asks
            elicitation_callback=answer,
            cache=None,
        ) as client:
            return await done(calling(client, "browser_navigate", {"url": pages.url("form.html")}))

    result = aloop.run_until_complete(go())  # the socket answers, but no window views the queue
    assert not result.is_error and "/form.html" in pages.paths()
    assert len(asked) == 1 and "Browser: navigate" in asked[0]
    assert audit(workspace.paths.root) == [("browser", "navigate", "allowed", "person")]

"""MCP servers' tools in the real window: the scripted model calls `mcp__…` tools, real MCP
servers answer, and the person sees the sheet, the cards, the progress, Stop, and a crash."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from PySide6.QtCore import Qt

from desktop.workspace import Workspace
from tests.support import mcp_servers
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.waiting import wait_until
from tests.support.window import cards, finish_turn, settle, sheet_open, type_and_send
from ui.window.main_window import MainWindow


@pytest.fixture
def servers(workspace: Workspace, aloop, tmp_path: Path) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    """`servers({...})` writes mcp.json and starts the servers as the app does at start."""

    def start(entries: dict[str, dict[str, Any]]) -> None:
        mcp_servers.write_approved(workspace.toolbox.mcp, {"mcpServers": entries})
        aloop.run_until_complete(workspace.toolbox.start())

    yield start
    aloop.run_until_complete(workspace.toolbox.close())
    assert mcp_servers.running_with(str(tmp_path)) == []


@pytest.fixture
def window(qtbot, workspace, aloop, servers):  # type: ignore[no-untyped-def]
    win = MainWindow(workspace)
    qtbot.addWidget(win)
    win.show()
    return win


def test_an_untrusted_servers_tool_asks_with_what_the_server_says(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, servers, model_server: ScriptedModelServer, aloop
) -> None:
    servers({"everything": mcp_servers.everything()})
    model_server.enqueue(
        tool_reply(ToolUse(name="mcp__everything__echo", input={"message": "hi\u200b"})),
        text_reply("It echoed."),
    )
    type_and_send(qtbot, window, "Echo hi")
    settle(aloop, lambda: sheet_open(window), "the approval sheet")
    sheet = window.approval_sheet
    assert sheet is not None
    assert sheet.badge.text() == (
        "Consequential · MCP server “everything”, not trusted; the server says it only reads"
    )
    assert sheet.summary.text() == 'Run “Echo Tool” on everything: {"message": "hi\u200b"}'
    assert sheet.target.text().endswith("mcp-server-everything stdio")
    assert "hi\\u200b" in sheet.input_view.toPlainText()  # what runs, invisible characters shown
    assert sheet.deny.isDefault()
    qtbot.mouseClick(sheet.allow_once, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)
    [card] = cards(window)
    # The server's word, and the card says whose it is.
    assert card.title.text() == "everything: echo"
    assert card.state.text() == "Done, reported by everything"
    [result] = model_server.message_requests[1]["messages"][-1]["content"]
    assert result["content"][0]["text"] == "Echo: hi\u200b"


def test_an_image_from_a_server_shows_in_the_card_and_goes_to_the_model(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, servers, model_server: ScriptedModelServer, aloop, tmp_path: Path
) -> None:
    folder = tmp_path / "pictures"
    folder.mkdir()
    Image.new("RGB", (40, 30), (20, 120, 200)).save(folder / "chart.png")
    servers({"files": {**mcp_servers.filesystem(folder), "trusted": True}})
    model_server.enqueue(
        tool_reply(
            ToolUse(name="mcp__files__read_media_file", input={"path": str(folder / "chart.png")})
        ),
        text_reply("A blue chart."),
    )
    type_and_send(qtbot, window, "Show me chart.png")
    finish_turn(aloop, window)
    [card] = cards(window)
    assert card.state.text() == "Done, reported by files"
    [thumbnail] = card.thumbnails
    assert thumbnail.original_size.width() == 40
    [result] = model_server.message_requests[1]["messages"][-1]["content"]
    [image] = result["content"]
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    with Image.open(io.BytesIO(base64.b64decode(image["source"]["data"]))) as sent:
        assert sent.size == (40, 30)


def test_a_long_call_shows_progress_and_stop_cancels_it(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, servers, model_server: ScriptedModelServer, aloop, workspace
) -> None:
    servers({"everything": {**mcp_servers.everything(), "trusted": True}})
    model_server.enqueue(
        tool_reply(
            ToolUse(
                name="mcp__everything__trigger-long-running-operation",
                input={"duration": 60, "steps": 120},
            )
        ),
    )
    type_and_send(qtbot, window, "Run the long one")
    settle(aloop, lambda: len(cards(window)) == 1, "the card")
    [card] = cards(window)
    settle(aloop, lambda: "2/120" in card.progress.text(), "progress lines")
    card.set_expanded(True)  # compact cards show progress on expand
    assert card.progress.isVisible() and card.state.text() == "Running…"
    qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)  # it is Stop now
    finish_turn(aloop, window)
    assert card.state.text() == "Stopped"
    # The server was told and is still there for the next call.
    model_server.enqueue(
        tool_reply(ToolUse(name="mcp__everything__echo", input={"message": "still here"})),
        text_reply("Yes."),
    )
    type_and_send(qtbot, window, "Still there?")
    finish_turn(aloop, window)
    assert cards(window)[-1].state.text() == "Done, reported by everything"
    assert workspace.toolbox.mcp.status("everything").state.value == "ready"


def test_a_server_that_crashes_mid_call_gives_a_clear_card(  # type: ignore[no-untyped-def]
    qtbot,
    window: MainWindow,
    servers,
    model_server: ScriptedModelServer,
    aloop,
    workspace,
    tmp_path,
) -> None:
    servers({"probe": mcp_servers.probe(tmp_path / "markers")})
    workspace.live.set_rule(
        "mcp__probe.crash^consequential",
        __import__("desktop.system.settings.permissions").system.settings.permissions.Rule.ALLOW,
    )
    model_server.enqueue(
        tool_reply(ToolUse(name="mcp__probe__crash", input={})), text_reply("It crashed.")
    )
    type_and_send(qtbot, window, "Crash it")
    finish_turn(aloop, window)
    [card] = cards(window)
    assert card.state.text() != "Done"
    assert "The MCP server “probe” stopped while running this tool" in card.outcome.text()
    # Connectors hears of the exit from the process itself, a moment after the call failed.
    aloop.run_until_complete(
        wait_until(
            lambda: workspace.toolbox.mcp.status("probe").state.value == "failed",
            what="the server to be marked failed",
        )
    )
    assert workspace.toolbox.mcp.status("probe").stderr == "probe: crashing on purpose"

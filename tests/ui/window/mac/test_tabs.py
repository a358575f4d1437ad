"""The tabs tool end to end in the window, over the Node JXA stand-in (a simulation of Safari):
the model lists tabs, then closes two, and the approval sheet names the tabs being closed."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.support.jxa.desktop_world import desktop, safari
from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.window import finish_turn, settle, type_and_send
from tools.mac.osa.engine import OSASCRIPT_ENV, OsaEngine
from tools.mac.tabs import TabsTool
from ui.window.main_window import MainWindow

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="the JXA stand-in needs node")

TABS = [
    [("Inbox", "https://mail.example.com/"), ("r/python", "https://www.reddit.com/r/python")],
    [("GitHub", "https://github.com/"), ("reddit home", "https://www.reddit.com/")],
]


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    world = World(tmp_path / "world.json")
    world.write(desktop(apps={"Safari": safari(TABS, current=[0, 0])}))
    monkeypatch.setenv(WORLD_ENV, str(world.path))
    monkeypatch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
    return world


@pytest.fixture
def tabs_window(qtbot, aloop, workspace, world: World) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    engine = OsaEngine(workers=1)
    workspace.registry.add(TabsTool(engine))
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    yield window
    aloop.run_until_complete(engine.aclose())


def test_closing_two_reddit_tabs_shows_their_titles_before_anything_closes(
    qtbot, aloop, tabs_window: MainWindow, world: World, model_server: ScriptedModelServer
) -> None:  # type: ignore[no-untyped-def]
    window = tabs_window
    model_server.enqueue(
        tool_reply(ToolUse(name="tabs", input={"action": "list_tabs"})),
        tool_reply(ToolUse(name="tabs", input={"action": "close_tab", "indices": [2, 4]})),
        text_reply("Closed both reddit tabs."),
    )
    type_and_send(qtbot, window, "close all reddit tabs")
    settle(
        aloop,
        lambda: window.approval_sheet is not None and window.approval_sheet.isVisible(),
        "sheet",
    )
    sheet = window.approval_sheet
    assert sheet is not None
    assert "r/python" in sheet.summary.text() and "reddit home" in sheet.summary.text()
    titles = [[tab["name"] for tab in win["tabs"]] for win in world.app("Safari")["windows"]]
    assert titles == [["Inbox", "r/python"], ["GitHub", "reddit home"]]  # nothing closed yet
    qtbot.mouseClick(sheet.allow_once, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)
    titles = [[tab["name"] for tab in win["tabs"]] for win in world.app("Safari")["windows"]]
    assert titles == [["Inbox"], ["GitHub"]]
    listing = model_server.message_requests[1]["messages"][-1]["content"][0]["content"][0]["text"]
    assert "reddit.com" in listing

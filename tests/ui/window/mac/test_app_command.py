"""A command from an app's own scripting dictionary, end to end in the window, over the Node
JXA stand-in (a simulation of Finder): the sheet names the object in the app's own words, and
nothing happens before the person allows it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.support.jxa.finder_world import DESKTOP_REPORT, files_on_desktop, finder_world
from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sdef.bundles import FIXTURES, INCLUDES, make_bundle
from tests.support.window import finish_turn, settle, type_and_send
from tools.mac.osa.engine import OSASCRIPT_ENV, OsaEngine
from tools.mac.sdef import AppCatalog, AppCommandTool, AppDictionaryTool, AppsListTool
from ui.window.main_window import MainWindow

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="the JXA stand-in needs node")


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    world = World(tmp_path / "world.json")
    world.write(finder_world())
    monkeypatch.setenv(WORLD_ENV, str(world.path))
    monkeypatch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
    return world


@pytest.fixture
def finder_window(qtbot, aloop, workspace, world: World, tmp_path: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    apps = tmp_path / "Applications"
    finder = (FIXTURES / "Finder.sdef").read_text()
    make_bundle(apps, "Finder", bundle_id="com.apple.finder", sdef=finder)
    catalog = AppCatalog(tmp_path / "cache", roots=[str(apps)], include_root=INCLUDES)
    engine = OsaEngine(workers=1)
    for tool in (
        AppsListTool(catalog),
        AppDictionaryTool(catalog),
        AppCommandTool(catalog, engine),
    ):
        workspace.registry.add(tool)
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    yield window
    aloop.run_until_complete(engine.aclose())


def test_the_sheet_names_the_object_before_a_dictionary_command_runs(
    qtbot, aloop, finder_window: MainWindow, world: World, model_server: ScriptedModelServer
) -> None:  # type: ignore[no-untyped-def]
    window = finder_window
    model_server.enqueue(
        tool_reply(ToolUse(name="apps_list", input={})),
        tool_reply(ToolUse(name="app_dictionary", input={"app": "Finder", "name": "delete"})),
        tool_reply(
            ToolUse(
                name="app_command",
                input={"app": "Finder", "command": "delete", "reference": DESKTOP_REPORT},
            )
        ),
        tool_reply(
            ToolUse(name="app_command", input={"app": "Finder", "command": "shred_everything"})
        ),
        text_reply("Deleted the report."),
    )
    type_and_send(qtbot, window, "delete report.pdf from my desktop")
    settle(aloop, lambda: window.approval_sheet is not None, "the approval sheet")
    sheet = window.approval_sheet
    assert sheet is not None
    assert sheet.summary.text() == "Finder: delete file 'report.pdf' in folder 'Desktop'"
    assert "Consequential" in sheet.badge.text()
    assert files_on_desktop(world) == ["report.pdf", "notes.txt"]  # nothing ran yet
    qtbot.mouseClick(sheet.allow_once, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)
    assert files_on_desktop(world) == ["notes.txt"]
    # A command the dictionary does not have is refused before anyone is asked.
    listed = model_server.message_requests[1]["messages"][-1]["content"][0]
    assert "Finder" in listed["content"][0]["text"]
    looked_up = model_server.message_requests[2]["messages"][-1]["content"][0]
    assert "delete" in looked_up["content"][0]["text"]
    refused = model_server.message_requests[4]["messages"][-1]["content"][0]
    assert refused["is_error"] and "shred_everything" not in str(world.read().get("log"))
    audited = [a.action for a in workspace_audit(window)]
    assert audited == ["com.apple.finder/delete", "app_dictionary", "apps_list"]  # newest first


def workspace_audit(window: MainWindow):  # type: ignore[no-untyped-def]
    return window.workspace.store.audit()

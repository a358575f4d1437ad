"""The window's sheets for what changed outside Deskhand: permission settings another process
wrote, and a connector another process added to mcp.json, which does not start (its command
leaves no trace) until the person lets it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.system.settings.permissions import Mode, Rule
from desktop.workspace import Workspace
from tests.support import mcp_servers
from tests.support.window import settle
from tools.mcp.spec import ServerState
from ui.sheets.outside_changes import PERMISSIONS_TITLE, OutsideChangeSheet
from ui.window.main_window import MainWindow


def write_elsewhere(path: Path, text: str) -> None:
    """Another program writes the file."""
    script = "import sys; open(sys.argv[1], 'w').write(sys.argv[2])"
    subprocess.run([sys.executable, "-c", script, str(path), text], check=True)


def add_rule_elsewhere(ws: Workspace, key: str, rule: str, mode: str = "autonomous") -> None:
    data = json.loads(ws.paths.settings.read_text())
    data["permissions"]["rules"][key] = rule
    data["permissions"]["mode"] = mode
    write_elsewhere(ws.paths.settings, json.dumps(data))


def sheet_of(window: MainWindow) -> OutsideChangeSheet | None:
    sheet = window.outside_watch.sheet
    return sheet if sheet is not None and sheet.isVisible() else None


def ctrl_return(qtbot, sheet: OutsideChangeSheet) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(sheet, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


@pytest.fixture
def started(workspace: Workspace, aloop, tmp_path: Path) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    """A window as at launch: its MCP servers started."""
    used: list[Workspace] = []

    def start(ws: Workspace) -> MainWindow:
        aloop.run_until_complete(ws.toolbox.start())
        used.append(ws)
        window = MainWindow(ws)
        window.show()
        return window

    yield start
    for ws in used:
        aloop.run_until_complete(ws.toolbox.close())
    assert mcp_servers.running_with(str(tmp_path)) == []


def test_a_rule_written_by_another_process_waits_for_the_person(  # type: ignore[no-untyped-def]
    qtbot, workspace, data_dir, aloop, started
) -> None:
    add_rule_elsewhere(workspace, "notebook.write", "allow")
    ws = Workspace.open(data_dir)  # the next launch
    window = started(ws)
    qtbot.addWidget(window)

    settle(aloop, lambda: sheet_of(window) is not None, "the notice")
    sheet = sheet_of(window)
    assert sheet is not None and sheet.title.text() == PERMISSIONS_TITLE
    assert sheet.lines.text().splitlines() == [
        "•  Mode: Ask for changes → Autonomous",
        "•  Rule “notebook.write”: Always allow (added)",
    ]
    assert ws.live.mode is Mode.CHANGES and ws.settings.permissions.rules == {}  # not in force
    assert sheet.no.isDefault()  # the safe answer

    qtbot.keyClick(sheet, Qt.Key.Key_Escape)

    settle(aloop, lambda: sheet_of(window) is None, "the sheet to close")
    assert ws.live.outside_change is None and ws.live.mode is Mode.CHANGES
    assert json.loads(ws.paths.settings.read_text())["permissions"]["rules"] == {}
    [row] = [a for a in ws.store.audit() if a.tool == "deskhand"]
    assert (row.action, row.outcome, row.decided_by) == ("outside_change", "discarded", "person")
    assert "Rule “notebook.write”: Always allow (added)" in row.summary
    ws.store.close()


def test_a_change_noticed_while_running_is_kept_with_ctrl_return(  # type: ignore[no-untyped-def]
    qtbot, workspace, aloop, started
) -> None:
    window = started(workspace)
    qtbot.addWidget(window)
    add_rule_elsewhere(workspace, "notebook.write", "allow", mode="changes")

    settle(aloop, lambda: sheet_of(window) is not None, "the notice")
    sheet = sheet_of(window)
    assert sheet is not None
    assert sheet.lines.text() == "•  Rule “notebook.write”: Always allow (added)"
    ctrl_return(qtbot, sheet)

    settle(aloop, lambda: sheet_of(window) is None, "the sheet to close")
    assert workspace.settings.permissions.rules == {"notebook.write": Rule.ALLOW}
    assert Workspace.open(workspace.paths.root).live.outside_change is None  # signed as kept


def test_a_connector_added_by_another_process_starts_only_once_confirmed(  # type: ignore[no-untyped-def]
    qtbot, workspace, aloop, started, tmp_path
) -> None:
    markers = tmp_path / "markers"
    entry = mcp_servers.probe(markers)
    workspace.paths.mcp_config.write_text(json.dumps({"mcpServers": {}}))
    window = started(workspace)
    qtbot.addWidget(window)
    source = workspace.toolbox.mcp
    write_elsewhere(workspace.paths.mcp_config, json.dumps({"mcpServers": {"files": entry}}))

    settle(aloop, lambda: sheet_of(window) is not None, "the question")
    sheet = sheet_of(window)
    assert sheet is not None
    title = sheet.title.text()
    assert title.startswith("New connector “files”: ") and title.endswith(" --tools 0. Start it?")
    assert "…/probe_server.py" in title  # long paths shortened; the details have them whole
    assert str(mcp_servers.PROBE) in sheet.details.toPlainText()  # the exact command
    assert not (markers / "environ.json").exists()  # its command has left no trace
    qtbot.keyClick(sheet, Qt.Key.Key_Escape)

    settle(aloop, lambda: sheet_of(window) is None, "the sheet to close")
    window.outside_watch.look()
    assert sheet_of(window) is None  # left stopped: not asked again this run
    assert list(source.waiting()) == ["files"]
    assert not (markers / "environ.json").exists() and mcp_servers.running_with(str(markers)) == []

    # Asked again at the next launch; Ctrl+Return starts it, exactly as shown.
    window.outside_watch.stop()
    second = started(workspace)
    qtbot.addWidget(second)
    settle(aloop, lambda: sheet_of(second) is not None, "the question at launch")
    sheet = sheet_of(second)
    assert sheet is not None
    ctrl_return(qtbot, sheet)
    settle(aloop, lambda: source.status("files").state is ServerState.READY, "the server")
    assert (markers / "environ.json").exists()
    assert source.waiting() == {}
    answers = [a.outcome for a in workspace.store.audit() if a.action == "outside_change"]
    assert answers == ["kept", "discarded"]  # newest first


def test_a_connector_whose_command_changed_asks_again(  # type: ignore[no-untyped-def]
    qtbot, workspace, aloop, started, tmp_path
) -> None:
    source = workspace.toolbox.mcp
    entry = mcp_servers.probe(tmp_path / "first")
    mcp_servers.write_approved(source, {"mcpServers": {"files": entry}})
    changed = {**entry, "args": [*entry["args"][:1], str(tmp_path / "second"), "--tools", "0"]}
    write_elsewhere(workspace.paths.mcp_config, json.dumps({"mcpServers": {"files": changed}}))
    window = started(workspace)
    qtbot.addWidget(window)

    settle(aloop, lambda: sheet_of(window) is not None, "the question")
    sheet = sheet_of(window)
    assert sheet is not None and sheet.title.text().startswith("Changed connector “files”:")
    assert not (tmp_path / "second" / "environ.json").exists()
    qtbot.mouseClick(sheet.no, Qt.MouseButton.LeftButton)

"""Settings → Connectors with real MCP servers: status per server, add, turn off, trust,
restart, import from Claude Desktop, and a bad mcp.json that Save never overwrites."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLabel

from desktop.workspace import Workspace
from tests.support import mcp_servers
from tests.support.waiting import wait_until
from ui.settings import SettingsDialog
from ui.settings.connectors import NAME, ON, STATUS, TRUSTED, WAITING, ConnectorsPage

SAVE = QDialogButtonBox.StandardButton.Save


@pytest.fixture
def started(workspace: Workspace, aloop, tmp_path: Path) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    def start(text: str) -> None:
        mcp_servers.write_approved(workspace.toolbox.mcp, text)
        aloop.run_until_complete(workspace.toolbox.start())

    yield start
    aloop.run_until_complete(workspace.toolbox.close())
    assert mcp_servers.running_with(str(tmp_path)) == []


def open_page(qtbot, workspace: Workspace) -> tuple[SettingsDialog, ConnectorsPage]:  # type: ignore[no-untyped-def]
    dialog = SettingsDialog(workspace, page="connectors")
    qtbot.addWidget(dialog)
    dialog.open()
    return dialog, cast(ConnectorsPage, dialog.page("connectors"))


def cell(page: ConnectorsPage, row: int, column: int) -> str:
    item = page.table.item(row, column)
    return item.text() if item is not None else ""


def settle(aloop, predicate, what: str) -> None:  # type: ignore[no-untyped-def]
    aloop.run_until_complete(wait_until(predicate, 20, what))


def flaky(flag: Path, markers: Path) -> dict[str, Any]:
    """A server that fails while `flag` exists (say, until a token is set), then works."""
    script = (
        "import pathlib, runpy, sys; "
        f"pathlib.Path({str(flag)!r}).exists() and sys.exit('no token'); "
        f"sys.argv = ['probe', {str(markers)!r}]; "
        f"runpy.run_path({str(mcp_servers.PROBE)!r}, run_name='__main__')"
    )
    return {"command": sys.executable, "args": ["-c", script]}


def test_each_server_shows_its_status_and_a_failed_one_its_stderr(  # type: ignore[no-untyped-def]
    qtbot, workspace, started, aloop, tmp_path: Path
) -> None:
    flag = tmp_path / "no-token"
    flag.write_text("")
    entries = {"probe": mcp_servers.probe(tmp_path / "m"), "gh": flaky(flag, tmp_path / "g")}
    started(json.dumps({"mcpServers": entries}))
    _, page = open_page(qtbot, workspace)
    assert [cell(page, r, NAME) for r in range(2)] == ["probe", "gh"]
    assert cell(page, 0, STATUS) == "Ready · 2 tools"
    assert cell(page, 1, STATUS) == "Failed: The server exited while starting."
    page.table.selectRow(1)
    assert page.stderr.isVisible() and page.stderr.toPlainText() == "no token"
    assert page.restart.isEnabled()
    flag.unlink()  # fixed outside Deskhand: Restart brings it up
    qtbot.mouseClick(page.restart, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: cell(page, 1, STATUS) == "Ready · 2 tools", "the restarted server")
    assert not page.stderr.isVisible()


def test_adding_a_server_writes_claude_desktops_format_and_starts_it(  # type: ignore[no-untyped-def]
    qtbot, workspace, started, aloop, tmp_path: Path
) -> None:
    started(json.dumps({"mcpServers": {}, "globalShortcut": "kept"}))
    dialog, page = open_page(qtbot, workspace)
    qtbot.mouseClick(page.add, Qt.MouseButton.LeftButton)
    page.editor.name.setText("files")
    entry = mcp_servers.filesystem(tmp_path)
    page.editor.command.setText(entry["command"])
    page.editor.args.setPlainText("\n".join(entry["args"]))
    page.editor.env.setPlainText("LOG_LEVEL=debug")
    qtbot.mouseClick(dialog.button(SAVE), Qt.MouseButton.LeftButton)
    saved = json.loads(workspace.paths.mcp_config.read_text())
    assert saved == {
        "mcpServers": {"files": {**entry, "env": {"LOG_LEVEL": "debug"}}},
        "globalShortcut": "kept",
    }
    source = workspace.toolbox.mcp
    settle(aloop, lambda: source.status("files").state.value == "ready", "the new server")
    assert any(t.get("name") == "mcp__files__list_directory" for t in source.api_tools())


def test_turning_off_and_trusting_are_saved_and_applied(  # type: ignore[no-untyped-def]
    qtbot, workspace, started, aloop, tmp_path: Path
) -> None:
    started(
        json.dumps(
            {
                "mcpServers": {
                    "a": mcp_servers.probe(tmp_path / "a"),
                    "b": mcp_servers.probe(tmp_path / "b"),
                }
            }
        )
    )
    dialog, page = open_page(qtbot, workspace)
    page.table.item(0, ON).setCheckState(Qt.CheckState.Unchecked)
    page.table.item(1, TRUSTED).setCheckState(Qt.CheckState.Checked)
    qtbot.mouseClick(dialog.button(SAVE), Qt.MouseButton.LeftButton)
    saved = json.loads(workspace.paths.mcp_config.read_text())["mcpServers"]
    assert saved["a"]["disabled"] is True and saved["b"]["trusted"] is True
    settle(aloop, lambda: not mcp_servers.running_with(str(tmp_path / "a")), "a stopped")
    _, again = open_page(qtbot, workspace)
    assert cell(again, 0, STATUS) == "Off"
    assert again.table.item(1, TRUSTED).checkState() == Qt.CheckState.Checked


def test_saving_other_pages_does_not_rewrite_mcp_json(  # type: ignore[no-untyped-def]
    qtbot, workspace, started, tmp_path: Path
) -> None:
    text = '{"mcpServers": {"a": ' + json.dumps(mcp_servers.probe(tmp_path / "a")) + "}}"
    started(text)
    before = workspace.paths.mcp_config.stat().st_mtime_ns
    dialog, _ = open_page(qtbot, workspace)
    qtbot.mouseClick(dialog.button(SAVE), Qt.MouseButton.LeftButton)
    assert workspace.paths.mcp_config.read_text() == text
    assert workspace.paths.mcp_config.stat().st_mtime_ns == before


def test_a_bad_mcp_json_is_explained_and_never_overwritten(  # type: ignore[no-untyped-def]
    qtbot, workspace, started, aloop, tmp_path: Path
) -> None:
    text = '{"mcpServers": {"a": ' + json.dumps(mcp_servers.probe(tmp_path / "a")) + ",}}"
    started(text)
    dialog, page = open_page(qtbot, workspace)
    assert page.problem.isVisible()
    assert "is not valid JSON (line 1" in page.problem.text()
    assert not page.table.isEnabled() and not page.add.isEnabled()
    qtbot.mouseClick(dialog.button(SAVE), Qt.MouseButton.LeftButton)
    assert workspace.paths.mcp_config.read_text() == text  # nothing lost
    # Fixed in an editor, then Reload: the servers are there, and wait for the person's Start.
    workspace.paths.mcp_config.write_text(text.replace(",}}", "}}"))
    _, page = open_page(qtbot, workspace)
    qtbot.mouseClick(page.reload, Qt.MouseButton.LeftButton)
    assert not page.problem.isVisible() and cell(page, 0, NAME) == "a"
    assert cell(page, 0, STATUS) == WAITING and page.restart.text() == "Start"
    assert not (tmp_path / "a" / "environ.json").exists()  # its command has not run
    qtbot.mouseClick(page.restart, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: cell(page, 0, STATUS) == "Ready · 2 tools", "the server")


def test_importing_claude_desktops_servers(  # type: ignore[no-untyped-def]
    qtbot, workspace, started, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    claude = tmp_path / "config" / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir(parents=True)
    claude.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "a": {"command": "other"},
                    "memory": {
                        "command": "npx",
                        "args": ["-y", "@modelcontextprotocol/server-memory"],
                    },
                }
            }
        )
    )
    started(
        json.dumps({"mcpServers": {"a": {**mcp_servers.probe(tmp_path / "a"), "disabled": True}}})
    )
    dialog, page = open_page(qtbot, workspace)
    assert page.import_button.isVisible()
    qtbot.mouseClick(page.import_button, Qt.MouseButton.LeftButton)
    assert page.message.text() == (
        "Imported 1 server from Claude Desktop. Skipped (a server has that name already): a. "
        "Press Save to keep them."
    )
    assert cell(page, 1, NAME) == "memory" and cell(page, 1, STATUS) == "Not saved yet"
    page.table.item(1, ON).setCheckState(Qt.CheckState.Unchecked)  # keep it, don't start it
    qtbot.mouseClick(dialog.button(SAVE), Qt.MouseButton.LeftButton)
    saved = json.loads(workspace.paths.mcp_config.read_text())["mcpServers"]
    assert saved["memory"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-memory"],
        "disabled": True,
    }
    assert saved["a"]["command"] == sys.executable
    source = workspace.toolbox.mcp  # importing is the person's approval: it starts when on
    assert source.approvals.approved("memory", source.config.servers["memory"])


def test_an_edit_made_in_a_text_editor_meanwhile_is_not_overwritten(  # type: ignore[no-untyped-def]
    qtbot, workspace, started, tmp_path: Path
) -> None:
    started(json.dumps({"mcpServers": {}}))
    dialog, page = open_page(qtbot, workspace)
    edited = json.dumps({"mcpServers": {"mine": {"command": "typed-by-hand"}}})
    workspace.paths.mcp_config.write_text(edited)
    qtbot.mouseClick(page.add, Qt.MouseButton.LeftButton)
    page.editor.command.setText("other")
    qtbot.mouseClick(dialog.button(SAVE), Qt.MouseButton.LeftButton)
    assert workspace.paths.mcp_config.read_text() == edited
    shown = [label.text() for label in dialog.findChildren(QLabel) if label.isVisible()]
    assert any("was changed outside Deskhand since this page opened" in text for text in shown)
    qtbot.mouseClick(page.reload, Qt.MouseButton.LeftButton)
    assert cell(page, 0, NAME) == "mine"

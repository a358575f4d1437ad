"""Signed permission settings: what another program writes into settings.json is not in force
until the person keeps it; a file from before signing keeps working; a broken one is moved
aside as before. `deskhand mcp` and `deskhand ui` say on stderr what they ignore."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.chat.events import AgentEvent, ToolFinished
from desktop.command.alone import run_alone
from desktop.system.paths import DataPaths
from desktop.system.settings.permissions import Mode, Rule
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.support.turns import send
from tools.base import Risk


def edit_elsewhere(path: Path, **permissions: Any) -> None:
    """Another program (a hijacked tool, a script) rewrites the permissions in settings.json."""
    script = (
        "import json, sys; p = sys.argv[1]; data = json.load(open(p)); "
        "data['permissions'].update(json.loads(sys.argv[2])); json.dump(data, open(p, 'w'))"
    )
    subprocess.run([sys.executable, "-c", script, str(path), json.dumps(permissions)], check=True)


def run_turn(ws: Workspace) -> list[AgentEvent]:
    async def go() -> list[AgentEvent]:
        events: list[AgentEvent] = []
        try:
            await send(ws.conversations, ws.store.create_session().id, "Note milk", events.append)
        finally:
            await ws.agent.close()
        return events

    return asyncio.run(go())


def test_a_rule_added_by_another_process_is_not_honoured(
    workspace: Workspace, model_server: ScriptedModelServer, data_dir: Path
) -> None:
    edit_elsewhere(workspace.paths.settings, rules={"notebook.write": "allow"}, mode="autonomous")
    notebook = NotebookTool(risk=Risk.CHANGE)

    ws = Workspace.open(data_dir)  # the next start
    ws.registry.add(notebook)
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "milk"})), text_reply("It asks.")
    )
    [finished] = [e for e in run_turn(ws) if isinstance(e, ToolFinished)]

    assert notebook.lines == []  # it asked (no one was there), so nothing ran
    assert finished.outcome == "denied"
    assert ws.settings.permissions.rules == {} and ws.live.mode is Mode.CHANGES
    change = ws.live.outside_change
    assert change is not None
    assert change.differences == [
        "Mode: Ask for changes → Autonomous",
        "Rule “notebook.write”: Always allow (added)",
    ]
    ws.store.close()


def test_kept_changes_are_in_force_and_discarded_ones_are_gone(
    workspace: Workspace, data_dir: Path
) -> None:
    edit_elsewhere(workspace.paths.settings, rules={"notebook.write": "allow"})
    ws = Workspace.open(data_dir)
    change = ws.live.outside_change
    assert change is not None
    ws.live.set_sidebar_visible(False)  # the window saves something else meanwhile
    ws.live.keep_outside(change)
    assert ws.settings.permissions.rules == {"notebook.write": Rule.ALLOW}
    assert not ws.settings.window.sidebar_visible
    again = Workspace.open(data_dir)
    assert again.live.outside_change is None and again.settings.permissions.rules
    ws.store.close()
    again.store.close()

    edit_elsewhere(workspace.paths.settings, mode="autonomous")
    ws = Workspace.open(data_dir)
    assert ws.live.outside_change is not None
    ws.live.discard_outside(ws.live.outside_change)
    assert json.loads(ws.paths.settings.read_text())["permissions"]["mode"] == "changes"
    assert Workspace.open(data_dir).live.outside_change is None
    ws.store.close()


def test_a_running_process_notices_a_change_when_it_reads_the_file_again(
    workspace: Workspace,
) -> None:
    workspace.live.set_rule("notebook.write", Rule.ASK)
    edit_elsewhere(workspace.paths.settings, rules={"notebook.write": "allow"})

    workspace.live.refresh()  # what `deskhand mcp` does before each call

    assert workspace.settings.permissions.rules == {"notebook.write": Rule.ASK}
    assert workspace.live.outside_change is not None


def test_a_forged_code_is_not_honoured(workspace: Workspace, data_dir: Path) -> None:
    data = json.loads(workspace.paths.settings.read_text())
    data["permissions"]["mode"] = "autonomous"
    data["signed"]["part"]["permissions.mode"] = "autonomous"  # the code no longer fits
    workspace.paths.settings.write_text(json.dumps(data))

    ws = Workspace.open(data_dir)

    assert ws.live.mode is Mode.CHANGES and ws.live.outside_change is not None
    ws.store.close()


def test_a_settings_file_from_before_signing_is_adopted_once(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    old = {"permissions": {"mode": "autonomous", "rules": {"notebook.write": "allow"}}}
    (data_dir / "settings.json").write_text(json.dumps(old))

    ws = Workspace.open(data_dir)

    assert ws.live.mode is Mode.AUTONOMOUS and ws.live.outside_change is None
    assert "signed" in json.loads((data_dir / "settings.json").read_text())
    assert (data_dir / "permissions.key").stat().st_mode & 0o777 == 0o600
    ws.store.close()
    # From now on an unsigned file is not Deskhand's.
    (data_dir / "settings.json").write_text(json.dumps(old))
    again = Workspace.open(data_dir)
    assert again.live.mode is Mode.CHANGES and again.live.outside_change is not None
    again.store.close()


def test_a_file_that_fails_to_parse_is_moved_aside_as_before(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "settings.json").write_text('{"permissions": {"mode": ')

    ws = Workspace.open(data_dir)

    assert ws.live.outside_change is None and ws.live.mode is Mode.CHANGES
    assert (data_dir / "settings.json.broken").exists()
    assert any("could not be read" in notice for notice in ws.notices)
    ws.store.close()


def test_deskhand_ui_without_a_window_ignores_the_change_and_says_so(
    workspace: Workspace, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_elsewhere(workspace.paths.settings, mode="autonomous")

    result = asyncio.run(run_alone(data_dir, {"action": "no_such_action"}))

    assert not result.ok
    err = capsys.readouterr().err
    assert "permission settings were changed outside Deskhand" in err
    assert "Mode: Ask for changes → Autonomous" in err
    assert DataPaths.for_data_dir(data_dir).settings.exists()


def test_a_longer_plan_written_elsewhere_waits_too(workspace: Workspace, data_dir: Path) -> None:
    edit_elsewhere(workspace.paths.settings, plan_minutes=24 * 60)

    ws = Workspace.open(data_dir)

    assert ws.settings.permissions.plan_minutes == 60
    assert ws.live.outside_change is not None
    assert ws.live.outside_change.differences == ["Permissions → minutes a plan lasts: 60 → 1440"]
    ws.store.close()

"""`deskhand apps`: dictionaries read from a terminal, calls that need a Mac say so, and a call
on a Mac takes the one pipeline."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.calls.contract import ToolUse
from desktop.calls.permissions import RuleScope
from desktop.calls.sources.function_tools import FunctionTools
from desktop.command import apps as apps_cli
from desktop.system.settings.permissions import Rule
from desktop.workspace import Workspace
from tests.support.answers import checked
from tests.support.jxa.finder_world import DESKTOP_REPORT, files_on_desktop, finder_world
from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World
from tests.support.sdef.bundles import FIXTURES, INCLUDES, make_bundle
from tools.mac.osa.engine import OSASCRIPT_ENV, OsaEngine
from tools.mac.sdef import AppCatalog, AppCommandTool


def deskhand(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop", *args, "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_dictionary_file_prints_its_commands_with_their_risk(tmp_path: Path) -> None:
    shown = deskhand("apps", "dictionary", str(FIXTURES / "Finder.sdef"), data_dir=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "Finder Basics" in shown.stdout
    assert "empty  [consequential]" in shown.stdout


def test_the_json_of_a_dictionary_has_the_documented_shape(tmp_path: Path) -> None:
    shown = deskhand(
        "apps", "dictionary", str(FIXTURES / "Finder.sdef"), "--json", data_dir=tmp_path
    )
    assert shown.returncode == 0, shown.stderr
    model = json.loads(shown.stdout)
    assert model["app"] == "Finder" and isinstance(model["skipped_includes"], list)
    command = next(c for s in model["suites"] for c in s["commands"] if c["name"] == "empty")
    assert {"name", "code", "description", "risk", "direct_parameter", "parameters"} <= set(command)
    assert command["risk"] == "consequential"
    assert all(
        {"name", "properties", "elements"} <= set(c) for s in model["suites"] for c in s["classes"]
    )


@pytest.mark.skipif(sys.platform == "darwin", reason="on a Mac the call runs")
def test_a_broken_dictionary_file_says_so_and_exits_for_bad_input(tmp_path: Path) -> None:
    from desktop.command.answers import exit_code

    broken = FIXTURES / "Malformed.sdef"
    shown = deskhand("apps", "dictionary", str(broken), "--json", data_dir=tmp_path)
    assert shown.returncode == exit_code("bad_input")
    assert f"{broken} is not a dictionary Deskhand can read" in shown.stderr
    answer = checked(json.loads(shown.stdout))
    assert answer["error"]["code"] == "bad_input"


def test_a_call_off_a_mac_says_what_works_instead(tmp_path: Path) -> None:
    called = deskhand("apps", "call", "Finder", "delete", "--dry-run", data_dir=tmp_path)
    assert called.returncode == 5  # cannot run here
    assert "needs macOS" in called.stderr and "apps dictionary" in called.stderr
    as_json = deskhand("apps", "call", "Finder", "delete", "--json", data_dir=tmp_path)
    error = checked(as_json.stdout, "deskhand.error/1")["error"]
    assert (as_json.returncode, error["code"]) == (5, "unavailable")
    assert error["message"].startswith("Running app commands needs macOS (osascript).")


@pytest.mark.skipif(shutil.which("node") is None, reason="the JXA stand-in needs node")
def test_a_call_takes_the_pipeline_never_first_and_an_allowed_one_is_audited_as_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`deskhand apps call` on a Mac, in-process over the Node stand-in (a simulated Finder)."""
    world = World(tmp_path / "world.json")
    world.write(finder_world())
    monkeypatch.setenv(WORLD_ENV, str(world.path))
    monkeypatch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
    make_bundle(
        tmp_path / "Applications",
        "Finder",
        bundle_id="com.apple.finder",
        sdef=(FIXTURES / "Finder.sdef").read_text(),
    )

    def catalog() -> AppCatalog:  # each process has its own; the cache on disk is shared
        return AppCatalog(
            tmp_path / "cache", roots=[str(tmp_path / "Applications")], include_root=INCLUDES
        )

    args = argparse.Namespace(
        app="Finder",
        verb="delete",
        dry_run=False,
        args=json.dumps({"reference": DESKTOP_REPORT}),
        apps_command="call",
        json=False,
    )

    def call_with(rule: Rule) -> tuple[int, str, str | None]:
        workspace = Workspace.open(tmp_path / "data")
        workspace.registry.add(AppCommandTool(catalog(), OsaEngine(workers=1)))
        use = ToolUse(
            id="probe",
            name="app_command",
            input={"app": "Finder", "command": "delete", "reference": DESKTOP_REPORT},
        )
        # As "Always allow" or "Never" saves it: this action, up to this call's risk.
        probe = asyncio.run(FunctionTools(workspace.registry).describe(use, 0))
        workspace.live.set_rule(RuleScope.of(probe).key, rule)
        try:
            code = asyncio.run(apps_cli._call(args, workspace))
            [audit, *_] = workspace.store.audit()
        finally:
            workspace.store.close()
        return code, capsys.readouterr().out, f"{audit.decision}/{audit.decided_by}/{audit.outcome}"

    asyncio.run(catalog().apps())  # an earlier `deskhand apps list` (Settings names apps so too)
    index = tmp_path / "cache" / "index.json"
    scanned = index.stat().st_mtime_ns
    code, out, audit = call_with(Rule.NEVER)
    assert code == 1 and "Never" in out
    assert audit == "denied/rule/not run"
    assert "report.pdf" in files_on_desktop(world)
    assert index.stat().st_mtime_ns == scanned  # refused before any discovery ran

    args.json = True  # the same, for a script
    code, out, audit = call_with(Rule.NEVER)
    assert code == 1 and checked(out, "deskhand.error/1")["error"]["code"] == "refused"
    code, out, audit = call_with(Rule.ALLOW)
    assert code == 0, out
    ran = checked(out, "deskhand.apps.call/1")
    assert (ran["app"], ran["command"], ran["dry_run"]) == ("Finder", "delete", False)
    assert audit == "allowed/rule/ok"  # the row of a call that ran says how it ended
    assert "report.pdf" not in files_on_desktop(world)

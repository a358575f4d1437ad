"""`deskhand routine schedule` through the running app's socket, the person approving on the
plan sheet; bad times and unknown routines refused with their codes; `deskhand routine runs`
newest last, in its published schema."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

import pytest

from desktop.__main__ import main
from desktop.calls.approvals import ApprovalRequest
from desktop.command.listener import UiServer
from desktop.workspace import Workspace
from tests.support.answers import checked
from tests.support.model_server import ScriptedModelServer
from tests.support.notes_routine import notes_routine


def notes(workspace: Workspace, model_server: ScriptedModelServer) -> list[ApprovalRequest]:
    return notes_routine(workspace, model_server)[1].shown


def deskhand(capsys: pytest.CaptureFixture[str], data_dir: Path, *words: str) -> tuple[int, str]:
    code = main([*words, "--json", "--data-dir", str(data_dir)])
    return code, capsys.readouterr().out


def test_a_schedule_set_from_the_command_line_is_approved_in_the_window(
    workspace: Workspace,
    data_dir: Path,
    model_server: ScriptedModelServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = notes(workspace, model_server)
    asked = len(shown)
    server = UiServer(workspace)

    async def go() -> list[tuple[int, str]]:
        await server.start()
        try:
            return [
                await asyncio.to_thread(
                    deskhand, capsys, data_dir, "routine", "schedule", "Notes", *words
                )
                for words in (["--weekdays", "08:00"], ["--weekdays", "08:00", "--missed", "skip"])
            ]
        finally:
            await server.close()
            await workspace.toolbox.close()
            await workspace.agent.close()

    (code, out), (again, out_again) = asyncio.run(go())
    assert code == 0
    answer = checked(out, "deskhand.routine.schedule/1")
    assert answer["schedule"] == {
        "kind": "weekdays",
        "at": "08:00",
        "days": [],
        "minutes": 0,
        "cron": "",
    }
    assert (answer["words"], answer["missed"], answer["approved"]) == (
        "weekdays at 08:00",
        "run",
        True,
    )
    upcoming = datetime.fromisoformat(answer["next_run"])
    assert (upcoming.weekday() < 5, upcoming.hour, upcoming.minute) == (True, 8, 0)
    assert upcoming > datetime.now(upcoming.tzinfo)
    [sheet] = shown[asked:]  # asked once: the same schedule again needs no new approval
    assert sheet.title == "Run “Notes” on schedule, within these sites and apps"
    assert sheet.call.summary == "Run “Notes” weekdays at 08:00"
    assert again == 0 and checked(out_again)["missed"] == "skip"

    # Taking it off needs no approval, and works with no app running.
    code, out = deskhand(capsys, data_dir, "routine", "schedule", "Notes", "--off")
    assert code == 0 and checked(out)["schedule"] is None
    assert not (workspace.paths.schedules / "Notes.json").exists()
    # Setting one with no app running cannot be approved.
    code, out = deskhand(capsys, data_dir, "routine", "schedule", "Notes", "--daily", "09:00")
    assert code == 3
    assert checked(out)["error"]["code"] == "needs_permission"


@pytest.mark.parametrize(
    ("words", "code", "says"),
    [
        (["Notes", "--cron", "0 8 * * 1-5 2026"], "bad_input", "it needs 5 fields"),
        (["Notes", "--cron", "0 8 * * mon-fry"], "bad_input", "out of range or misspelt"),
        (["Notes", "--daily", "8:60"], "bad_input", "“8:60” is not a time of day"),
        (["Notes", "--at", "tomorrow"], "bad_input", "write YYYY-MM-DD HH:MM"),
        (["Notes", "--every", "90s"], "bad_input", "write e.g. 30m or 2h"),
        (["Nobody", "--daily", "08:00"], "not_found", "There is no routine named “Nobody”"),
    ],
)
def test_bad_times_and_unknown_routines_are_refused_with_their_codes(
    workspace: Workspace,
    data_dir: Path,
    model_server: ScriptedModelServer,
    capsys: pytest.CaptureFixture[str],
    words: list[str],
    code: str,
    says: str,
) -> None:
    notes(workspace, model_server)
    capsys.readouterr()
    status, out = deskhand(capsys, data_dir, "routine", "schedule", *words)
    error = checked(out)["error"]
    assert (status, error["code"]) == (2 if code == "bad_input" else 1, code)
    assert says in error["message"]


def test_runs_carry_their_id_and_the_schedules_statuses_newest_last(
    workspace: Workspace,
    data_dir: Path,
    model_server: ScriptedModelServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    notes(workspace, model_server)
    store = workspace.store
    first = store.add_routine_run("Notes", "schedule", "running", 7)
    store.end_routine_run(first, "done", 4.5, 1, 0)
    store.add_routine_run("Notes", "schedule", "skipped")
    store.add_routine_run("Notes", "schedule", "missed")
    capsys.readouterr()
    status, out = deskhand(capsys, data_dir, "routine", "runs", "Notes")
    assert status == 0
    runs = checked(out, "deskhand.routine.runs/1")["runs"]
    assert [(run["trigger"], run["status"], run["chat_id"]) for run in runs] == [
        ("schedule", "done", 7),
        ("schedule", "skipped", None),
        ("schedule", "missed", None),
    ]
    assert (runs[0]["seconds"], runs[0]["model_requests"]) == (4.5, 1)
    assert runs[0]["id"] < runs[1]["id"] < runs[2]["id"]
    assert main(["routine", "runs", "Notes", "--data-dir", str(data_dir)]) == 0
    assert "(by its schedule)" in capsys.readouterr().out

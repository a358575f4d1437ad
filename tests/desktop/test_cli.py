"""The command line a person types: --version, doctor, and --data-dir isolation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop import __version__
from desktop.command.doctor import use_offscreen_without_display
from desktop.system.paths import DataPaths
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer
from tests.support.x11 import Xvfb, xvfb_missing

ROOT = Path(__file__).resolve().parents[2]


def deskhand(
    *args: str, env: dict[str, str] | None = None, unset: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    for name in unset:
        environ.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "desktop", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
    )


def test_version() -> None:
    result = deskhand("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"Deskhand {__version__}"


def test_doctor_passes_with_a_reachable_server(
    data_dir: Path, api_env: ScriptedModelServer
) -> None:
    result = deskhand("--data-dir", str(data_dir), "doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = {line.split("  ")[0].strip(): line for line in result.stdout.splitlines()}
    for check in (
        "Python",
        "Qt platform",
        "Display",
        "Data dir writable",
        "API key",
        "API reachable",
        "Browser",
    ):
        assert check in lines, result.stdout
    assert "FAIL" not in result.stdout
    assert "claude-sonnet" in lines["API reachable"]
    if sys.platform != "darwin":
        assert "macOS only" in lines["Mac tools"] and "warn" in lines["Mac tools"]
    assert any(r.path.startswith("/v1/models/") for r in api_env.requests)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 and Wayland are Linux's")
def test_doctor_runs_without_a_display_and_says_so(
    data_dir: Path, api_env: ScriptedModelServer
) -> None:
    result = deskhand(
        "--data-dir",
        str(data_dir),
        "doctor",
        unset=("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = {line.split("  ")[0].strip(): line for line in result.stdout.splitlines()}
    assert "offscreen" in lines["Qt platform"]
    display = lines["Display"]
    assert "warn" in display and "none (offscreen); the window needs a desktop session" in display
    assert "ok" in lines["API reachable"]  # the other checks ran as usual
    screen = lines["Screen control"]
    assert "warn" in screen and "No graphical display was found" in screen
    assert "Start Deskhand from a desktop session." in screen


@pytest.mark.skipif(xvfb_missing() is not None, reason="needs Xvfb")
def test_doctor_names_the_screen_it_can_control(
    data_dir: Path, api_env: ScriptedModelServer
) -> None:
    with Xvfb(1280, 800) as server:
        result = deskhand(
            "--data-dir",
            str(data_dir),
            "doctor",
            env={"DISPLAY": server.display},
            unset=("WAYLAND_DISPLAY", "XDG_SESSION_TYPE"),
        )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = {line.split("  ")[0].strip(): line for line in result.stdout.splitlines()}
    screen = lines["Screen control"]
    assert "ok" in screen and f"X11 {server.display}; 1 display (1280×800)" in screen


@pytest.mark.parametrize(
    ("environ", "system", "platform"),
    [
        ({}, "linux", "offscreen"),
        ({"DISPLAY": ":0"}, "linux", None),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", None),
        ({"QT_QPA_PLATFORM": "vnc"}, "linux", "vnc"),  # the person's choice is kept
        ({}, "darwin", None),
    ],
)
def test_offscreen_stands_in_only_where_there_is_no_display(
    environ: dict[str, str], system: str, platform: str | None
) -> None:
    use_offscreen_without_display(environ, system)
    assert environ.get("QT_QPA_PLATFORM") == platform


def test_doctor_fails_without_a_key_and_says_what_to_do(data_dir: Path, no_api_env: None) -> None:
    result = deskhand("--data-dir", str(data_dir), "doctor")
    assert result.returncode == 1
    key_line = next(line for line in result.stdout.splitlines() if line.startswith("API key"))
    assert "FAIL" in key_line and "Settings" in key_line


def test_doctor_names_an_unknown_model(data_dir: Path, api_env: ScriptedModelServer) -> None:
    ws = Workspace.open(data_dir)
    settings = ws.settings.model_copy(deep=True)
    settings.model.model = "claude-imaginary-9"
    ws.live.apply(settings)
    ws.store.close()
    result = deskhand("--data-dir", str(data_dir), "doctor")
    assert result.returncode == 1
    assert "Model not found" in result.stdout


def test_two_data_dirs_never_see_each_other(tmp_path: Path, api_env: ScriptedModelServer) -> None:
    first, second = DataPaths.for_data_dir(tmp_path / "a"), DataPaths.for_data_dir(tmp_path / "b")
    for field in ("database", "settings", "attachments", "logs", "key_file", "keychain_account"):
        assert getattr(first, field) != getattr(second, field)
    a = Workspace(first)
    settings = a.settings.model_copy(deep=True)
    settings.model.system_prompt_extra = "Answer in French."
    a.live.apply(settings)
    a.store.create_session("only in a")
    b = Workspace(second)
    assert b.store.sessions() == [] and b.settings.model.system_prompt_extra == ""
    for path in (first.database, first.settings):
        assert path.is_relative_to(tmp_path / "a")
    a.store.close()
    b.store.close()


WINDOW_LINES = [
    [],
    ["--data-dir", "/tmp/somewhere"],
    ["--json", "--timeout", "3", "--permission-mode", "ask"],
    ["--send", "ui", "--data-dir=/tmp/x"],
    ["--self-test"],
    ["--perm", "autonomous"],  # abbreviated, as argparse allows
]


@pytest.mark.parametrize("line", WINDOW_LINES)
def test_a_window_launch_reads_as_the_full_parser_reads_it(line: list[str]) -> None:
    """The window's launch is read without building every command's parser, to the same
    options a person would get from the full one."""
    from desktop.__main__ import _window_arguments, full_parser

    quick = _window_arguments(line)
    assert quick is not None
    assert vars(quick) == vars(full_parser().parse(line))


@pytest.mark.parametrize(
    "line", [["doctor"], ["ui", "see"], ["--help"], ["--json", "apps", "list"], ["--bogus"]]
)
def test_any_other_line_goes_to_the_full_parser(line: list[str]) -> None:
    from desktop.__main__ import _window_arguments

    assert _window_arguments(line) is None


def test_a_wrong_value_still_gets_the_usage_and_exit_2() -> None:
    done = deskhand("--permission-mode", "sometimes")
    assert done.returncode == 2
    assert "usage: deskhand" in done.stderr
    assert "invalid choice: 'sometimes'" in done.stderr
    # the full usage
    assert "{doctor,ui,mcp,apps,routine,connector,install-desktop-entry}" in done.stderr

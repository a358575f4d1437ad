"""`--json` beyond `deskhand ui`: doctor and apps list answer in their published schemas, the
options go anywhere on the line, and every schema and error code is published and documented."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from desktop.__main__ import parse_args
from desktop.command import answers
from tests.support.answers import SCHEMAS, checked, schema_file
from tests.support.model_server import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[3]


def deskhand(*args: str, unset: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PYTHONPATH": str(ROOT)}
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


@pytest.mark.parametrize("position", ["before", "after"])
def test_doctor_answers_one_object_per_check(
    data_dir: Path, api_env: ScriptedModelServer, position: str
) -> None:
    words = ["--json", "doctor"] if position == "before" else ["doctor", "--json"]
    done = deskhand(
        *words, "--data-dir", str(data_dir), unset=("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    answer = checked(done.stdout, "deskhand.doctor/1")
    checks = {check["name"]: check for check in answer["checks"]}
    assert answer["ok"] is True
    assert checks["API reachable"]["ok"] is True and checks["API reachable"]["fix"] is None
    screen = checks["Screen control"]  # no display here: a warning that says what to do
    assert (screen["ok"], screen["status"], screen["required"]) == (False, "warn", False)
    assert screen["detail"] == "No graphical display was found (DISPLAY is not set)."
    assert screen["fix"] == "Start Deskhand from a desktop session."


def test_doctor_says_what_to_fix_when_a_required_check_fails(
    data_dir: Path, no_api_env: None, tmp_path: Path
) -> None:
    keyless = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    keyless.pop("ANTHROPIC_API_KEY", None)
    done = subprocess.run(
        [sys.executable, "-m", "desktop", "doctor", "--data-dir", str(data_dir), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=keyless,
    )
    assert done.returncode == 1
    answer = checked(done.stdout, "deskhand.doctor/1")
    key = next(check for check in answer["checks"] if check["name"] == "API key")
    assert answer["ok"] is False
    assert (key["ok"], key["status"], key["detail"]) == (False, "fail", "not set")
    assert key["fix"] == "Open Settings → Model, or set ANTHROPIC_API_KEY."
    text = subprocess.run(
        [sys.executable, "-m", "desktop", "doctor", "--data-dir", str(data_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=keyless,
    )
    assert "not set → Open Settings → Model, or set ANTHROPIC_API_KEY." in text.stdout


@pytest.mark.skipif(sys.platform == "darwin", reason="a Mac has scriptable apps to list")
def test_apps_list_answers_in_its_schema(data_dir: Path) -> None:
    for words in (
        ["--json", "apps", "list"],
        ["apps", "--json", "list"],
        ["apps", "list", "--json"],
    ):
        done = deskhand(*words, "--data-dir", str(data_dir))
        assert done.returncode == 0, done.stderr
        assert checked(done.stdout, "deskhand.apps.list/1")["apps"] == []
    text = deskhand("apps", "list", "--data-dir", str(data_dir))
    assert text.stdout == "No scriptable apps found (app dictionaries are a macOS feature).\n"


@pytest.mark.parametrize(
    "words",
    [
        ["--json", "--timeout", "3", "--data-dir", "/d", "mcp"],
        ["mcp", "--json", "--timeout", "3", "--data-dir", "/d"],
        ["doctor", "--timeout", "3", "--data-dir", "/d", "--json"],
        ["apps", "--data-dir", "/d", "list", "--timeout", "3", "--json"],
        ["ui", "--timeout", "3", "see", "--data-dir", "/d", "--app", "x", "--json"],
    ],
)
def test_the_shared_options_go_before_or_after_every_command(words: list[str]) -> None:
    args = parse_args(words)
    assert (args.json, args.timeout, args.data_dir) == (True, 3.0, Path("/d"))


def test_without_json_the_options_keep_their_defaults() -> None:
    args = parse_args(["ui", "windows"])
    assert (args.json, args.timeout, args.data_dir) == (False, None, None)


def test_every_schema_is_valid_and_named_by_its_file() -> None:
    files = sorted(SCHEMAS.glob("*.json"))
    assert files
    for path in files:
        schema = json.loads(path.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        named = schema["properties"]["schema"]["const"]
        assert schema_file(named) == path
    commands = ["screens", "windows", "see", "click", "type", "scroll", "wait", "screenshot"]
    routines = ["routine", "routine.list", "routine.runs", "routine.run"]
    others = ["doctor", "apps.list", "apps.call", *routines, "error"]
    for name in [*(f"ui.{c}" for c in commands), *others]:
        assert schema_file(answers.schema_name(name)).exists(), name


def test_the_error_codes_are_the_schemas_and_the_readmes() -> None:
    error = json.loads(schema_file("deskhand.error/1").read_text())
    assert error["properties"]["error"]["properties"]["code"]["enum"] == list(answers.CODES)
    readme = (ROOT / "README.md").read_text()
    for code, status in answers.EXITS.items():
        assert re.search(rf"`{code}`[^\n]*\| {status} ", readme), code
    checked(answers.error("see", "no_such_code", "Something."))  # unknown codes say "failed"


def test_doctor_timeout_bounds_each_check(data_dir: Path, api_env: ScriptedModelServer) -> None:
    done = deskhand("doctor", "--timeout", "0.000001", "--json", "--data-dir", str(data_dir))
    assert done.returncode == 1  # a required check could not finish
    answer = checked(done.stdout, "deskhand.doctor/1")
    late = [
        check for check in answer["checks"] if check["detail"] == "did not finish within 1e-06 s"
    ]
    assert late and all(check["fix"].endswith("with a longer --timeout.") for check in late)


def test_a_line_argparse_cannot_read_is_a_bad_input_error_with_json() -> None:
    done = deskhand("ui", "see", "--window-index", "first", "--json")
    assert done.returncode == 2
    error = checked(done.stdout, "deskhand.error/1")
    assert (error["command"], error["error"]["code"]) == ("ui see", "bad_input")
    assert error["error"]["message"] == "argument --window-index: invalid int value: 'first'"
    assert "usage: deskhand ui see" in done.stderr
    plain = deskhand("ui", "see", "--window-index", "first")
    assert plain.returncode == 2 and plain.stdout == ""

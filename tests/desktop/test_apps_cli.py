"""`deskhand apps`: dictionaries read from a terminal, and calls that need a Mac say so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools.sdef.bundles import FIXTURES


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
def test_a_call_off_a_mac_says_what_works_instead(tmp_path: Path) -> None:
    called = deskhand("apps", "call", "Finder", "delete", "--dry-run", data_dir=tmp_path)
    assert called.returncode == 1
    assert "needs macOS" in called.stderr and "apps dictionary" in called.stderr

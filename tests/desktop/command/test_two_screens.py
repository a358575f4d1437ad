"""`deskhand ui --json` on two screens: coordinates per screen, with the screen's index.

The desk's X server is split into two RandR monitors (xrandr --setmonitor): "left" 600×900 at
the origin holds the Qt form, "right" 1000×900 at (600, 0) holds the GTK "Sign in" dialog. An
element's `bounds` are then relative to its screen's corner and its `global_bounds` to the
desktop's, and an action says on which screen, and where on it, it acted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.answers import checked
from tests.support.desk import Desk, running_desk

ROOT = Path(__file__).resolve().parents[3]
RIGHT_X = 600

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def desk() -> Iterator[Desk]:
    with running_desk() as made:
        for monitor in (
            ["left", f"{RIGHT_X}/160x900/240+0+0", "screen"],  # takes the output's own monitor
            ["right", f"{1600 - RIGHT_X}/260x900/240+{RIGHT_X}+0", "none"],
        ):
            subprocess.run(["xrandr", "--setmonitor", *monitor], env=made.env(), check=True)
        yield made


def ui(desk: Desk, data_dir: Path, *words: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "desktop", "ui", *words, "--json", "--data-dir", str(data_dir)],
        cwd=ROOT,
        env={**desk.env(), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return checked(done.stdout)


def test_screens_are_in_the_computer_tools_order(desk: Desk, tmp_path: Path) -> None:
    screens = ui(desk, tmp_path, "screens")["screens"]
    assert [(s["index"], s["name"], s["global_bounds"]["x"]) for s in screens] == [
        (0, "left", 0),
        (1, "right", RIGHT_X),
    ]
    windows = {w["title"]: w for w in ui(desk, tmp_path, "windows")["windows"]}
    dialog = windows["Sign in"]
    assert dialog["screen"] == 1
    assert dialog["bounds"]["x"] == dialog["global_bounds"]["x"] - RIGHT_X
    assert windows["See target"]["screen"] == 0


def test_bounds_and_actions_are_per_screen(desk: Desk, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    rules = {"screen.set_value": "allow"}
    (data_dir / "settings.json").write_text(json.dumps({"permissions": {"rules": rules}}))
    seen = ui(desk, data_dir, "see", "--title", "Sign in")
    assert seen["screen"]["index"] == 1
    assert seen["screen"]["global_bounds"] == {"x": RIGHT_X, "y": 0, "width": 1000, "height": 900}
    [email] = [e for e in seen["elements"] if e["label"] == "Email" and e["type"] == "T"]
    local, whole = email["bounds"], email["global_bounds"]
    assert whole["x"] >= RIGHT_X and local["x"] == whole["x"] - RIGHT_X
    assert (local["y"], local["width"], local["height"]) == (
        whole["y"],
        whole["width"],
        whole["height"],
    )
    typed = ui(desk, data_dir, "type", email["id"], "ada@example.com")
    assert typed["screen"] == 1
    assert typed["global"]["x"] - typed["local"]["x"] == RIGHT_X
    assert whole["x"] <= typed["global"]["x"] < whole["x"] + whole["width"]
    whole_screen = ui(desk, data_dir, "see", "--display", "1")
    assert whole_screen["window"] is None and whole_screen["screen"]["index"] == 1
    assert {e["window"] for e in whole_screen["elements"]} == {seen["window"]["id"]}
    again = ui(desk, data_dir, "see", "--title", "Sign in")
    [now] = [e for e in again["elements"] if e["id"] == email["id"]]
    assert now["value"] == "ada@example.com"

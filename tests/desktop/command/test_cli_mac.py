"""`deskhand ui see --json` on a real Mac: TextEdit's window with its bundle id, and the error
code of a missing permission.

Marked `macos` (skipped elsewhere). Seeing TextEdit needs the terminal running the tests to hold
the Accessibility permission; without it the command must say so as `needs_permission`.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.answers import checked

ROOT = Path(__file__).resolve().parents[3]

pytestmark = [
    pytest.mark.macos,
    pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS"),
]


def test_see_names_the_apps_bundle_id_or_the_missing_permission(tmp_path: Path) -> None:
    subprocess.run(["open", "-a", "TextEdit", "-F"], check=True)
    time.sleep(2)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "desktop", "ui", "see", "--app", "TextEdit", "--json",
             "--data-dir", str(tmp_path / "data")],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        answer = checked(done.stdout)
        if answer["ok"]:
            assert answer["window"]["bundle_id"] == "com.apple.TextEdit"
            assert answer["screen"]["scale"] >= 1.0
        else:
            assert answer["error"]["code"] == "needs_permission"
            assert done.returncode == 3
            assert "System Settings" in answer["error"]["message"]
    finally:
        subprocess.run(["osascript", "-e", 'quit app "TextEdit" saving no'], check=False)

"""Quick entry end to end on a real X server (Xvfb): the system-wide shortcut, the floating
composer, and a shortcut another app holds.

The cases live in `x_server_cases.py` and run in a child pytest: Qt chooses its platform
once per process, and this process's is offscreen. The child's output is shown when it fails.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.x11 import Xvfb, gui_env, xvfb_missing

ROOT = Path(__file__).resolve().parents[4]
CASES = Path(__file__).with_name("x_server_cases.py")


@pytest.mark.slow
def test_quick_entry_on_a_real_x_server(tmp_path: Path) -> None:
    missing = xvfb_missing()
    if missing:
        pytest.skip(missing)
    with Xvfb(1280, 800) as server:
        env = gui_env(server.display)
        env.pop("QT_ENABLE_HIGHDPI_SCALING", None)
        env.pop("XDG_SESSION_TYPE", None)  # an X11 session, even when run from a Wayland one
        env["PYTHONPATH"] = str(ROOT)
        done = subprocess.run(
            [sys.executable, "-m", "pytest", str(CASES), "-q", "-x", "-p", "no:cacheprovider"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    report = done.stdout[-6000:] + done.stderr[-3000:]
    assert done.returncode == 0, report
    assert " passed" in done.stdout and "skipped" not in done.stdout, report
    cases = len(re.findall(r"^def test_", CASES.read_text(encoding="utf-8"), flags=re.MULTILINE))
    assert re.search(rf"\b{cases} passed\b", done.stdout), report  # every case ran

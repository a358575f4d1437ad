"""The window shows before the SDK and Playwright load; they load right after, off the loop."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SHOW_THE_WINDOW = """
import asyncio, sys, tempfile
from pathlib import Path
import qasync
from PySide6.QtWidgets import QApplication
from desktop.app import after_first_paint
from desktop.workspace import Workspace
from ui.window.main_window import MainWindow

HEAVY = ("anthropic", "playwright", "httpx2", "jsonschema")

async def main() -> None:
    workspace = Workspace.open(Path(tempfile.mkdtemp()))
    window = MainWindow(workspace)
    window.show()
    print("shown with", [m for m in HEAVY if m in sys.modules])
    await after_first_paint(window)
    print("then", [m for m in ("anthropic", "playwright") if m in sys.modules])
    await window.shutdown()
    await workspace.close()

app = QApplication([])
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
with loop:
    loop.run_until_complete(main())
"""


def test_the_window_shows_before_the_sdk_and_playwright_load() -> None:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "ANTHROPIC_API_KEY": "sk-test",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    done = subprocess.run(
        [sys.executable, "-c", SHOW_THE_WINDOW],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "shown with []" in done.stdout
    assert "then ['anthropic', 'playwright']" in done.stdout

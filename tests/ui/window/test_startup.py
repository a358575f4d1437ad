"""Start-up: the window shows before the SDK and Playwright load, and a message sent the moment it
appears is answered, whatever is still loading behind it."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.model_server import ScriptedModelServer, text_reply

ROOT = Path(__file__).resolve().parents[3]
REPLY_LIMIT = 120.0  # seconds: every module compiled from source, on a busy machine
STARTS = 10

SHOW_THE_WINDOW = """
import asyncio, sys, tempfile
from pathlib import Path
import qasync
from PySide6.QtWidgets import QApplication
from ui.first_paint import first_paint
from desktop.system import heavy
from desktop.workspace import Workspace
from ui.window.main_window import MainWindow

HEAVY = (
    "anthropic",
    "playwright",
    "httpx2",
    "jsonschema",
    "desktop.calls.toolbox",
    "desktop.chat.tool_calls",
    "desktop.calls.gate",
    "desktop.chat.agent",
)

async def main() -> None:
    workspace = Workspace.open(Path(tempfile.mkdtemp()))
    window = MainWindow(workspace)
    window.show()
    print("shown with", [m for m in HEAVY if m in sys.modules])
    await first_paint(window)
    await heavy.ready(heavy.PIPELINE + heavy.TOOLS)  # as the app asks once the window is painted
    agent = await workspace.agent_ready()
    print("then", [m for m in ("anthropic", "playwright", "desktop.chat.agent") if m in sys.modules])
    print("agent", type(agent).__name__, agent is workspace.agent)
    await window.shutdown()
    await workspace.close()

app = QApplication([])
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
with loop:
    loop.run_until_complete(main())
"""


def test_the_window_shows_before_the_call_pipeline_the_sdk_and_playwright_load() -> None:
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
    assert "then ['anthropic', 'playwright', 'desktop.chat.agent']" in done.stdout
    assert "agent Agent True" in done.stdout  # built once, on first use


def fresh_copy(into: Path) -> Path:
    """The app's packages as a fresh clone has them: source only, no compiled modules."""
    for package in ("desktop", "tools", "ui", "assets"):
        shutil.copytree(
            ROOT / package, into / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    return into


def answered(data_dir: Path) -> bool:
    """Whether the app has saved a reply (read-only: the app holds the store)."""
    database = data_dir / "deskhand.db"
    if not database.exists():
        return False
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        try:
            query = "SELECT count(*) FROM messages WHERE role = 'assistant'"
            return int(db.execute(query).fetchone()[0]) > 0
        except sqlite3.OperationalError:
            return False  # not created yet, or busy for a moment


@pytest.mark.slow
def test_a_message_sent_the_moment_the_window_appears_is_answered(
    tmp_path: Path, model_server: ScriptedModelServer
) -> None:
    # `--send` sends as soon as the window is painted, while the SDK and the tools still load.
    # Without compiled modules every import takes longest, as on a fresh clone's first start:
    # the widest window for the message and the background loading to meet.
    tree = fresh_copy(tmp_path / "tree")
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "PYTHONDONTWRITEBYTECODE": "1",
        "QT_QPA_PLATFORM": "offscreen",
        "ANTHROPIC_API_KEY": "sk-test",
        "ANTHROPIC_BASE_URL": model_server.base_url,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    for start in range(STARTS):
        model_server.enqueue(text_reply("Hello back."))
        data_dir = tmp_path / f"data{start}"
        data_dir.mkdir()
        (data_dir / "settings.json").write_text(json.dumps({"model": {"max_retries": 0}}))
        app = subprocess.Popen(
            [sys.executable, "-m", "desktop", "--data-dir", str(data_dir), "--send", "Hello"],
            cwd=tree,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + REPLY_LIMIT
            while not answered(data_dir) and app.poll() is None:
                assert time.monotonic() < deadline, f"start {start}: no reply"
                time.sleep(0.05)
            if app.poll() is None:
                app.send_signal(signal.SIGTERM)
            _out, err = app.communicate(timeout=60)
        finally:
            if app.poll() is None:
                app.kill()
                app.communicate()
        log = (data_dir / "logs" / "deskhand.log").read_text(encoding="utf-8")
        problems = [line for line in log.splitlines() if " ERROR " in line or "Traceback" in line]
        assert (app.returncode, err, problems) == (0, "", []), f"start {start}:\n{err}\n{log}"
        assert answered(data_dir), f"start {start}: the reply was not saved"

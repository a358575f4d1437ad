"""The real app under Xvfb, with a system tray on the display (tests/support/tray_host.py):
with a routine scheduled, closing the window (the window manager's close, WM_DELETE_WINDOW)
leaves Deskhand running with its icon in the tray and no window on screen, until it is told to
quit; with nothing scheduled, closing the window quits it, as before."""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest
from Xlib import X, display
from Xlib.protocol import event

from desktop.routines.model import Routine, Step
from desktop.routines.schedules.book import Scheduled
from desktop.routines.schedules.times import daily, local_zone
from desktop.workspace import Workspace
from tests.support.x11 import Xvfb, gui_env, xvfb_missing

ROOT = Path(__file__).resolve().parents[3]
START_LIMIT = 60.0  # seconds: the app's first start compiles its modules on a busy machine

pytestmark = pytest.mark.skipif(
    xvfb_missing() is not None or shutil.which("xdotool") is None,
    reason=xvfb_missing() or "needs xdotool",
)


def prepare(data_dir: Path, scheduled: bool) -> None:
    """A data folder with one routine, scheduled daily at 08:00 (or not at all)."""
    workspace = Workspace.open(data_dir)
    try:
        routine = Routine(
            name="Daily report",
            task="Write the daily report",
            steps=[Step(source="functions", member="notebook", input={"text": "report"})],
        )
        workspace.routines.book.save(routine)
        if scheduled:
            now = datetime.now(local_zone())
            workspace.scheduler.book.save(
                Scheduled(
                    name=routine.name,
                    schedule=daily("08:00", now),
                    done_until=now.isoformat(timespec="seconds"),
                )
            )
            assert workspace.scheduler.scheduled_count() == 1
    finally:
        workspace.store.close()


def read_line(process: subprocess.Popen[str], wanted: str, limit: float) -> str:
    """The first line of `process`'s output that starts with `wanted`."""
    assert process.stdout is not None
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.2)
        if ready:
            line = process.stdout.readline()
            if line.startswith(wanted):
                return line.strip()
    raise AssertionError(f"no {wanted!r} from the tray within {limit} s")


def visible_windows(screen: str, name: str) -> list[int]:
    found = subprocess.run(
        ["xdotool", "search", "--onlyvisible", "--name", name],
        env={**os.environ, "DISPLAY": screen},
        capture_output=True,
        text=True,
        check=False,
    )
    return [int(line) for line in found.stdout.split()]


def ask_to_close(screen: str, window_id: int) -> None:
    """What a window manager's close button sends: WM_DELETE_WINDOW."""
    connection = display.Display(screen)
    try:
        window = connection.create_resource_object("window", window_id)
        protocols = connection.intern_atom("WM_PROTOCOLS")
        delete = connection.intern_atom("WM_DELETE_WINDOW")
        message = event.ClientMessage(
            window=window, client_type=protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0])
        )
        window.send_event(message, event_mask=X.NoEventMask)
        connection.flush()
    finally:
        connection.close()


def still_up(screen: str, data_dir: Path) -> str:
    """Why the app did not end: its windows on screen, and its log's end."""
    titles = [
        subprocess.run(
            ["xdotool", "getwindowname", str(window_id)],
            env={**os.environ, "DISPLAY": screen},
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        for window_id in visible_windows(screen, ".")
    ]
    log = data_dir / "logs" / "deskhand.log"
    return f"still up; windows {titles}; log: {log.read_text('utf-8')[-2000:]}"


def wait_for(predicate, limit: float, what) -> None:  # type: ignore[no-untyped-def]
    """Wait for `predicate`; `what` names it, or says why it failed when called."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out: {what() if callable(what) else what}")
        time.sleep(0.1)


@pytest.mark.parametrize("scheduled", [True, False], ids=["scheduled", "nothing_scheduled"])
def test_closing_the_window_keeps_deskhand_in_the_tray_only_while_a_routine_is_scheduled(
    tmp_path: Path, scheduled: bool
) -> None:
    prepare(tmp_path / "data", scheduled)
    with Xvfb(1024, 700) as screen:
        env = gui_env(
            screen.display,
            {
                # No notifier host on a bus: Qt docks its icon in the X11 tray.
                "DBUS_SESSION_BUS_ADDRESS": None,
                "ANTHROPIC_API_KEY": "sk-test",
                "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
                "XDG_CONFIG_HOME": str(tmp_path / "config"),
            },
        )
        tray = subprocess.Popen(
            [sys.executable, "-m", "tests.support.tray_host"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        app: subprocess.Popen[str] | None = None
        try:
            read_line(tray, "ready", 10)
            app = subprocess.Popen(
                [sys.executable, "-m", "desktop", "--data-dir", str(tmp_path / "data")],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            read_line(tray, "dock", START_LIMIT)  # the app's icon is in the tray
            wait_for(lambda: visible_windows(screen.display, "^Deskhand$"), 20, "the window")
            [window_id] = visible_windows(screen.display, "^Deskhand$")

            # Closed as a person does: again if a close came while a start-up sheet was up for
            # a moment (Qt drops a close that a modal window blocks).
            gone = lambda: not visible_windows(screen.display, "^Deskhand$")  # noqa: E731
            for _attempt in range(5):
                ask_to_close(screen.display, window_id)
                with contextlib.suppress(AssertionError):
                    wait_for(gone, 2, "the window gone")
                    break
            wait_for(gone, 1, lambda: still_up(screen.display, tmp_path / "data"))
            if scheduled:
                time.sleep(2)  # a quit would have come by now
                assert app.poll() is None  # still running, in the tray
                app.send_signal(signal.SIGTERM)  # the system quits it: no question
            try:
                code = app.wait(30)
            except subprocess.TimeoutExpired:
                raise AssertionError(still_up(screen.display, tmp_path / "data")) from None
            assert code == 0
        finally:
            for process in (app, tray):
                if process is not None and process.poll() is None:
                    process.kill()
                    process.wait(10)

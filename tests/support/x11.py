"""Real X11 for screen tests: an Xvfb server of a chosen size and the apps tests act on.

- `Xvfb(width, height, *options)`: starts `Xvfb` on a display number it picks itself
  (`-displayfd`, so parallel runs never collide); `display` is its name (":5"). `xvfb_missing()` says why tests
  must skip when it is not installed.
- `TargetApp(display, ...)`: the PySide6 window of `screen_target.py` (or of another module, such
  as `see_target.py`) as a subprocess; its JSON lines arrive in `events`, `await app.next(...)`
  waits for one, and `send(line)` writes a command to its stdin.
- `Zenity(display, args)`: a GTK dialog (zenity), its window's geometry read with `xdotool`.

`env` adds to (or, with None, removes from) an app's environment: the accessibility tests give
the apps their session bus and turn accessibility on.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
STARTUP_LIMIT = 20.0


def xvfb_missing() -> str | None:
    """Why X11 tests cannot run here, or None when they can."""
    if shutil.which("Xvfb") is None:
        return "Xvfb is not installed (apt-get install xvfb)"
    return None


def gui_env(display: str, extra: dict[str, str | None] | None = None) -> dict[str, str]:
    """The environment of an app shown on `display`: X11 only, no desktop scaling."""
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_SCALE_FACTOR")}
    env.update(
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
        QT_ENABLE_HIGHDPI_SCALING="0",
        NO_AT_BRIDGE="1",  # GTK: no accessibility bus to wait for
        GDK_BACKEND="x11",
    )
    for key, value in (extra or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


class Xvfb:
    def __init__(self, width: int = 1280, height: int = 800, *options: str) -> None:
        self.width, self.height = width, height
        self.options = options
        self.display = ""
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Xvfb:
        read_end, write_end = os.pipe()
        try:
            self._process = subprocess.Popen(
                [
                    "Xvfb",
                    "-displayfd",
                    str(write_end),
                    "-screen",
                    "0",
                    f"{self.width}x{self.height}x24",
                    "-nolisten",
                    "tcp",
                    # Without it the server resets when its last client leaves, and a client
                    # that connects meanwhile is refused ("could not connect to display").
                    "-noreset",
                    *self.options,
                ],
                pass_fds=(write_end,),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            os.close(write_end)
            number = b""
            deadline = time.monotonic() + STARTUP_LIMIT
            while not number.endswith(b"\n"):
                ready, _, _ = select.select(
                    [read_end], [], [], max(0.0, deadline - time.monotonic())
                )
                chunk = os.read(read_end, 16) if ready else b""
                if not chunk:
                    raise RuntimeError("Xvfb did not start")
                number += chunk
        except BaseException:
            self.__exit__(None, None, None)
            raise
        finally:
            os.close(read_end)
        self.display = f":{int(number)}"
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None


class TargetApp:
    """The test window; see `screen_target.py` for its layout and what it reports."""

    def __init__(
        self,
        display: str,
        rect: tuple[int, int, int, int] = (100, 100, 800, 500),
        marker: tuple[int, int] | None = None,
        *,
        module: str = "tests.support.screen_target",
        args: tuple[str, ...] = (),
        env: dict[str, str | None] | None = None,
    ) -> None:
        self.display = display
        self.rect = rect
        self.marker = marker
        self.module = module
        self.args = args
        self.env = env
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        args = [str(v) for v in (*self.rect, *(self.marker or ()), *self.args)]
        self._process = subprocess.Popen(
            [sys.executable, "-m", self.module, *args],
            cwd=ROOT,
            env=gui_env(self.display, self.env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            with self._lock:
                self.events.append(event)

    def send(self, line: str) -> None:
        """One command line to the app's stdin."""
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.write(line + "\n")
        self._process.stdin.flush()

    def of(self, kind: str) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.events if e["event"] == kind]

    def clear(self) -> None:
        with self._lock:
            self.events.clear()

    async def next(
        self, check: Callable[[dict[str, Any]], bool], limit: float = 10.0, what: str = ""
    ) -> dict[str, Any]:
        """The first event so far for which `check` holds, waiting up to `limit` seconds."""
        deadline = time.monotonic() + limit
        while True:
            with self._lock:
                found = next((e for e in self.events if check(e)), None)
            if found is not None:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"the target app never reported {what or check}: {self.events}"
                )
            await asyncio.sleep(0.01)

    async def ready(self) -> dict[str, Any]:
        return await self.next(lambda e: e["event"] == "ready", STARTUP_LIMIT, "ready")

    async def text(self, expected: str, limit: float = 10.0) -> dict[str, Any]:
        return await self.next(
            lambda e: e["event"] == "text" and e["text"] == expected, limit, repr(expected)
        )

    def last_text(self) -> str:
        texts = self.of("text")
        return texts[-1]["text"] if texts else ""

    async def settle(self, quiet: float = 0.3) -> None:
        """Wait until nothing new has arrived for `quiet` seconds."""
        count = -1
        while True:
            with self._lock:
                now = len(self.events)
            if now == count:
                return
            count = now
            await asyncio.sleep(quiet)

    def close(self) -> None:
        if self._process is not None:
            if self._process.stdin is not None:
                self._process.stdin.close()
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            if self._reader is not None:
                self._reader.join(timeout=10)  # it ends at the end of the output
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process = None


class Zenity:
    """A zenity (GTK) dialog on `display`; `geometry()` is its window's global rectangle."""

    def __init__(
        self, display: str, args: list[str], env: dict[str, str | None] | None = None
    ) -> None:
        self.display = display
        self._process = subprocess.Popen(
            ["zenity", *args],
            env=gui_env(display, env),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    @property
    def pid(self) -> int:
        return self._process.pid

    def geometry(self) -> tuple[int, int, int, int]:
        done = subprocess.run(
            [
                "xdotool",
                "search",
                "--sync",
                "--onlyvisible",
                "--class",
                "zenity",
                "getwindowgeometry",
                "--shell",
            ],
            env=gui_env(self.display),
            capture_output=True,
            text=True,
            timeout=STARTUP_LIMIT,
            check=True,
        )
        values = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])

    async def finished(self, limit: float = 10.0) -> tuple[int, str]:
        """(exit status, what it printed) once the dialog has closed."""
        deadline = time.monotonic() + limit
        while self._process.poll() is None:
            if time.monotonic() > deadline:
                raise AssertionError("the zenity dialog did not close")
            await asyncio.sleep(0.02)
        out = self._process.stdout.read() if self._process.stdout else ""
        return self._process.returncode, out

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
            self._process.wait(timeout=10)
        if self._process.stdout:
            self._process.stdout.close()

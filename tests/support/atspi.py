"""A private desktop session bus for accessibility tests, with the AT-SPI bus D-Bus starts on demand.

`SessionBus(display)` runs `dbus-run-session` around a process that only prints the session bus
address and waits; apps started with `app_env()` join that session, and the first request for
the accessibility bus starts `at-spi-bus-launcher` (and with it the AT-SPI registry) there.
`XDG_RUNTIME_DIR` is a fresh folder so the accessibility bus's socket is this session's own,
never the person's or a parallel test run's. Closing the session ends all of it.
`atspi_missing()` says why tests must skip when the packages are not installed.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

STARTUP_LIMIT = 20.0
LAUNCHERS = ("/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher")


def atspi_missing() -> str | None:
    """Why accessibility tests cannot run here, or None when they can."""
    if shutil.which("dbus-run-session") is None:
        return "dbus-run-session is not installed (apt-get install dbus-daemon)"
    if not any(Path(path).exists() for path in LAUNCHERS):
        return "AT-SPI is not installed (apt-get install at-spi2-core)"
    return None


class SessionBus:
    def __init__(self, display: str) -> None:
        self.display = display
        self.address = ""
        self._runtime = tempfile.TemporaryDirectory(prefix="deskhand-a11y-")
        self._process: subprocess.Popen[bytes] | None = None

    def app_env(self) -> dict[str, str | None]:
        """What an app needs to join this session with accessibility on (see `gui_env`)."""
        return {
            "DBUS_SESSION_BUS_ADDRESS": self.address,
            "XDG_RUNTIME_DIR": self._runtime.name,
            "AT_SPI_BUS_ADDRESS": None,
            "NO_AT_BRIDGE": None,  # GTK: do join the accessibility bus
            "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
        }

    def __enter__(self) -> SessionBus:
        env = {k: v for k, v in os.environ.items() if k not in ("AT_SPI_BUS_ADDRESS",)}
        env.update(DISPLAY=self.display, XDG_RUNTIME_DIR=self._runtime.name)
        self._process = subprocess.Popen(
            [
                "dbus-run-session",
                "--",
                "sh",
                "-c",
                'echo "$DBUS_SESSION_BUS_ADDRESS"; exec sleep 100000',
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: closing ends the launcher too
        )
        assert self._process.stdout is not None
        deadline = time.monotonic() + STARTUP_LIMIT
        line = b""
        while not line.endswith(b"\n"):
            ready, _, _ = select.select(
                [self._process.stdout], [], [], max(0.0, deadline - time.monotonic())
            )
            chunk = os.read(self._process.stdout.fileno(), 256) if ready else b""
            if not chunk:
                self.__exit__(None, None, None)
                raise RuntimeError("dbus-run-session did not start")
            line += chunk
        self.address = line.decode().strip()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        process, self._process = self._process, None
        if process is not None:
            try:
                os.killpg(process.pid, 15)
            except ProcessLookupError:
                pass
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        self._runtime.cleanup()

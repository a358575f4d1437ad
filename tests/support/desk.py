"""A desktop for accessibility tests: an X server, a session bus with AT-SPI, a Qt form, a GTK dialog.

`with running_desk() as desk:` starts a 1600×900 Xvfb, a private session bus (`atspi.py`), the Qt
form of `see_target.py` at `FORM_RECT` and a zenity "Sign in" dialog beside it (GTK centres it),
both with accessibility on. `desk.widgets` are the form's widgets' global rectangles as Qt
reports them. Tests skip, saying why, when a package is missing.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.atspi import SessionBus, atspi_missing
from tests.support.x11 import TargetApp, Xvfb, Zenity, gui_env, xvfb_missing
from tools.screen.a11y.atspi.reader import Accessibility
from tools.screen.geometry import Rect

__all__ = ["DIALOG_ARGS", "FORM_RECT", "Desk", "running_desk", "wait_accessible"]

FORM_RECT = (20, 20, 620, 440)  # where the Qt form (tests/support/see_target.py) sits
DIALOG_ARGS = [
    "--forms",
    "--title",
    "Sign in",
    "--text",
    "Sign in",
    "--add-entry",
    "Email",
    "--add-password",
    "Secret",
    "--width",
    "300",
]
SIZE = (1600, 900)


@dataclass
class Desk:
    display: str
    bus: SessionBus
    form: TargetApp
    widgets: dict[str, Rect]
    dialog: Zenity
    dialog_rect: Rect

    def env(self) -> dict[str, str]:
        """The environment of a process on this desk (the app under test, a command)."""
        return gui_env(self.display, self.bus.app_env())


def _wait_ready(app: TargetApp, limit: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while not app.of("ready"):
        if time.monotonic() > deadline:
            raise AssertionError("the form never reported ready")
        time.sleep(0.02)
    return app.of("ready")[0]


def wait_accessible(bus: SessionBus, pids: set[int], limit: float = 20.0) -> None:
    """Until every process of `pids` has its windows on the accessibility bus (apps register
    a moment after they show their windows)."""

    async def registered() -> bool:
        accessibility = Accessibility(session=bus.address)
        try:
            for app in await accessibility.apps():
                if app.pid in pids and await accessibility.frames(app):
                    pids.discard(app.pid)
            return not pids
        finally:
            await accessibility.close()

    deadline = time.monotonic() + limit
    while not asyncio.run(registered()):
        if time.monotonic() > deadline:
            raise AssertionError(f"never on the accessibility bus: {pids}")
        time.sleep(0.05)


@contextmanager
def running_desk() -> Iterator[Desk]:
    missing = xvfb_missing() or atspi_missing()
    if missing:
        pytest.skip(missing)
    if shutil.which("zenity") is None or shutil.which("xdotool") is None:
        pytest.skip("zenity and xdotool are not installed (apt-get install zenity xdotool)")
    with Xvfb(*SIZE) as server, SessionBus(server.display) as bus:
        form = TargetApp(
            server.display, FORM_RECT, module="tests.support.see_target", env=bus.app_env()
        )
        form.start()
        dialog = Zenity(server.display, DIALOG_ARGS, env=bus.app_env())
        try:
            ready = _wait_ready(form)
            wait_accessible(bus, {form.pid or 0, dialog.pid})
            widgets = {name: Rect(*rect) for name, rect in ready["widgets"].items()}
            yield Desk(
                display=server.display,
                bus=bus,
                form=form,
                widgets=widgets,
                dialog=dialog,
                dialog_rect=Rect(*dialog.geometry()),
            )
        finally:
            dialog.close()
            form.close()

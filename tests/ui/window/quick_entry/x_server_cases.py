"""Quick entry end to end on a real X server, against the scripted model.

`tests/ui/window/quick_entry/test_x_server.py` runs this file in a child pytest with its own
Xvfb and QT_QPA_PLATFORM=xcb (Qt picks its platform once per process). Another app has the
keyboard focus; the shortcut and the typing come from another X client (xdotool), as from a
keyboard.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QRect
from Xlib import XK, X
from Xlib import display as xdisplay

from desktop.workspace import Workspace
from tests.support import seen
from tests.support.model_server import ScriptedModelServer, text_reply
from tests.support.window import finish_turn, settle
from tests.support.x11 import TargetApp, gui_env
from ui.window.banners import NoticeBanner
from ui.window.main_window import MainWindow
from ui.window.quick_entry import QuickEntryController

pytestmark = pytest.mark.skipif(
    os.environ.get("QT_QPA_PLATFORM") != "xcb" or not os.environ.get("DISPLAY"),
    reason="runs on an X server, started by tests/ui/window/quick_entry/test_x_server.py",
)

WINDOW = QRect(700, 60, 560, 500)
OTHER_APP = (20, 300, 560, 420)


def xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], env=gui_env(os.environ["DISPLAY"]), check=True, timeout=20)


def focus_pid() -> int | None:
    done = subprocess.run(
        ["xdotool", "getwindowfocus", "getwindowpid"],
        env=gui_env(os.environ["DISPLAY"]),
        capture_output=True,
        text=True,
        timeout=10,
    )
    return int(done.stdout) if done.stdout.strip().isdigit() else None


def user_text(request: dict) -> str:  # type: ignore[type-arg]
    content = request["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return " ".join(part.get("text", "") for part in content if part.get("type") == "text")


@pytest.fixture
def window(qtbot, aloop, data_dir: Path, api_env: ScriptedModelServer) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "settings.json").write_text(
        json.dumps({"model": {"max_retries": 0}, "browser": {"enabled": False}})
    )
    made = MainWindow(Workspace.open(data_dir))
    qtbot.addWidget(made)
    made.setGeometry(WINDOW)
    made.show()
    qtbot.waitExposed(made)
    yield made
    aloop.run_until_complete(made.shutdown())
    aloop.run_until_complete(made.workspace.toolbox.close())


@pytest.fixture
def other_app(aloop) -> Iterator[TargetApp]:  # type: ignore[no-untyped-def]
    app = TargetApp(os.environ["DISPLAY"], OTHER_APP)
    app.start()
    try:
        aloop.run_until_complete(app.ready())
        yield app
    finally:
        app.close()


def test_the_shortcut_over_another_app_opens_the_composer_and_enter_reaches_the_model(
    qtbot, aloop, window: MainWindow, other_app: TargetApp, model_server: ScriptedModelServer
) -> None:  # type: ignore[no-untyped-def]
    quick = QuickEntryController(window)
    aloop.run_until_complete(quick.start(owner=True))
    try:
        assert quick.shortcut.problem == "" and quick.shortcut.held is not None
        # The person works in another app: it has the keyboard focus.
        xdotool("mousemove", "300", "338", "click", "1")
        settle(aloop, lambda: focus_pid() == other_app.pid, "the other app to have the focus")
        model_server.enqueue(text_reply("Hello from the scripted model."))

        xdotool("key", "ctrl+alt+space")
        settle(aloop, quick.panel.isVisible, "the quick composer")
        # On the screen the pointer is on, with the permission mode it will run in.
        assert quick.panel.screen().geometry().contains(quick.panel.geometry().center())
        assert quick.panel.mode_label.text() == "Mode: Ask for changes"
        settle(aloop, lambda: focus_pid() == os.getpid(), "the composer to take the keys")

        xdotool("type", "--delay", "20", "What is on my calendar?")
        settle(
            aloop,
            lambda: quick.panel.composer.text() == "What is on my calendar?",
            "the typed text",
        )
        xdotool("key", "Return")
        finish_turn(aloop, window)
        assert user_text(model_server.message_requests[0]) == "What is on my calendar?"
        # The composer is gone; the window shows the new chat with the reply.
        assert not quick.panel.isVisible()
        assert window.isVisible() and window.current_session_id is not None
        assert "Hello from the scripted model." in seen.text(window.thread)

        # Esc hides it again without sending anything.
        xdotool("key", "ctrl+alt+space")
        settle(aloop, quick.panel.isVisible, "the quick composer again")
        settle(aloop, quick.panel.isActiveWindow, "the composer to take the keys")
        xdotool("key", "Escape")
        settle(aloop, lambda: not quick.panel.isVisible(), "Esc to hide it")
        assert len(model_server.message_requests) == 1
    finally:
        quick.close()


def test_a_shortcut_another_app_holds_gets_a_clear_message(
    qtbot, aloop, window: MainWindow
) -> None:  # type: ignore[no-untyped-def]
    other = xdisplay.Display()
    keycode = other.keysym_to_keycode(XK.string_to_keysym("space"))
    other.screen().root.grab_key(
        keycode, X.ControlMask | X.Mod1Mask, False, X.GrabModeAsync, X.GrabModeAsync
    )
    other.sync()
    quick = QuickEntryController(window)
    try:
        aloop.run_until_complete(quick.start(owner=True))
        notices = [b.label.text() for b in window.findChildren(NoticeBanner)]
        assert any(
            text.startswith("Ctrl+Alt+Space is already used by another app")
            and "Settings → General" in text
            for text in notices
        ), notices
    finally:
        quick.close()
        other.close()


def test_a_second_deskhand_leaves_the_shortcut_to_the_first(
    qtbot, aloop, window: MainWindow
) -> None:  # type: ignore[no-untyped-def]
    quick = QuickEntryController(window)
    try:
        aloop.run_until_complete(quick.start(owner=False))  # another Deskhand owns the socket
        assert quick.shortcut.held is None and quick.shortcut.problem == ""
        # The shortcut is still free for the first one: another client can take it.
        other = xdisplay.Display()
        keycode = other.keysym_to_keycode(XK.string_to_keysym("space"))
        errors: list[object] = []
        other.screen().root.grab_key(
            keycode,
            X.ControlMask | X.Mod1Mask,
            False,
            X.GrabModeAsync,
            X.GrabModeAsync,
            onerror=errors.append,
        )
        other.sync()
        other.close()
        assert errors == []
    finally:
        quick.close()

"""Screen control end to end in the real window, on a real X server, against the scripted model.

`tests/ui/screen/test_window_screen.py` runs this file in a child pytest with its own Xvfb and
QT_QPA_PLATFORM=xcb: Qt picks its platform once per process, and the test process's own is
offscreen. Deskhand's window sits on the right of the 1280×800 display (screenshots are not
scaled, so the model's coordinates are global ones), the PySide6 target app on the left.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import subprocess
import sys
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import mss
import pytest
from PIL import Image
from PySide6.QtCore import QRect, Qt

from desktop.workspace import Workspace
from tests.support.model_server import (
    ScriptedModelServer,
    computer_use,
    text_reply,
    tool_reply,
)
from tests.support.window import finish_turn, settle, type_and_send
from tests.support.x11 import TargetApp, gui_env
from tools.screen import errors
from ui.screen.overlay import ACCENT
from ui.screen.visualizer import ScreenVisualizer
from ui.thread.tool_card import ToolCard
from ui.window.main_window import MainWindow

pytestmark = pytest.mark.skipif(
    os.environ.get("QT_QPA_PLATFORM") != "xcb" or not os.environ.get("DISPLAY"),
    reason="runs on an X server, started by tests/ui/screen/test_window_screen.py",
)

WINDOW = QRect(630, 60, 640, 560)  # Deskhand, on the right
TARGET = (20, 300, 560, 420)  # the app Claude uses, on the left
BUTTON = (100, 338)  # the centre of the target's "Press me" button
FIELD = (340, 338)  # the centre of its line edit
TYPED = "Grüße, Ωmega 42!"


def sheet_open(window: MainWindow) -> bool:
    return window.approval_sheet is not None and window.approval_sheet.isVisible()


def answer_sheet(qtbot, aloop, window: MainWindow, expect: str) -> str:  # type: ignore[no-untyped-def]
    """Wait for the approval sheet, check what it says, allow once; returns its summary.

    The person's click on the sheet gives Deskhand the keyboard focus, and Deskhand's window
    keeps it when the sheet closes, as a window manager would do it (this X server has none,
    so the test does it)."""
    settle(aloop, lambda: sheet_open(window), f"the sheet for {expect}", timeout=20)
    sheet = window.approval_sheet
    assert sheet is not None
    summary = sheet.summary.text()
    assert expect in summary, summary
    sheet.activateWindow()
    settle(aloop, lambda: focus_pid() == os.getpid(), "Deskhand to have the keyboard focus")
    qtbot.mouseClick(sheet.allow_once, Qt.MouseButton.LeftButton)
    window.activateWindow()
    settle(aloop, lambda: not sheet_open(window), "the sheet to close")
    return summary


def focus_pid() -> int | None:
    """The process whose window has the X keyboard focus, as xdotool reads it."""
    done = subprocess.run(
        ["xdotool", "getwindowfocus", "getwindowpid"],
        env=gui_env(os.environ["DISPLAY"]),
        capture_output=True,
        text=True,
        timeout=10,
    )
    return int(done.stdout) if done.stdout.strip().isdigit() else None


def root_pixels() -> Image.Image:
    """The whole display as it is now, read straight from the X server."""
    with mss.MSS() as grabber:
        shot = grabber.grab(grabber.monitors[0])
        return Image.frombytes("RGB", shot.size, shot.rgb)


def is_accent(pixel: tuple[int, int, int]) -> bool:
    return all(abs(a - b) < 40 for a, b in zip(pixel, ACCENT.getRgb()[:3], strict=True))


def bordered(image: Image.Image) -> bool:
    """Whether the visualizer's border is around the display in `image`."""
    return all(is_accent(image.getpixel(point)) for point in [(640, 1), (1, 400), (1278, 400)])


def result_image(request: dict[str, Any]) -> Image.Image:
    """The screenshot in the newest tool result of a request the model received."""
    for block in request["messages"][-1]["content"]:
        for part in block.get("content", []):
            if isinstance(part, dict) and part.get("type") == "image":
                data = base64.b64decode(part["source"]["data"])
                return Image.open(io.BytesIO(data)).convert("RGB")
    raise AssertionError("no screenshot in the request")


def result_texts(request: dict[str, Any]) -> list[str]:
    texts = []
    for block in request["messages"][-1]["content"]:
        content = block.get("content", [])
        if isinstance(content, str):
            texts.append(content)
        else:
            texts += [part["text"] for part in content if part.get("type") == "text"]
    return texts


def arrived(aloop, waiting: Coroutine[Any, Any, Any], model_server: ScriptedModelServer) -> None:  # type: ignore[no-untyped-def]
    """Wait for what the target app reports; if it never comes, say what the model was told."""
    try:
        aloop.run_until_complete(waiting)
    except AssertionError as exc:
        told = [result_texts(r) for r in model_server.message_requests[1:]]
        raise AssertionError(f"{exc}\nthe tool results so far: {told}") from exc


def xdotool_click(x: int, y: int) -> None:
    """A person's click, from outside Deskhand (the XTest extension, as a mouse would)."""
    subprocess.run(
        ["xdotool", "mousemove", str(x), str(y), "click", "1"],
        env=gui_env(os.environ["DISPLAY"]),
        check=True,
        timeout=10,
    )


@pytest.fixture
def target(aloop) -> Iterator[TargetApp]:  # type: ignore[no-untyped-def]
    app = TargetApp(os.environ["DISPLAY"], TARGET)
    app.start()
    try:
        aloop.run_until_complete(app.ready())
        yield app
    finally:
        app.close()


def open_window(qtbot, aloop, data_dir: Path, mode: str) -> MainWindow:  # type: ignore[no-untyped-def]
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "settings.json").write_text(
        json.dumps(
            {
                "model": {"max_retries": 0},
                "permissions": {"mode": mode},
                "browser": {"enabled": False},
            }
        )
    )
    workspace = Workspace.open(data_dir)
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.setGeometry(WINDOW)
    window.show()
    qtbot.waitExposed(window)
    aloop.run_until_complete(workspace.toolbox.screen_source.start())
    assert workspace.toolbox.screen.available, workspace.toolbox.screen.status
    return window


@pytest.fixture
def screen_window(
    qtbot, aloop, data_dir: Path, api_env: ScriptedModelServer
) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    window = open_window(qtbot, aloop, data_dir, "changes")
    yield window
    aloop.run_until_complete(window.shutdown())
    aloop.run_until_complete(window.workspace.toolbox.close())


def test_look_click_type_and_return_with_the_sheet_where_it_must_be(
    qtbot, aloop, screen_window: MainWindow, model_server: ScriptedModelServer, target: TargetApp
) -> None:  # type: ignore[no-untyped-def]
    window = screen_window
    visualizer: ScreenVisualizer = window.visualizer
    own = window.frameGeometry().center()
    model_server.enqueue(
        tool_reply(computer_use("screenshot")),
        tool_reply(computer_use("left_click", coordinate=list(BUTTON))),
        tool_reply(computer_use("screenshot")),
        tool_reply(computer_use("left_click", coordinate=list(FIELD))),
        tool_reply(computer_use("left_click", coordinate=list(FIELD))),  # after the pause
        tool_reply(computer_use("type", text=TYPED)),
        tool_reply(computer_use("key", text="Return")),
        tool_reply(computer_use("left_click", coordinate=[own.x(), own.y()])),
        text_reply("Done: the form is sent."),
    )
    type_and_send(qtbot, window, "Press the button and fill in the form")

    # The first look asks (Ask-for-changes mode); nothing is captured before the answer.
    answer_sheet(qtbot, aloop, window, "Let Claude see your screen in this chat?")
    # A click on an element nobody can name is consequential: it asks, and says where.
    summary = answer_sheet(qtbot, aloop, window, "Click")
    assert f"({BUTTON[0]}, {BUTTON[1]})" in summary
    aloop.run_until_complete(target.next(lambda e: e["event"] == "clicked", what="the click"))

    # While Claude controls the screen the border and the pill are on the real screen...
    settle(aloop, visualizer.visible, "the visualizer")
    settle(aloop, lambda: bordered(root_pixels()), "the border on the screen")
    # The second screenshot is a read: no sheet. The click on the field asks; meanwhile...
    settle(aloop, lambda: sheet_open(window), "the sheet for the field's click", timeout=20)
    # ...the drawing surface lets a person's click through to the app below, and that click
    # pauses Claude: the approved click waits until the person presses Resume, and is then
    # not done (it was aimed at a screen that may have changed); the model is told.
    target.clear()
    xdotool_click(*BUTTON)
    aloop.run_until_complete(target.next(lambda e: e["event"] == "clicked", what="a click"))
    hand = window.workspace.toolbox.screen_hooks.hand
    settle(aloop, lambda: hand.holder == "paused", "the pause")
    answer_sheet(qtbot, aloop, window, "Click")
    aloop.run_until_complete(asyncio.sleep(0.5))
    assert not [e for e in target.of("focus") if e["widget"] == "field"]
    qtbot.mouseClick(visualizer.pills[0].resume_button, Qt.MouseButton.LeftButton)
    # The model tries again; typing and Return ask each, and arrive exactly: after each
    # answer the keyboard focus is given back to the app's window, away from Deskhand's.
    answer_sheet(qtbot, aloop, window, "Click")
    answer_sheet(qtbot, aloop, window, "Type")
    arrived(aloop, target.text(TYPED), model_server)
    answer_sheet(qtbot, aloop, window, "Return")
    submitted = target.next(
        lambda e: e["event"] == "submitted" and e["text"] == TYPED, what="Return"
    )
    arrived(aloop, submitted, model_server)

    # The click aimed at Deskhand's own window is refused before anyone is asked.
    finish_turn(aloop, window)
    requests = model_server.message_requests
    assert any("the person used the computer for" in t for t in result_texts(requests[4]))
    assert errors.OWN_WINDOW in result_texts(requests[8])
    assert window.approval_sheet is None or not window.approval_sheet.isVisible()
    last = window.thread.findChildren(ToolCard)[-1]
    assert last.state.text() == "Failed" and "Deskhand's own window" in last.outcome.text()

    # The visualizer was out of the picture: no border, no pill in what the model saw.
    seen = result_image(requests[3])
    assert seen.size == (1280, 800) and not bordered(seen)
    assert not any(is_accent(seen.getpixel((x, 1))) for x in range(0, 1280, 16))
    assert not any(is_accent(seen.getpixel((1, y))) for y in range(0, 800, 16))
    pill = visualizer.pills[0].geometry()
    assert not any(
        is_accent(seen.getpixel((x, pill.top() + 1))) for x in range(pill.left(), pill.right())
    )
    # The turn is over: the visualizer is gone.
    settle(aloop, lambda: not visualizer.visible(), "the visualizer to go")


def test_stop_on_the_pill_stops_the_turn(
    qtbot, aloop, data_dir: Path, api_env: ScriptedModelServer, target: TargetApp
) -> None:  # type: ignore[no-untyped-def]
    window = open_window(qtbot, aloop, data_dir, "autonomous")
    try:
        api_env.enqueue(
            tool_reply(computer_use("screenshot")),
            tool_reply(computer_use("wait", duration=20)),
            text_reply("never sent"),
        )
        type_and_send(qtbot, window, "Watch the screen")
        visualizer: ScreenVisualizer = window.visualizer
        settle(aloop, visualizer.visible, "the visualizer", timeout=20)
        settle(aloop, lambda: len(api_env.message_requests) >= 2, "the wait")
        pill = visualizer.pills[0]
        center = pill.mapToGlobal(pill.stop_button.geometry().center())
        xdotool_click(center.x(), center.y())  # the person clicks Stop, on the real screen
        finish_turn(aloop, window)
        assert not window.is_running() and not visualizer.visible()
        assert len(api_env.message_requests) == 2  # the turn ended there
    finally:
        aloop.run_until_complete(window.shutdown())
        aloop.run_until_complete(window.workspace.toolbox.close())


MOVE_FROM_ANOTHER_CLIENT = """
import sys
from Xlib import X, display
from Xlib.ext import xtest
d = display.Display()
for x in (200, 230, 260):
    xtest.fake_input(d, X.MotionNotify, x=x, y=120)
d.sync()
"""


def test_the_persons_mouse_pauses_claude_before_its_next_click(
    qtbot, aloop, data_dir: Path, api_env: ScriptedModelServer, target: TargetApp
) -> None:  # type: ignore[no-untyped-def]
    window = open_window(qtbot, aloop, data_dir, "autonomous")
    hand = window.workspace.toolbox.screen_hooks.hand
    try:
        api_env.enqueue(
            tool_reply(computer_use("screenshot")),
            tool_reply(computer_use("left_click", coordinate=[300, 500])),  # on the canvas
            tool_reply(computer_use("wait", duration=3)),
            tool_reply(computer_use("left_click", coordinate=list(BUTTON))),
            tool_reply(computer_use("screenshot")),
            tool_reply(computer_use("left_click", coordinate=list(BUTTON))),
            text_reply("Done."),
        )
        type_and_send(qtbot, window, "Click the canvas, then the button")
        answer_sheet(qtbot, aloop, window, "Click")  # consequential: nobody can name it
        arrived(aloop, target.next(lambda e: e["event"] == "press", what="a press"), api_env)
        settle(aloop, lambda: len(api_env.message_requests) >= 3, "the wait", timeout=20)
        # The person moves the mouse (from another X client, as a remote desktop does).
        subprocess.run(
            [sys.executable, "-c", MOVE_FROM_ANOTHER_CLIENT],
            env=gui_env(os.environ["DISPLAY"]),
            check=True,
            timeout=20,
        )
        settle(aloop, lambda: hand.holder == "paused", "the pause")
        pill = window.visualizer.pills[0]
        assert pill.isVisible() and pill.label.text() == "Paused: you're using the computer"
        # The wait ends; the next click is approved, and waits for the person.
        answer_sheet(qtbot, aloop, window, "Click")
        aloop.run_until_complete(asyncio.sleep(0.8))
        assert target.of("clicked") == [] and window.is_running()
        assert hand.holder == "paused"
        qtbot.mouseClick(pill.resume_button, Qt.MouseButton.LeftButton)
        # That click is not done; the model looks again and clicks anew (it asks again).
        answer_sheet(qtbot, aloop, window, "Click")
        arrived(aloop, target.next(lambda e: e["event"] == "clicked", what="the click"), api_env)
        finish_turn(aloop, window)
        told = result_texts(api_env.message_requests[4])
        assert any("the person used the computer for" in t for t in told), told
        assert any("look again before acting" in t for t in told), told
        assert len(target.of("clicked")) == 1  # only the click asked for after the look
        assert not window.visualizer.visible() and not hand.watching
    finally:
        aloop.run_until_complete(window.shutdown())
        aloop.run_until_complete(window.workspace.toolbox.close())

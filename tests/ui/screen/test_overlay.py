"""The visualizer in the real window (offscreen): what the screen's events draw, the windows'
flags, Stop, the setting, the capture hooks, and which windows count as Deskhand's own.

The real screen (X11, the driver's own events, the overlay absent from screenshots, a person's
click through it) is in `test_window_screen.py`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage

from desktop.calls.sources.screen.source import ScreenEvent
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support import seen
from tests.support.model_server import Hang, ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.support.turns import turn_log
from tests.support.window import finish_turn, settle, type_and_send
from tools.base import Risk
from tools.screen import Point, Rect
from ui.screen.overlay import (
    ACCENT,
    BUBBLE_MAX_CHARS,
    CONTROLLING,
    Mark,
    ScreenOverlay,
    StopPill,
    typed_text,
)
from ui.screen.own_windows import own_window_rects
from ui.screen.visualizer import ScreenVisualizer
from ui.window.main_window import MainWindow


@pytest.fixture
def window(qtbot, workspace: Workspace, aloop) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    win = MainWindow(workspace)
    qtbot.addWidget(win)
    win.setGeometry(420, 300, 700, 480)
    win.show()
    yield win
    aloop.run_until_complete(win.shutdown())


def report(workspace: Workspace, session_id: int, event: ScreenEvent) -> None:
    """What the screen toolset does with the driver's events: every listener gets them."""
    for listener in list(workspace.toolbox.screen_hooks.listeners):
        listener(session_id, event)


def overlay_image(overlay: ScreenOverlay) -> QImage:
    return overlay.grab().toImage()


def close_to(color: QColor, expected: QColor, tolerance: int = 40) -> bool:
    return all(
        abs(a - b) <= tolerance
        for a, b in zip(color.getRgb()[:3], expected.getRgb()[:3], strict=True)
    )


def test_events_draw_a_border_ripples_a_drag_path_a_bubble_and_a_flash(
    qtbot, window: MainWindow, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    visualizer = window.visualizer
    assert not visualizer.visible()  # nothing until Claude uses the screen
    report(workspace, 1, ScreenEvent(kind="click", points=(Point(200, 150),), button="left"))
    [overlay] = visualizer.overlays
    [pill] = visualizer.pills
    assert overlay.isVisible() and pill.isVisible() and overlay.bordered
    assert pill.label.text() == CONTROLLING == "Deskhand is controlling the screen"
    image = overlay_image(overlay)
    assert close_to(image.pixelColor(200, 150), ACCENT)  # the ripple's centre
    assert close_to(image.pixelColor(overlay.width() // 2, 1), ACCENT)  # the border
    assert image.pixelColor(400, 400).alpha() == 0  # the rest shows the screen below
    # The window is shaped to what it draws: the ripple and the border, nothing else.
    assert overlay.mask().contains(QPoint(200, 150)) and overlay.mask().contains(QPoint(1, 1))
    assert not overlay.mask().contains(QPoint(400, 400))

    report(
        workspace,
        1,
        ScreenEvent(kind="drag", points=(Point(100, 300), Point(500, 300)), button="left"),
    )
    report(workspace, 1, ScreenEvent(kind="type", text="Grüße, Ωmega 42!\nnext"))
    report(workspace, 1, ScreenEvent(kind="screenshot", region=Rect(0, 0, 800, 800)))
    kinds = [mark.kind for mark in overlay.marks]
    assert kinds == ["ripple", "drag", "bubble", "flash"]
    image = overlay_image(overlay)
    assert close_to(image.pixelColor(300, 300), ACCENT)  # along the drag path
    bubble = overlay.marks[2]
    assert bubble.text == "⌨  Grüße, Ωmega 42! ⏎ next"
    # Near where the pointer went last (the drag's end), where the typing lands.
    box = overlay._bubble_rect(bubble).toRect()
    assert box.left() >= 500 and box.top() >= 300 and box.top() < 360
    assert image.pixelColor(box.center()).alpha() > 200  # an opaque bubble behind the text
    # The flash: a bright frame just inside the captured area.
    flash = image.pixelColor(400, 6)
    assert flash.red() > 240 and flash.green() > 200 and flash.blue() > 200


def test_the_overlay_lets_clicks_through_and_only_the_pill_takes_them(
    qtbot, window: MainWindow, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    report(workspace, 1, ScreenEvent(kind="move", points=(Point(50, 50),)))
    [overlay] = window.visualizer.overlays
    [pill] = window.visualizer.pills
    flags = overlay.windowFlags()
    for flag in (
        Qt.WindowType.WindowTransparentForInput,
        Qt.WindowType.WindowDoesNotAcceptFocus,
        Qt.WindowType.WindowStaysOnTopHint,
        Qt.WindowType.FramelessWindowHint,
    ):
        assert flags & flag, flag
    assert overlay.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    assert overlay.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    assert not pill.windowFlags() & Qt.WindowType.WindowTransparentForInput
    assert pill.windowFlags() & Qt.WindowType.WindowDoesNotAcceptFocus  # the keys stay put
    assert pill.stop_button.focusPolicy() == Qt.FocusPolicy.NoFocus

    # Deskhand's own windows: the main window and the pill, never the click-through surface.
    assert workspace.toolbox.screen_hooks.own_windows is own_window_rects
    rects = own_window_rects()
    frame = window.frameGeometry()
    assert (frame.x(), frame.y(), frame.width(), frame.height()) in rects
    pill_frame = pill.frameGeometry()
    assert (pill_frame.x(), pill_frame.y(), pill_frame.width(), pill_frame.height()) in rects
    whole = overlay.geometry()
    assert (whole.x(), whole.y(), whole.width(), whole.height()) not in rects
    # The pill sits at the top of the display, in the middle.
    screen = overlay.display.availableGeometry()
    assert abs(pill.geometry().center().x() - screen.center().x()) <= 1
    assert pill.geometry().top() < screen.top() + 40


def test_own_windows_include_the_approval_sheet(
    qtbot, aloop, window: MainWindow, workspace: Workspace, model_server: ScriptedModelServer
) -> None:  # type: ignore[no-untyped-def]
    workspace.live.set_mode(Mode.ASK)
    workspace.registry.add(NotebookTool(risk=Risk.CHANGE))
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "milk"})), text_reply("Noted.")
    )
    type_and_send(qtbot, window, "Remember milk")
    settle(
        aloop,
        lambda: window.approval_sheet is not None and window.approval_sheet.isVisible(),
        "the sheet",
    )
    sheet = window.approval_sheet
    assert sheet is not None
    frame = sheet.frameGeometry()
    rect = (frame.x(), frame.y(), frame.width(), frame.height())
    assert rect in own_window_rects()
    qtbot.mouseClick(sheet.deny, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)
    assert rect not in own_window_rects()  # answered and gone: no longer in the way


def test_stop_on_the_pill_stops_the_turn_that_controls_the_screen(
    qtbot, aloop, window: MainWindow, workspace: Workspace, model_server: ScriptedModelServer
) -> None:  # type: ignore[no-untyped-def]
    model_server.enqueue(Hang(text="Looking at your screen"))
    type_and_send(qtbot, window, "Use the screen")
    settle(aloop, lambda: "Looking" in seen.text(window.thread), "the reply")
    session_id = window.current_session_id
    assert session_id is not None and window.is_running(session_id)
    report(workspace, session_id, ScreenEvent(kind="screenshot", region=Rect(0, 0, 800, 800)))
    [pill] = window.visualizer.pills
    assert pill.isVisible()
    qtbot.mouseClick(pill.stop_button, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)
    assert turn_log(window.conversations).last.stopped
    assert "Stopped" in seen.text(window.thread)
    assert not window.visualizer.visible()  # the turn is over: the visualizer goes


def test_the_visualizer_shows_only_while_a_turn_controls_the_screen(
    qtbot, aloop, window: MainWindow, workspace: Workspace, model_server: ScriptedModelServer
) -> None:  # type: ignore[no-untyped-def]
    model_server.enqueue(text_reply("Done."))
    type_and_send(qtbot, window, "Hello")
    session_id = window.current_session_id
    assert session_id is not None
    report(workspace, session_id, ScreenEvent(kind="key", text="ctrl+s"))
    [overlay] = window.visualizer.overlays
    assert overlay.marks[-1].text == "Keys  ctrl+s"
    finish_turn(aloop, window)
    settle(aloop, lambda: not window.visualizer.visible(), "the visualizer to go")
    assert overlay.marks == []


def test_hidden_while_pixels_are_captured(
    qtbot, aloop, window: MainWindow, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    visualizer = window.visualizer
    control = workspace.toolbox.screen_hooks
    # The screen toolset calls the window's hooks around each capture (see ScreenControl).
    assert control.before_capture == visualizer.hide_for_capture
    assert control.after_capture == visualizer.show_after_capture
    report(workspace, 3, ScreenEvent(kind="move", points=(Point(10, 10),)))
    assert visualizer.visible()
    aloop.run_until_complete(visualizer.hide_for_capture())
    assert not visualizer.visible()
    report(workspace, 3, ScreenEvent(kind="move", points=(Point(20, 20),)))
    assert not visualizer.visible()  # an event during the capture does not bring it back
    visualizer.show_after_capture()
    assert visualizer.visible()

    # Two chats capturing at once: it comes back only when both are done.
    aloop.run_until_complete(visualizer.hide_for_capture())
    aloop.run_until_complete(visualizer.hide_for_capture())
    visualizer.show_after_capture()
    assert not visualizer.visible()
    visualizer.show_after_capture()
    assert visualizer.visible()


def test_the_visualizer_is_a_setting(qtbot, window: MainWindow, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    assert workspace.settings.screen.visualizer  # on by default
    report(workspace, 1, ScreenEvent(kind="click", points=(Point(100, 100),)))
    assert window.visualizer.visible()
    settings = workspace.settings.model_copy(deep=True)
    settings.screen.visualizer = False
    workspace.live.apply(settings)
    assert not window.visualizer.visible()  # turned off: gone at once
    report(workspace, 1, ScreenEvent(kind="click", points=(Point(100, 100),)))
    assert not window.visualizer.visible()


def test_the_pill_follows_a_dark_palette(qtbot, qapp) -> None:  # type: ignore[no-untyped-def]
    pill = StopPill(lambda: None)
    qtbot.addWidget(pill)
    light = pill.grab().toImage().pixelColor(40, pill.height() // 2)
    palette = qapp.palette()
    dark_palette = qapp.palette()
    dark_palette.setColor(dark_palette.ColorRole.Window, QColor("#1e1e1e"))
    qapp.setPalette(dark_palette)
    try:
        pill.restyle()
        dark = pill.grab().toImage().pixelColor(40, pill.height() // 2)
    finally:
        qapp.setPalette(palette)
    assert light.lightness() > 200 and dark.lightness() < 80


def test_typed_text_fits_one_line() -> None:
    assert typed_text("a\tb\nc") == "a ⇥ b ⏎ c"
    long = typed_text("x" * 500)
    assert len(long) == BUBBLE_MAX_CHARS and long.endswith("…")


def test_a_mark_is_drawn_where_it_falls_on_each_display(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Marks are in global coordinates; each display's overlay draws the part on it."""
    left = ScreenOverlay(QGuiApplication.primaryScreen())
    qtbot.addWidget(left)
    left.setGeometry(QRect(-400, 0, 400, 300))  # a display left of the primary one
    mark = Mark("drag", (QPoint(-200, 100), QPoint(200, 100)))
    assert left.covers(mark)
    left.add(mark)
    assert left.mask().contains(QPoint(300, 100))  # -100 global is 300 on this display
    assert not left.mask().contains(QPoint(100, 250))
    # What falls on another display only is not drawn here (a bubble would cling to the edge).
    assert left.covers(Mark("ripple", (QPoint(-100, 100),)))
    assert not left.covers(Mark("ripple", (QPoint(100, 100),)))
    assert not left.covers(Mark("bubble", (QPoint(100, 100),), text="typed"))
    assert not left.covers(Mark("flash", rect=QRect(0, 0, 800, 600)))


def test_the_visualizer_lets_go_when_the_window_closes(qtbot, aloop, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    visualizer: ScreenVisualizer = window.visualizer
    aloop.run_until_complete(window.shutdown())
    control = workspace.toolbox.screen_hooks
    assert visualizer.show_event not in control.listeners
    assert control.before_capture is None and control.after_capture is None


def test_a_set_value_shows_its_text_at_the_field_it_went_to(
    qtbot, window: MainWindow, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    """The `screen` tool's set_value carries the field's centre: the bubble sits there, not
    where the pointer went last."""
    visualizer = window.visualizer
    report(workspace, 2, ScreenEvent(kind="click", points=(Point(100, 100),), button="left"))
    report(workspace, 2, ScreenEvent(kind="type", points=(Point(600, 500),), text="Ada"))
    [overlay] = visualizer.overlays
    ripple, bubble = overlay.marks
    assert (ripple.kind, bubble.kind, bubble.text) == ("ripple", "bubble", "⌨  Ada")
    box = overlay._bubble_rect(bubble).toRect()
    assert 600 <= box.left() < 700 and 500 <= box.top() < 560


def test_the_pill_says_who_has_the_controls_and_offers_the_buttons_that_fit(
    qtbot, window: MainWindow, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    from tools.screen.hand import PersonInput

    hand = workspace.toolbox.screen_hooks.hand
    report(workspace, 1, ScreenEvent(kind="move", points=(Point(50, 50),)))
    window.visualizer.controlling.add(1)
    [pill] = window.visualizer.pills
    assert pill.take_over_button.isVisible() and not pill.resume_button.isVisible()
    hand.watching = True  # Claude is using the screen
    hand.person_input(PersonInput(kind="motion", x=5, y=5))
    assert pill.label.text() == "Paused: you're using the computer"
    assert pill.resume_button.isVisible() and pill.resume_button.text() == "Resume"
    assert pill.stop_button.isVisible() and not pill.take_over_button.isVisible()
    qtbot.mouseClick(pill.resume_button, Qt.MouseButton.LeftButton)
    assert hand.holder == "claude" and pill.label.text() == CONTROLLING
    note = hand.take_note()
    assert note is not None and "look again before acting" in note

    qtbot.mouseClick(pill.take_over_button, Qt.MouseButton.LeftButton)
    assert hand.holder == "person" and pill.label.text() == "You have the controls"
    assert pill.resume_button.text() == "Hand back"
    qtbot.mouseClick(pill.resume_button, Qt.MouseButton.LeftButton)
    assert hand.holder == "claude"
    assert "took over the computer" in (hand.take_note() or "")

    # Stop still ends everything at once, paused or not: nobody is left waiting.
    hand.person_input(PersonInput(kind="motion", x=5, y=5))  # within Resume's grace: ignored
    assert hand.holder == "claude"
    hand.take_over()
    qtbot.mouseClick(pill.stop_button, Qt.MouseButton.LeftButton)
    assert hand.holder == "claude" and not hand.watching and hand.take_note() is None


def test_input_on_deskhands_own_windows_does_not_pause_claude(
    qtbot, window: MainWindow, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    from tools.screen.hand import PersonInput

    hand = workspace.toolbox.screen_hooks.hand
    workspace.toolbox.screen_hooks.own_windows = own_window_rects
    hand.watching = True
    inside = window.frameGeometry().center()
    hand.person_input(PersonInput(kind="button", x=inside.x(), y=inside.y()))
    hand.person_input(PersonInput(kind="key", focus_own=True))
    assert hand.holder == "claude"
    hand.person_input(PersonInput(kind="key"))
    assert hand.holder == "paused"
    hand.release()

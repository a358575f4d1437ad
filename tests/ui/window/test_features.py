"""The window around the chat: title, model picker, sidebar, menus, shortcuts, tray and
notifications, in the real window against the scripted server."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QToolButton, QWidget

from desktop.workspace import Workspace
from tests.support import seen
from tests.support.model_server import Hang, Reply, Text, text_reply
from tests.support.notification_server import NotificationService
from tests.support.turns import turn_log
from tests.support.window import finish_turn, settle, type_and_send
from ui.window import tray as tray_module
from ui.window.main_window import MainWindow
from ui.window.tray import Notifier

DAY = 24 * 3600


def ask(qtbot, aloop, window: MainWindow, text: str) -> None:  # type: ignore[no-untyped-def]
    type_and_send(qtbot, window, text)
    finish_turn(aloop, window)


def activate(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def test_the_title_follows_the_chat(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    assert window.windowTitle() == "Deskhand"
    model_server.enqueue(text_reply("Sure."))
    ask(qtbot, aloop, window, "Plan a trip to Rome")
    assert window.windowTitle() == "Plan a trip to Rome — Deskhand"
    window.rename_session(window.current_session_id, "Rome in May")
    assert window.windowTitle() == "Rome in May — Deskhand"
    window.new_chat()
    assert window.windowTitle() == "Deskhand"


def test_the_model_picker_lists_the_servers_models_and_follows_settings(  # type: ignore[no-untyped-def]
    qtbot, window, workspace, model_server, aloop
):
    picker = window.model_picker
    assert picker.current_model() == workspace.settings.model.model
    picker.showPopup()  # opening it asks the server which models there are
    settle(aloop, lambda: picker.loaded, "the models list")
    picker.hidePopup()
    assert [picker.itemText(i) for i in range(picker.count())] == model_server.models
    # Picking one saves it, and the next reply comes from it.
    picker.activated.emit(picker.findText("claude-haiku-5-5"))
    assert workspace.settings.model.model == "claude-haiku-5-5"
    model_server.enqueue(text_reply("Quick."))
    ask(qtbot, aloop, window, "Hello")
    assert model_server.message_requests[-1]["model"] == "claude-haiku-5-5"
    # A model chosen in Settings shows in the picker.
    settings = workspace.settings.model_copy(deep=True)
    settings.model.model = "claude-opus-5-5"
    workspace.live.apply(settings)
    assert picker.current_model() == "claude-opus-5-5"


def test_the_sidebar_groups_chats_by_date_and_says_when_a_search_finds_none(  # type: ignore[no-untyped-def]
    qtbot, window, workspace, aloop
):
    store = workspace.store
    now = time.time()
    for title, age in [
        ("Old plan", 40 * DAY),
        ("Last week", 4 * DAY),
        ("Yesterday's", 1 * DAY),
        ("Fresh", 0),
    ]:
        sid = store.create_session(title).id
        store._db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now - age, sid))
    window.sessions.refresh()
    sessions = window.sessions
    assert sessions.titles() == ["Fresh", "Yesterday's", "Last week", "Old plan"]
    assert sessions.headings()[-2:] == ["Previous 7 days", "Older"]
    assert sessions.headings()[0] == "Today"
    # Headings are not chats: they cannot be selected.
    heading = sessions.list.item(0)
    assert not heading.flags() & Qt.ItemFlag.ItemIsSelectable

    assert not sessions.no_match.isVisible()
    qtbot.keyClicks(sessions.search, "zebra")
    qtbot.waitUntil(lambda: sessions.no_match.isVisible())
    assert sessions.no_match.text() == "No chats match “zebra”"
    assert sessions.titles() == []
    # The search's clear button is there once there is text, and clears it.
    clear = sessions.search.findChild(QToolButton)
    assert clear is not None and sessions.search.isClearButtonEnabled()
    qtbot.mouseClick(clear, Qt.MouseButton.LeftButton)
    assert sessions.search.text() == ""
    qtbot.waitUntil(lambda: len(sessions.titles()) == 4)
    assert not sessions.no_match.isVisible()


def test_the_sidebar_folds_away_and_the_window_works_at_its_smallest(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop
):
    activate(qtbot, window)
    assert window.sidebar.isVisible()
    qtbot.keyClick(
        window.composer.editor,
        Qt.Key.Key_S,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert not window.sidebar.isVisible() and not window.sidebar_action.isChecked()
    window.sidebar_action.trigger()
    assert window.sidebar.isVisible()

    window.resize(window.minimumSize())
    qtbot.waitUntil(lambda: window.width() == window.minimumWidth())
    # Everything needed to chat is on screen, inside the window.
    for widget in (window.composer.editor, window.composer.send_button, window.thread):
        corner = widget.mapTo(window, widget.rect().bottomRight())
        assert widget.isVisible() and window.rect().contains(corner), widget
    assert window.composer.editor.width() > 150
    model_server.enqueue(text_reply("Fits."))
    ask(qtbot, aloop, window, "Small window")
    assert "Fits." in seen.text(window.thread)


def test_a_folded_sidebar_stays_folded_after_a_restart(  # type: ignore[no-untyped-def]
    qtbot, window, workspace, aloop
):
    window.sidebar_action.trigger()
    assert not window.sidebar.isVisible()
    window.close()

    def restart() -> MainWindow:
        again = MainWindow(Workspace.open(workspace.paths.root))
        qtbot.addWidget(again)
        again.show()
        return again

    again = restart()
    assert not again.sidebar.isVisible() and not again.sidebar_action.isChecked()
    assert again.thread.isVisible() and again.composer.editor.isVisible()
    # Ctrl+K shows the list to search it, and it stays shown from then on.
    activate(qtbot, again)
    qtbot.keyClick(again.composer.editor, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert again.sidebar.isVisible() and again.sessions.search.hasFocus()
    again.close()
    third = restart()
    assert third.sidebar.isVisible() and third.sidebar_action.isChecked()


def test_menus_and_help(qtbot, window):  # type: ignore[no-untyped-def]
    titles = [action.text() for action in window.menuBar().actions()]
    assert titles == ["&File", "&Edit", "&View", "&Help"]
    dialog = window.show_shortcuts()
    assert dialog.isVisible()
    rows = dict(dialog.rows())
    assert rows["Ctrl+K"] == "Search Chats" and rows["Ctrl+Shift+C"] == "Copy Last Reply"
    assert rows["Esc"] == "Stop Reply" and "Ctrl+1 … Ctrl+9" in rows
    dialog.close()
    about = window.show_about()
    assert about.isVisible() and "Deskhand" in about.text()
    about.close()


def test_keyboard_shortcuts(qtbot, window, workspace, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(text_reply("One."), text_reply("Two."))
    ask(qtbot, aloop, window, "First chat")
    window.new_chat()
    ask(qtbot, aloop, window, "Second chat")
    activate(qtbot, window)
    ctrl = Qt.KeyboardModifier.ControlModifier

    qtbot.keyClick(window.composer.editor, Qt.Key.Key_K, ctrl)
    assert window.sessions.search.hasFocus()
    qtbot.keyClick(window.sessions.search, Qt.Key.Key_2, ctrl)
    assert window.windowTitle() == "First chat — Deskhand"
    qtbot.keyClick(window.sessions.search, Qt.Key.Key_1, ctrl)
    assert window.windowTitle() == "Second chat — Deskhand"
    qtbot.keyClick(window.sessions.search, Qt.Key.Key_N, ctrl)
    assert window.current_session_id is None and window.composer.editor.hasFocus()

    # Esc stops a running reply wherever the focus is.
    model_server.enqueue(Hang(text="A slow start"))
    type_and_send(qtbot, window, "Slowly")
    settle(aloop, lambda: "A slow start" in seen.text(window.thread), "the reply")
    window.sessions.list.setFocus()
    qtbot.keyClick(window.sessions.list, Qt.Key.Key_Escape)
    finish_turn(aloop, window)
    assert turn_log(window.conversations).last.stopped
    assert not window.stop_action.isEnabled()


class RecordingNotifier(Notifier):
    def __init__(self) -> None:
        super().__init__(None)
        self.posted: list[tuple[str, str]] = []

    def notify(self, title: str, body: str, session_id: int | None = None) -> bool:
        self.posted.append((title, body))
        self.session_id = session_id
        return True


def make_inactive(qtbot, window: MainWindow) -> QWidget:  # type: ignore[no-untyped-def]
    other = QLabel("another app")
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: not window.isActiveWindow())
    return other


def test_a_long_turn_that_ends_in_the_background_is_announced(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop, monkeypatch
):
    notifier = window.long_turns.notifier = RecordingNotifier()
    monkeypatch.setattr(tray_module, "LONG_TURN_SECONDS", 0.2)
    model_server.enqueue(
        Reply(
            blocks=[Text(text="The report is ready: " + "word " * 10, chunk_size=4)],
            chunk_delay=0.03,
        ),
        text_reply("Short one."),
        Reply(blocks=[Text(text="Done again.", chunk_size=1)], chunk_delay=0.05),
    )
    make_inactive(qtbot, window)
    ask(qtbot, aloop, window, "Write the report")
    [(title, body)] = notifier.posted
    assert title == "Write the report" and body.startswith("The report is ready: word")

    # A quick turn is not announced, nor one the person watched to the end.
    monkeypatch.setattr(tray_module, "LONG_TURN_SECONDS", 5.0)
    ask(qtbot, aloop, window, "Quick")
    monkeypatch.setattr(tray_module, "LONG_TURN_SECONDS", 0.2)
    activate(qtbot, window)
    ask(qtbot, aloop, window, "Watched")
    assert len(notifier.posted) == 1


def test_clicking_the_notification_opens_its_chat_in_front(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop, monkeypatch
):
    notifier = window.long_turns.notifier = RecordingNotifier()
    monkeypatch.setattr(tray_module, "LONG_TURN_SECONDS", 0.2)
    model_server.enqueue(
        Reply(blocks=[Text(text="The report is ready.", chunk_size=2)], chunk_delay=0.03),
        text_reply("Meanwhile, hello."),
    )
    make_inactive(qtbot, window)
    type_and_send(qtbot, window, "Write the report")
    report = window.current_session_id
    window.new_chat()  # the person moves on to another chat
    finish_turn(aloop, window)
    assert [title for title, _ in notifier.posted] == ["Write the report"]
    monkeypatch.setattr(tray_module, "LONG_TURN_SECONDS", 60.0)  # however slow this machine
    ask(qtbot, aloop, window, "Hello")  # a chat of its own, open when the click comes
    assert len(notifier.posted) == 1
    window.showMinimized()
    qtbot.waitUntil(window.isMinimized)

    window.tray.icon.messageClicked.emit()
    qtbot.waitUntil(window.isActiveWindow)
    assert not window.isMinimized()
    assert window.current_session_id == report
    assert window.windowTitle() == "Write the report — Deskhand"
    assert "The report is ready." in seen.text(window.thread)
    current = window.sessions.list.currentItem()
    assert current is not None and current.text() == "Write the report"


@pytest.fixture
def session_bus(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private D-Bus session bus, and a monitor writing every message on it to a file."""
    if not shutil.which("dbus-daemon") or not shutil.which("dbus-monitor"):
        pytest.skip("needs dbus-daemon and dbus-monitor (Debian: dbus-daemon, dbus-bin)")
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"dbus-monitor-{os.getpid()}.txt"
    with log.open("w") as out:
        monitor = subprocess.Popen(["dbus-monitor", "--address", address], stdout=out)
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    try:
        deadline = time.monotonic() + 5
        while "NameAcquired" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.02)
        yield log
    finally:
        monitor.terminate()
        daemon.terminate()
        monitor.wait(5)
        daemon.wait(5)
        log.unlink(missing_ok=True)


def test_notifications_reach_the_desktop_notification_service(qtbot, session_bus) -> None:  # type: ignore[no-untyped-def]
    assert Notifier(None).notify('Plan "B" ready', "Claude has finished.\nSee the chat.")
    qtbot.waitUntil(lambda: "member=Notify" in session_bus.read_text(), timeout=10_000)
    call = session_bus.read_text().split("member=Notify", 1)[1]
    assert 'string "Plan \\"B\\" ready"' in call or 'string "Plan "B" ready"' in call
    assert "Claude has finished." in call


def test_clicking_a_linux_notification_opens_its_chat_in_front(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop, monkeypatch, session_bus
):
    service = NotificationService(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    try:
        monkeypatch.setattr(tray_module, "LONG_TURN_SECONDS", 0.2)
        model_server.enqueue(
            Reply(blocks=[Text(text="The report is ready.", chunk_size=2)], chunk_delay=0.03),
            text_reply("Meanwhile, hello."),
        )
        make_inactive(qtbot, window)
        type_and_send(qtbot, window, "Write the report")
        report = window.current_session_id
        window.new_chat()
        finish_turn(aloop, window)
        settle(aloop, lambda: bool(service.posted), "the notification")
        [posted] = service.posted
        assert posted.title == "Write the report" and posted.body == "The report is ready."
        assert "default" in posted.actions  # what makes the notification clickable
        monkeypatch.setattr(tray_module, "LONG_TURN_SECONDS", 60.0)
        ask(qtbot, aloop, window, "Hello")
        window.showMinimized()
        qtbot.waitUntil(window.isMinimized)

        service.click(posted.id)
        settle(aloop, window.isActiveWindow, "the window in front")
        assert window.current_session_id == report
        assert "The report is ready." in seen.text(window.thread)
    finally:
        aloop.run_until_complete(window.long_turns.notifier.close())
        service.close()


def test_the_tray_menu_opens_a_new_chat_shows_the_window_and_quits(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop
):
    model_server.enqueue(text_reply("Hi."))
    ask(qtbot, aloop, window, "Hello")
    tray = window.tray
    assert [a.text() for a in tray.menu.actions() if a.text()] == [
        "New Chat",
        "Show Deskhand",
        "Quit Deskhand",
    ]
    window.hide()
    tray.show_action.trigger()
    assert window.isVisible()
    tray.new_chat_action.trigger()
    assert window.current_session_id is None and window.isVisible()
    tray.quit_action.trigger()
    qtbot.waitUntil(lambda: not window.isVisible())
    assert QApplication.instance() is not None

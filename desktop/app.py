"""Composition root: the QApplication and its qasync loop, the workspace, and the main window.

The window shows first. What it does not need to show (the SDK, Playwright, the browser and
screen tools: more than a second to import) loads after its first paint, in the background
(`desktop/system/heavy.py`, the one place those modules are imported); a message sent before
they are in waits for them there, without holding up the window.

Quitting, however it is asked for (the window closed, Quit in the menu or the Dock, logout,
SIGTERM, Ctrl+C in a terminal), starts one shutdown that runs on the live loop: the window
stops its replies, the tools and the stream process close, and only then does the Qt loop end.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import logging.handlers
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import qasync
from PySide6.QtCore import (
    QEvent,
    QMessageLogContext,
    QtMsgType,
    Signal,
    qInstallMessageHandler,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from desktop.system import heavy
from desktop.system.login_path import adopt_login_path
from desktop.system.paths import DataPaths
from desktop.system.playwright_env import configure_playwright
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from ui import theme

log = logging.getLogger(__name__)

QUIT_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
CLOSE_LIMIT = 15.0  # seconds one part may take to close before quitting goes on without it


class DeskhandApplication(QApplication):
    """A QApplication whose quit is a request: it announces it and lets the app close first.

    Qt ends its loop on the Quit event (sent by `quit()`, the last window closing, the Dock's
    Quit, logout). Everything the app holds closes on that loop, so the event only starts the
    shutdown; the loop ends when `_main` returns.
    """

    quit_requested = Signal()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Quit:
            self.quit_requested.emit()
            return True
        return super().event(event)


def _quiet_while_quitting(loop: asyncio.AbstractEventLoop, quitting: asyncio.Event) -> None:
    """Once quitting, a helper process that went first (Ctrl+C in a terminal reaches the whole
    process group: the browser's driver too) leaves futures failed that nobody will read. They
    are expected then: logged plainly, not as errors. Before quitting, every one is an error."""
    default = loop.get_exception_handler()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
        if quitting.is_set():
            log.info("while quitting: %s (%s)", context.get("message"), context.get("exception"))
        elif default is not None:
            default(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handle)


def _quit_on_signals(app: QApplication, loop: asyncio.AbstractEventLoop) -> None:
    """SIGTERM, SIGINT and SIGHUP quit like the menu does; a second one ends the app at once."""

    def quit_once() -> None:
        for number in QUIT_SIGNALS:
            loop.remove_signal_handler(number)
            signal.signal(number, signal.SIG_DFL)  # if closing hangs, the next one ends it
        app.quit()

    for number in QUIT_SIGNALS:
        loop.add_signal_handler(number, quit_once)


async def _close(name: str, closing: Callable[[], Awaitable[None]]) -> None:
    """Start or close one part; one that fails or hangs is logged, and the app goes on."""
    try:
        async with asyncio.timeout(CLOSE_LIMIT):
            await closing()
    except Exception:
        log.exception("The %s failed to start or close", name)


# The window's icon as it first shows: the sizes a title bar, a task bar and a switcher draw.
# The large ones (a dock on a high-density screen) join after the first paint: on X11 the window
# carries every size in a property of its own, and 256 and 512 px took the launch 10 ms.
FIRST_ICON_SIZES = (16, 32, 48, 64, 128)
ICON_SIZES = (*FIRST_ICON_SIZES, 256, 512)


def _app_icon(sizes: tuple[int, ...] = ICON_SIZES) -> QIcon:
    """Deskhand's icon: inside a bundle (sys._MEIPASS), else in the source tree's assets/."""
    base = Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parents[1]))
    icon = QIcon()
    for size in sizes:
        path = base / "assets" / "icons" / f"deskhand-{size}.png"
        if path.is_file():
            icon.addFile(str(path))
    return icon if not icon.isNull() else QIcon.fromTheme("dialog-information")


def start_behind_the_window(workspace: Workspace) -> asyncio.Future[None]:
    """What starts once the window is on screen, while the person reads it: the stream process
    loads the SDK on its own core, the tools load on a thread here (`heavy`), and the tool
    sources start (an MCP server may take seconds to answer). None of it holds up the loop.

    The modules load in the order a message sent at once needs them: the call pipeline, the
    keychain (the key is looked up while the rest loads), the routines (the window's section
    joins it a moment after its first paint), the SDK and the tools (the request lists them),
    then what the reply's rendering needs (the Markdown parser and view, Pillow), then the
    command-line socket, then the schedules' libraries. Returns the sources' start."""
    from desktop.model_stream.worker import shared_worker  # the stream process's side here
    from ui.window.main_window import REPLY_MODULES, ROUTINE_MODULES  # in: the window shows

    shared_worker().start()
    heavy.start(
        heavy.PIPELINE
        + heavy.KEYCHAIN
        + ROUTINE_MODULES
        + heavy.TOOLS
        + heavy.WINDOW
        + REPLY_MODULES
        + heavy.COMMANDS
        + heavy.SCHEDULES
    )

    async def start_tools() -> None:
        await heavy.ready(heavy.PIPELINE)
        await workspace.toolbox.start()

    return asyncio.ensure_future(_close("tool sources", start_tools))


def freeze_startup_objects() -> None:
    """Take what startup built (modules, classes, the window) out of the collector's sight.

    They live as long as the app; left in, every full collection walks them all (about
    100 ms with Qt and the SDK loaded), and one can fall in the middle of a reply. No
    collection first: that would be such a stall itself.
    """
    gc.freeze()


_QT_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}


def _log_qt_message(kind: QtMsgType, _context: QMessageLogContext, message: str) -> None:
    """Qt's own messages go to Deskhand's log, beside ours, rather than to the terminal."""
    logging.getLogger("qt").log(_QT_LEVELS.get(kind, logging.WARNING), "%s", message)


def _setup_logging(paths: DataPaths) -> None:
    handler = logging.handlers.RotatingFileHandler(
        paths.logs / "deskhand.log", maxBytes=2_000_000, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    qInstallMessageHandler(_log_qt_message)


async def _main(app: DeskhandApplication, args: argparse.Namespace) -> int:
    from ui.first_paint import first_paint
    from ui.window.main_window import MainWindow

    quitting = asyncio.Event()
    app.quit_requested.connect(quitting.set)  # first: a quit while starting up is not lost
    _quiet_while_quitting(asyncio.get_running_loop(), quitting)
    paths = DataPaths.for_data_dir(args.data_dir)
    try:
        paths.ensure()
    except OSError as exc:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.critical(
            None, "Deskhand", f"Deskhand cannot write to {paths.root}:\n{exc.strerror}"
        )
        return 1
    _setup_logging(paths)
    await adopt_login_path()  # opened from the Finder: the login shell's PATH, before tools exist
    mode = Mode(args.permission_mode) if args.permission_mode else None
    workspace = Workspace(paths, mode=mode)
    window = MainWindow(workspace)
    window.show()
    await first_paint(window)
    gc.enable()  # off while the window was built (desktop/__main__.py)
    starting = start_behind_the_window(workspace)
    if args.send:
        window.send(args.send)  # at once: the turn waits for what it needs, not the window
    from ui.window.main_window import ROUTINE_MODULES

    await heavy.ready(ROUTINE_MODULES)
    window.add_routines()
    await heavy.ready(heavy.COMMANDS)
    from desktop.command.listener import UiServer

    commands = UiServer(workspace)  # `deskhand ui …` from the person's terminal
    await _close("command-line socket", commands.start)
    await _close("background loading", heavy.ready)
    app.setWindowIcon(_app_icon())  # every size now (FIRST_ICON_SIZES), off the busy start
    # The browser's driver, so the first browser call does not wait for it either.
    preparing = asyncio.ensure_future(_close("browser driver", workspace.prepare_browser))
    # The system-wide shortcut: only the Deskhand that owns the socket takes it.
    from ui.window.quick_entry import QuickEntryController

    quick_entry = QuickEntryController(window)
    await _close("quick entry shortcut", lambda: quick_entry.start(owner=commands.serving))
    # Scheduled routines: missed runs first, then each on time. A click on a scheduled run's
    # notification opens its chat (and the sheet it waits on).

    def open_chat(chat: int) -> None:
        window.bring_to_front()  # the person clicked: their hand, not ours
        window.open_session(chat)

    workspace.unattended.open_chat = open_chat
    if not sys.platform.startswith("linux"):  # the tray's messages (Notification Center)

        async def post(title: str, body: str, chat: int) -> bool:
            return window.long_turns.notifier.notify(title, body, chat)

        workspace.unattended.post = post
    workspace.scheduler.start()
    if workspace.settings.general.open_at_login:
        workspace.keep_login_item()
    freeze_startup_objects()
    await quitting.wait()
    starting.cancel()
    preparing.cancel()
    quick_entry.close()
    await _close("scheduler", workspace.scheduler.close)
    await _close("command-line socket", commands.close)
    window.close()  # gone from the screen at once; stopping its replies saves what they wrote
    await _close("window", window.shutdown)
    await _close("tools", workspace.close)
    from desktop.model_stream.worker import shared_worker

    await _close("stream process", shared_worker().close)
    return 0


def run(args: argparse.Namespace) -> int:
    configure_playwright()  # in a bundle: browsers in the per-user cache; before Playwright starts
    app = DeskhandApplication(theme.application_arguments(sys.argv))
    app.setApplicationName("Deskhand")
    app.setOrganizationName("Deskhand")
    app.setDesktopFileName(
        "deskhand"
    )  # matches the launcher entry (desktop/system/desktop_entry.py)
    app.setWindowIcon(_app_icon(FIRST_ICON_SIZES))
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    _quit_on_signals(app, loop)
    with loop:
        return loop.run_until_complete(_main(app, args))

"""Composition root: the QApplication and its qasync loop, the workspace, and the main window.

The window shows first. What it does not need to show (the SDK, Playwright: more than a
second to import) loads after its first paint, on a thread, so the first reply does not
wait for it either.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import logging
import logging.handlers
import sys
from collections.abc import Callable
from pathlib import Path

import qasync
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from desktop.login_path import adopt_login_path
from desktop.paths import DataPaths
from desktop.permissions import Mode
from desktop.playwright_env import configure_playwright
from desktop.stream_worker import shared_worker
from desktop.workspace import Workspace


def _app_icon() -> QIcon:
    """Deskhand's icon: inside a bundle (sys._MEIPASS), else in the source tree's assets/."""
    base = Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parents[1]))
    icon = QIcon()
    for size in (16, 32, 48, 64, 128, 256, 512):
        path = base / "assets" / "icons" / f"deskhand-{size}.png"
        if path.is_file():
            icon.addFile(str(path))
    return icon if not icon.isNull() else QIcon.fromTheme("dialog-information")


# Loaded after the first paint: the model's SDK and the browser tool (Playwright).
AFTER_FIRST_PAINT = ("anthropic", "tools.browser.driver", "tools.browser.pool")
FIRST_PAINT_WAIT_S = 3.0

log = logging.getLogger(__name__)


class _FirstPaint(QObject):
    """Resolves `painted` when the watched widget is first painted."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.painted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self.painted.done():
            self.painted.set_result(None)
        return False


async def after_first_paint(widget: QWidget, then: Callable[[], None] | None = None) -> None:
    """Once `widget` is on screen: call `then`, and load what the first reply needs, off
    the event loop."""
    watcher = _FirstPaint(widget)
    try:
        await asyncio.wait_for(watcher.painted, FIRST_PAINT_WAIT_S)
    except TimeoutError:
        pass  # never painted (minimised, offscreen): load anyway
    widget.removeEventFilter(watcher)
    if then is not None:
        then()

    def load() -> None:
        for name in AFTER_FIRST_PAINT:
            try:
                importlib.import_module(name)
            except ImportError:  # the tool that needs it reports that when used
                log.warning("could not load %s", name, exc_info=True)

    await asyncio.to_thread(load)


def freeze_startup_objects() -> None:
    """Take what startup built (modules, classes, the window) out of the collector's sight.

    They live as long as the app; left in, every full collection walks them all (about
    100 ms with Qt and the SDK loaded), and one can fall in the middle of a reply.
    """
    gc.collect()
    gc.freeze()


def _setup_logging(paths: DataPaths) -> None:
    handler = logging.handlers.RotatingFileHandler(
        paths.logs / "deskhand.log", maxBytes=2_000_000, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])


async def _main(app: QApplication, args: argparse.Namespace) -> int:
    from ui.main_window import MainWindow

    paths = DataPaths.for_data_dir(args.data_dir)
    try:
        paths.ensure()
    except OSError as exc:
        QMessageBox.critical(
            None, "Deskhand", f"Deskhand cannot write to {paths.root}:\n{exc.strerror}"
        )
        return 1
    _setup_logging(paths)
    await adopt_login_path()  # opened from the Finder: the login shell's PATH, before tools exist
    mode = Mode(args.permission_mode) if args.permission_mode else None
    streams = shared_worker()
    workspace = Workspace(paths, mode=mode)
    quitting = asyncio.Event()
    app.aboutToQuit.connect(quitting.set)
    window = MainWindow(workspace)
    window.show()
    # Once it is on screen: the stream process loads the SDK on its own core while the person
    # reads the window, so the first reply is quick (a send before that starts it anyway).
    await after_first_paint(window, then=streams.start)
    freeze_startup_objects()
    await quitting.wait()
    await window.shutdown()
    await workspace.close()
    await streams.close()
    return 0


def run(args: argparse.Namespace) -> int:
    configure_playwright()  # in a bundle: browsers in the per-user cache; before Playwright starts
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("Deskhand")
    app.setOrganizationName("Deskhand")
    app.setDesktopFileName("deskhand")  # matches the launcher entry (desktop/desktop_entry.py)
    app.setWindowIcon(_app_icon())
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        return loop.run_until_complete(_main(app, args))

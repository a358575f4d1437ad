"""Composition root: the QApplication and its qasync loop, the workspace, and the main window."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import logging.handlers
import sys
from pathlib import Path

import qasync
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

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
    streams.start()  # it loads the SDK while the person reads the window: the first reply is quick
    workspace = Workspace(paths, mode=mode)
    quitting = asyncio.Event()
    app.aboutToQuit.connect(quitting.set)
    window = MainWindow(workspace)
    window.show()
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

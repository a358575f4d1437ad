"""Composition root: the QApplication and its qasync loop, the workspace, and the main window."""

from __future__ import annotations

import argparse
import asyncio
import logging
import logging.handlers
import sys

import qasync
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop.paths import DataPaths
from desktop.permissions import Mode
from desktop.workspace import Workspace


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
    mode = Mode(args.permission_mode) if args.permission_mode else None
    workspace = Workspace(paths, mode=mode)
    quitting = asyncio.Event()
    app.aboutToQuit.connect(quitting.set)
    window = MainWindow(workspace)
    window.show()
    await quitting.wait()
    await window.shutdown()
    await workspace.close()
    return 0


def run(args: argparse.Namespace) -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("Deskhand")
    app.setOrganizationName("Deskhand")
    app.setWindowIcon(QIcon.fromTheme("dialog-information"))
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        return loop.run_until_complete(_main(app, args))

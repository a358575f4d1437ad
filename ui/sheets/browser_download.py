"""The first-use offer to download Chromium, with a progress bar.

Shown when the browser tool is first needed and `preferred_browser()` found nothing. It
explains why, offers the download, shows progress item by item, and on failure says what
went wrong with the installer's last lines under "Details" and a Try again button. The
work itself is `desktop.system.playwright_env.download_chromium`; this file only shows it. Opened
with `open()`, never `exec()`: `await BrowserDownloadDialog(parent).ask()`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.system.playwright_env import (
    BrowserDownloadFailed,
    DownloadProgress,
    default_browsers_path,
    download_chromium,
)
from ui.boxes import STRETCH, boxed

Download = Callable[[], AsyncGenerator[DownloadProgress, None]]

OFFER = (
    "Deskhand's browser tool needs Google Chrome, Microsoft Edge or Chromium, and none was "
    "found on this computer.\n\nDownload Chromium now? It is about 170 MB and is kept in "
    "{path}, where other Playwright tools can share it. Installing Google Chrome works too: "
    "Deskhand prefers it when it is there."
)


class BrowserDownloadDialog(QDialog):
    """Offer → download with progress → done, or the reason it failed and Try again."""

    succeeded = Signal()
    failed = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, download: Download = download_chromium):
        super().__init__(parent)
        self._download = download
        self._task: asyncio.Task[None] | None = None
        self._answer: asyncio.Future[bool] | None = None
        self.setWindowTitle("Download Chromium")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(480)

        self.message = QLabel(OFFER.format(path=default_browsers_path()))
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.item = QLabel()
        self.item.setTextFormat(Qt.TextFormat.PlainText)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setMaximumHeight(140)
        self.details_button = QPushButton("Details")
        self.details_button.setCheckable(True)
        self.details_button.toggled.connect(self.details.setVisible)
        self.download_button = QPushButton("Download Chromium")
        self.download_button.setDefault(True)
        self.download_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Not now")
        self.cancel_button.clicked.connect(self.reject)

        buttons = boxed(
            QHBoxLayout(), self.details_button, STRETCH, self.cancel_button, self.download_button
        )
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.item)
        layout.addWidget(self.progress)
        layout.addWidget(self.details)
        layout.addLayout(buttons)
        for widget in (self.item, self.progress, self.details, self.details_button):
            widget.hide()
        self.finished.connect(self._closed)

    async def ask(self) -> bool:
        """Show the offer; True once Chromium is downloaded, False if the person declined or gave up."""
        self._answer = asyncio.get_running_loop().create_future()
        self.open()
        return await self._answer

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self.running:
            return
        self.message.setText("Downloading Chromium…")
        self.item.setText("Starting the download…")
        self.progress.setValue(0)
        self.details.clear()
        shown: tuple[QWidget, ...] = (self.item, self.progress)
        hidden: tuple[QWidget, ...] = (self.details, self.details_button, self.download_button)
        for widget in shown:
            widget.show()
        for widget in hidden:
            widget.hide()
        self.cancel_button.setText("Cancel")
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        try:
            async with contextlib.aclosing(self._download()) as steps:
                async for step in steps:
                    self._show(step)
        except BrowserDownloadFailed as failure:
            self._show_failure(failure)
            return
        self.item.setText("Chromium is ready.")
        self.progress.setValue(100)
        self.succeeded.emit()
        self.accept()

    def _show(self, step: DownloadProgress) -> None:
        if step.line:
            self.details.appendPlainText(step.line)
        if step.percent is None:
            return
        size = f" of {step.size}" if step.size else ""
        state = "done" if step.finished else f"{step.percent}%{size}"
        self.item.setText(f"{step.title}: {state}")
        self.progress.setValue(step.percent)

    def _show_failure(self, failure: BrowserDownloadFailed) -> None:
        self.message.setText(failure.message)
        if failure.output:
            self.details.setPlainText(failure.output)
        self.item.hide()
        self.progress.hide()
        self.details_button.setChecked(False)
        self.details_button.setVisible(bool(failure.output))
        self.download_button.setText("Try again")
        self.download_button.show()
        self.cancel_button.setText("Close")
        self.failed.emit(failure.message)

    def _closed(self, result: int) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()  # Cancel: aclosing() ends the installer process
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(result == QDialog.DialogCode.Accepted)

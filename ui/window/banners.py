"""The banners above the chat: what the person should know at start, and the browser offer.

A `NoticeBanner` says something once (a history moved aside, a setting not honoured) and can be
dismissed. `BrowserOffer` shows one when the browser tool is on but no browser was found, with
a button that opens the download dialog; the banner goes once a browser is there.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStatusBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.system.browser_setup import find_browser
from desktop.workspace import Workspace

if TYPE_CHECKING:
    from ui.sheets.browser_download import BrowserDownloadDialog

NO_BROWSER = (
    "Claude can use a browser for you, but none was found on this computer. "
    "Download Chromium (about 170 MB), or install Google Chrome."
)


class NoticeBanner(QFrame):
    """Something the person should know at start (a history moved aside...); dismissable."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noticeBanner")
        self.label = QLabel(text)
        self.label.setObjectName("noticeBannerText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setObjectName("noticeBannerClose")
        close.setText("✕")
        close.setToolTip("Dismiss")
        close.clicked.connect(self.deleteLater)
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(14, 8, 8, 8)
        self.row.addWidget(self.label, 1)
        self.row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)


class BrowserOffer:
    """The "no browser" banner in `banners`, and the download it offers."""

    def __init__(
        self, workspace: Workspace, banners: QVBoxLayout, parent: QWidget, status: QStatusBar
    ) -> None:
        self.workspace = workspace
        self.parent = parent
        self.status = status
        self.banner: NoticeBanner | None = None
        self.dialog: BrowserDownloadDialog | None = None
        self.task: asyncio.Future[bool] | None = None
        browser = workspace.settings.browser
        if not browser.enabled or find_browser(browser.executable_path.strip() or None) is not None:
            return
        self.banner = NoticeBanner(NO_BROWSER)
        button = QPushButton("Download Chromium…")
        button.setObjectName("browserDownloadButton")
        button.clicked.connect(self.download)
        self.banner.row.insertWidget(1, button)
        banners.addWidget(self.banner)

    def download(self) -> None:
        """The download offer with its progress bar."""
        from ui.sheets.browser_download import BrowserDownloadDialog  # opened on first use

        dialog = BrowserDownloadDialog(self.parent)
        dialog.succeeded.connect(self._downloaded)
        self.dialog = dialog
        self.task = asyncio.ensure_future(dialog.ask())

    def _downloaded(self) -> None:
        if self.banner is not None and shiboken6.isValid(self.banner):
            self.banner.deleteLater()
        self.banner = None
        self.status.showMessage("Chromium is ready: Claude can use the browser.", 5000)

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()


STYLE = """
#noticeBanner {
    background: $warning_bg; border: 1px solid $warning_border; border-radius: 8px; margin-top: 10px;
}
#noticeBannerText { color: $warning_text; }
#noticeBannerClose { border: none; background: transparent; color: $warning; }
"""

"""A card for one tool call in the thread: what runs, its progress, how it ended, its images."""

from __future__ import annotations

from collections.abc import Sequence

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui.image_viewer import ImageThumbnail, ImageViewer
from ui.labels import StableHints, WrappingLabel

MAX_PROGRESS_LINES = 6


def _plain_label(text: str, object_name: str) -> WrappingLabel:
    label = WrappingLabel(text)
    label.setObjectName(object_name)
    return label


OUTCOME_STATES = {
    "ok": ("done", "Done"),
    "error": ("failed", "Failed"),
    "denied": ("denied", "Denied by you"),
    "blocked": ("denied", "Blocked by your rule"),
    "stopped": ("failed", "Stopped"),
}


class ToolCard(StableHints, QFrame):
    # The person lets a refused host through: (host, always); in this chat when not always.
    allow_requested = Signal(str, bool)

    """One tool call: label and state in the header, progress lines, the outcome and its images.

    The header's arrow collapses the body; images show as thumbnails that open the viewer.
    """

    def __init__(self, label: str, detail: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolCard")
        self.setProperty("state", "running")
        self.title = _plain_label(label, "toolTitle")
        self.state = QLabel("Running…")
        self.state.setObjectName("toolState")
        self.toggle = QToolButton()
        self.toggle.setObjectName("toolToggle")
        self.toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolTip("Collapse or expand")
        self.expanded = True
        self.toggle.clicked.connect(lambda: self.set_expanded(not self.expanded))
        self.detail = _plain_label(detail, "toolDetail")
        self.progress = _plain_label("", "toolProgress")
        self.outcome = _plain_label("", "toolOutcome")
        self.notices = _plain_label("", "toolNotices")
        self.offers = QHBoxLayout()
        self.offers.setContentsMargins(0, 2, 0, 0)
        self.offer_buttons: list[QToolButton] = []
        self.images = QHBoxLayout()
        self.images.setContentsMargins(0, 4, 0, 0)
        self.images.setSpacing(8)
        self.thumbnails: list[ImageThumbnail] = []
        self._viewers: list[ImageViewer] = []
        self._lines: list[str] = []

        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignTop)
        header.addWidget(self.title, 1)
        header.addWidget(self.state, 0, Qt.AlignmentFlag.AlignTop)
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(22, 0, 0, 0)
        body.setSpacing(4)
        body.addWidget(self.detail)
        body.addWidget(self.progress)
        body.addWidget(self.outcome)
        body.addWidget(self.notices)
        body.addLayout(self.offers)
        body.addLayout(self.images)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 12, 8)
        layout.setSpacing(2)
        layout.addLayout(header)
        layout.addWidget(self.body)
        self._update_body()

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.body.setVisible(expanded)

    def _update_body(self) -> None:
        self.detail.setVisible(bool(self.detail.text()))
        self.progress.setVisible(bool(self._lines))
        self.outcome.setVisible(bool(self.outcome.text()))
        self.notices.setVisible(bool(self.notices.text()))

    def add_progress(self, line: str) -> None:
        # Only the latest lines matter while it runs; a chatty tool must not grow the thread.
        self._lines = [*self._lines, line][-MAX_PROGRESS_LINES:]
        self.progress.setText("\n".join(self._lines))
        self._update_body()

    def finish(
        self,
        *,
        is_error: bool,
        summary: str,
        images: Sequence[str] | int = (),
        outcome: str | None = None,
        notices: Sequence[str] = (),
        offers: Sequence[str] = (),
    ) -> None:
        state, text = OUTCOME_STATES.get(
            outcome or ("error" if is_error else "ok"), OUTCOME_STATES["error"]
        )
        self.state.setText(text)
        self.setProperty("state", state)
        self.outcome.setProperty("state", state)
        self.outcome.setText(summary.strip())
        self.notices.setText("\n".join(notices))
        for host in offers:
            self._offer(host)
        paths = [] if isinstance(images, int) else list(images)
        for path in paths:
            thumbnail = ImageThumbnail(path)
            thumbnail.opened.connect(self.open_image)
            self.thumbnails.append(thumbnail)
            self.images.addWidget(thumbnail)
        if paths:
            self.images.addStretch(1)
        self._update_body()
        # Dynamic properties only restyle after a re-polish.
        for widget in (self, self.outcome):
            widget.style().unpolish(widget)
            widget.style().polish(widget)

    def _offer(self, host: str) -> None:
        """A button only the person can press: let `host` through, in this chat or always."""
        button = QToolButton()
        button.setObjectName("toolOffer")
        button.setText(f"Allow {host}…")
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(button)
        menu.addAction("In this chat", lambda: self.allow_requested.emit(host, False))
        menu.addAction("Always", lambda: self.allow_requested.emit(host, True))
        button.setMenu(menu)
        self.offer_buttons.append(button)
        self.offers.addWidget(button)
        self.offers.addStretch(1)

    def open_image(self, path: str) -> ImageViewer:
        viewer = ImageViewer(path, self.window())
        viewer.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._viewers = [v for v in self._viewers if shiboken6.isValid(v)] + [viewer]
        viewer.open()
        return viewer

    @property
    def finished(self) -> bool:
        return self.property("state") != "running"

    def plain_text(self) -> str:
        parts = [self.title.text(), self.state.text(), self.detail.text(), *self._lines]
        parts.append(self.outcome.text())
        return "\n".join(part for part in parts if part)


STYLE = """
#toolCard { background: #fafbfc; border: 1px solid #dfe3e8; border-radius: 8px; }
#toolCard[state="failed"] { border-color: #f0b8b4; }
#toolTitle { font-weight: 600; color: #24292f; }
#toolState { color: #6e7781; }
#toolDetail, #toolProgress { color: #57606a; }
#toolOutcome { color: #24292f; }
#toolOutcome[state="failed"] { color: #b42318; }
#toolCard[state="denied"] { border-color: #e8c9a0; background: #fffaf2; }
#toolCard[state="denied"] #toolState { color: #8a5a00; font-weight: 600; }
#toolToggle { border: none; padding: 0; }
"""

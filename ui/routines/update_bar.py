"""The bar over a routine's run that healed: "This run healed N steps.", the changed steps as a
diff (Show Changes), and Update Routine, which writes them into the routine so that its next
run replays them without Claude. It shows only over the chat of that run."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.routines.service import UpdateOffer
from ui import theme

MAX_DIFF_LINES = 10


def healed_text(offer: UpdateOffer) -> str:
    count = max(offer.healed, 1)
    steps, them = ("step", "it") if count == 1 else ("steps", "them")
    return (
        f"This run healed {count} {steps}: Claude did {them} again where the page or window "
        f"had changed. Update “{offer.name}” to replay {them} without Claude next time."
    )


class UpdateBar(QFrame):
    """Offers one healed run's update; `update_requested(chat_id)`, `dismissed(chat_id)`."""

    update_requested = Signal(int)
    dismissed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("routineUpdateBar")
        self.offer: UpdateOffer | None = None
        self.label = QLabel()
        self.label.setObjectName("routineUpdateText")
        self.label.setWordWrap(True)
        self.changes_button = QPushButton("Show Changes")
        self.changes_button.setObjectName("routineUpdateChanges")
        self.changes_button.setCheckable(True)
        self.changes_button.toggled.connect(self._show_changes)
        self.update_button = QPushButton("Update Routine")
        self.update_button.setObjectName("routineUpdateButton")
        self.update_button.clicked.connect(self._update)
        close = QToolButton()
        close.setObjectName("routineUpdateClose")
        close.setText("✕")
        close.setToolTip("Not now (the routine stays as it was)")
        close.clicked.connect(self._dismiss)
        self.diff = QTextBrowser()
        self.diff.setObjectName("routineUpdateDiff")
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff.setLineWrapMode(QTextBrowser.LineWrapMode.NoWrap)
        self.diff.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        row.addWidget(self.label, 1)
        row.addWidget(self.changes_button, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.update_button, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 8, 8, 8)
        layout.setSpacing(6)
        layout.addLayout(row)
        layout.addWidget(self.diff)
        theme.theme().changed.connect(self._restyled)
        self.hide()

    def show_offer(self, offer: UpdateOffer | None) -> None:
        """Offer `offer` (None: nothing to offer, the bar goes)."""
        if offer == self.offer:
            self.setVisible(offer is not None)
            return
        self.offer = offer
        if offer is None:
            self.hide()
            return
        self.label.setText(healed_text(offer))
        self.changes_button.setChecked(False)
        self._fill_diff()
        self.show()

    def changes(self) -> list[str]:
        """The diff's lines as the person reads them."""
        return self.diff.toPlainText().splitlines()

    def _fill_diff(self) -> None:
        if self.offer is None:
            return
        colours = theme.theme().palette.tokens()
        lines = []
        for line in self.offer.diff:
            if line.startswith(("---", "+++")):
                continue  # "recorded" and "healed" are said by the colours and signs
            colour = colours["text_muted"]
            if line.startswith("+"):
                colour = colours["success"]
            elif line.startswith("-"):
                colour = colours["danger"]
            lines.append(f'<span style="color:{colour}">{escape(line)}</span>')
        self.diff.setHtml(f'<pre style="margin:0">{"<br>".join(lines)}</pre>')
        # As tall as its lines, up to a few: the chat under it stays in view.
        shown = min(len(lines), MAX_DIFF_LINES)
        frame = 2 * self.diff.frameWidth() + int(2 * self.diff.document().documentMargin())
        self.diff.setFixedHeight(shown * self.diff.fontMetrics().lineSpacing() + frame + 4)

    def _restyled(self, _palette: object) -> None:
        self._fill_diff()  # the diff's colours are the scheme's

    def _show_changes(self, shown: bool) -> None:
        self.diff.setVisible(shown)
        self.changes_button.setText("Hide Changes" if shown else "Show Changes")

    def _update(self) -> None:
        if self.offer is not None:
            self.update_requested.emit(self.offer.chat_id)

    def _dismiss(self) -> None:
        if self.offer is not None:
            self.dismissed.emit(self.offer.chat_id)
        self.hide()

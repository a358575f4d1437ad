"""The approval sheet: a window-modal question "may Deskhand do exactly this?".

What leads is what the person decides on: the summary, the target, and a risk badge
with its reason. The exact input follows, secondary but always there, with every
invisible or non-ASCII character escaped. It answers the `ApprovalRequest` it was
given. Esc, closing it, and Enter in the reason field deny; Ctrl+Return (Cmd+Return on
a Mac) allows once; for a consequential call the default button is Deny. "Always
allow" says what it will cover (this action, on this site, up to this risk). Opened
with `open()`, never `exec()`, so the asyncio loop keeps running while the person reads.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase, QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import (
    RISK_TITLES,
    Answer,
    Risk,
    RuleScope,
    input_for_approver,
    scope_sentence,
)
from ui.boxes import STRETCH, boxed

ALLOW_KEYS = "⌘↩" if sys.platform == "darwin" else "Ctrl+↩"


def plain_label(text: str, name: str = "", *, muted: bool = False, wrap: bool = True) -> QLabel:
    """A label of a sheet: its text is shown as written, never as rich text (the model, a page
    or an app may have written it)."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    if name:
        label.setObjectName(name)
    if muted:
        label.setEnabled(False)  # the palette's muted text, in light and dark
    return label


class RequestSheet(QDialog):
    """A sheet that answers its `request` once, whichever way it closes: closing it any other
    way than by an answer declines, with what the person wrote in `reason`."""

    reason: QLineEdit

    def __init__(self, request: ApprovalRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(520)
        self._answered = False
        request.on_cancel.append(self._cancelled)

    def _decline(self) -> None:
        self._finish(Answer(allow=False, reason=self.reason.text()))

    def _finish(self, answer: Answer) -> None:
        if not self._answered:
            self._answered = True
            self.request.answer(answer)
        self.accept() if answer.allow else self.reject()

    def reject(self) -> None:  # Esc, the close button, or the declining button
        if not self._answered:
            self._answered = True
            self.request.answer(Answer(allow=False, reason=self.reason.text()))
        super().reject()

    def _cancelled(self) -> None:
        """The turn was stopped while the sheet was open: close it (the gate records it)."""
        self._answered = True
        super().reject()


class ApprovalSheet(RequestSheet):
    """Asks about one tool call; answers `request` once, whichever way the sheet closes."""

    def __init__(self, request: ApprovalRequest, label: str, parent: QWidget | None = None) -> None:
        super().__init__(request, parent)
        call = request.call
        self.setObjectName("approvalSheet")
        self.setWindowTitle("Approve action")
        self._confirm: QMessageBox | None = None

        # Who asks, when it is not Claude in this window's chats (an MCP client over the socket).
        self.asker = plain_label(f"{request.asker} asks:" if request.asker else "", "approvalAsker")
        self.asker.setVisible(bool(request.asker))
        title = plain_label(f"Allow {label}?", "approvalTitle", wrap=False)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        title.setFont(font)

        self.badge = plain_label(
            f"{RISK_TITLES[call.risk]} · {call.reason}", "riskBadge", wrap=False
        )
        self.badge.setProperty("risk", call.risk.value)  # coloured by ui/sheets/style.py
        self.summary = plain_label(call.summary, "approvalSummary")
        self.target = plain_label(f"Target: {call.target}" if call.target else "", wrap=False)
        self.target.setVisible(bool(call.target))
        # Why an approved plan does not cover it: "Not in the plan: elsewhere.example".
        self.plan_note = plain_label(request.note, "approvalPlanNote")
        self.plan_note.setVisible(bool(request.note))
        tool_line = plain_label(
            f"Exact input · tool {call.tool} · action {call.action}",
            "approvalInputTitle",
            muted=True,
            wrap=False,
        )

        self.input_view = QPlainTextEdit(input_for_approver(call))
        self.input_view.setObjectName("approvalInput")
        self.input_view.setReadOnly(True)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setPointSizeF(mono.pointSizeF() * 0.9)
        self.input_view.setFont(mono)
        self.input_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        lines = self.input_view.toPlainText().count("\n") + 1
        metrics = self.input_view.fontMetrics()
        self.input_view.setFixedHeight(min(200, max(48, (lines + 1) * metrics.lineSpacing() + 12)))

        self.reason = QLineEdit()
        reader = "the client" if request.asker else "Claude"  # who gets the reason back
        self.reason.setPlaceholderText(f"Reason for denying (optional, {reader} will read it)")
        self.reason.returnPressed.connect(self._decline)  # Enter here means "no, because…"

        self.scope = RuleScope.of(call)
        self.allow_once = QPushButton(f"Allow once  {ALLOW_KEYS}")
        self.allow_always = QPushButton(
            f"Always allow on {self.scope.site}…" if self.scope.site else "Always allow…"
        )
        self.scope_note = QLabel(scope_sentence(self.scope, label))
        self.scope_note.setObjectName("approvalScope")
        self.scope_note.setTextFormat(Qt.TextFormat.PlainText)
        self.scope_note.setWordWrap(True)
        self.scope_note.setEnabled(False)
        self.allow_always.setToolTip(self.scope_note.text())
        self.deny = QPushButton("Deny  Esc")
        for button in (self.allow_once, self.allow_always, self.deny):
            button.setAutoDefault(False)
        # For a consequential call the safe answer is the default one.
        # So it is for a call that leaves an approved plan: data would go somewhere unplanned.
        safe_first = call.risk is Risk.CONSEQUENTIAL or bool(request.note)
        (self.deny if safe_first else self.allow_once).setDefault(True)
        self.allow_once.clicked.connect(lambda: self._finish(Answer(allow=True)))
        self.allow_always.clicked.connect(self._allow_always)
        self.deny.clicked.connect(self._decline)

        buttons = boxed(QHBoxLayout(), self.allow_always, STRETCH, self.deny, self.allow_once)

        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        layout.addWidget(self.asker)
        layout.addWidget(title)
        layout.addLayout(boxed(QHBoxLayout(), self.badge, STRETCH))
        layout.addWidget(self.summary)
        layout.addWidget(self.target)
        layout.addWidget(self.plan_note)
        layout.addSpacing(4)
        layout.addWidget(tool_line)
        layout.addWidget(self.input_view)
        layout.addWidget(self.reason)
        layout.addLayout(buttons)
        layout.addWidget(self.scope_note)
        # Outside an approved plan, each time is asked: no standing yes is offered.
        self.allow_always.setVisible(not request.note)
        self.scope_note.setVisible(not request.note)
        summary_font = QFont(self.summary.font())
        summary_font.setPointSizeF(summary_font.pointSizeF() * 1.05)
        self.summary.setFont(summary_font)

    def _allow_always(self) -> None:
        if self.request.call.risk is not Risk.CONSEQUENTIAL:
            self._finish(Answer(allow=True, always=True))
            return
        # A standing yes to something that sends, deletes or pays deserves a second look.
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Always allow?",
            f"{self.scope_note.text()} This action can send, delete, pay or run code. "
            "Allow it every time?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.finished.connect(self._confirmed_always)
        self._confirm = box
        box.open()

    def _confirmed_always(self, result: int) -> None:
        self._confirm = None
        if result == QMessageBox.StandardButton.Yes:
            self._finish(Answer(allow=True, always=True))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Enter in the reason field denies, whatever the default button is (the field's
        # returnPressed does that); Ctrl+Return (Cmd+Return on a Mac) elsewhere allows once.
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and self.reason.hasFocus():
            return
        if enter and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.allow_once.click()
            return
        super().keyPressEvent(event)

    def _cancelled(self) -> None:
        if self._confirm is not None:
            self._confirm.close()
        super()._cancelled()

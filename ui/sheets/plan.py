"""The plan sheet: "may Claude work on these sites and apps, this way, without asking each step?"

It shows the approach as a numbered list and the sites and apps as items the person can
remove before approving, and one line on what still asks every time. Approve plan is
Ctrl+Return (Cmd+Return on a Mac); Make changes takes an optional reason that goes back to
Claude, and Esc, closing the sheet, and Enter in the reason field mean Make changes too.
There is no "Always allow": a plan is approved by the person, each time. Opened with
`open()`, never `exec()`, so the asyncio loop keeps running while the person reads.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer
from desktop.calls.sources.plan.book import STILL_ASKS, PlanInput
from ui.boxes import STRETCH, boxed
from ui.sheets.approval import RequestSheet, plain_label

APPROVE_KEYS = "⌘↩" if sys.platform == "darwin" else "Ctrl+↩"


class PlanSheet(RequestSheet):
    """Asks about one proposed plan; answers `request` once, whichever way the sheet closes."""

    def __init__(self, request: ApprovalRequest, parent: QWidget | None = None) -> None:
        super().__init__(request, parent)
        self.setObjectName("planSheet")
        self.setWindowTitle("Approve plan")
        plan = PlanInput.model_validate(request.call.input)  # checked before it was asked

        title = plain_label(request.title or "Approve Claude's plan?", "planTitle")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        title.setFont(font)
        intro = plain_label(
            "Claude will work on these sites and apps without asking for each step.", muted=True
        )
        self.steps = [
            plain_label(f"{number}. {step}", "planStep")
            for number, step in enumerate(plan.approach, 1)
        ]
        self.sites = [self._item(domain) for domain in plan.domains]
        self.apps = [self._item(app) for app in plan.apps]
        self.still_asks = plain_label(STILL_ASKS, "planStillAsks", muted=True)

        self.reason = QLineEdit()
        self.reason.setPlaceholderText("What should change? (optional, Claude will read it)")
        self.reason.returnPressed.connect(self._decline)  # Enter here: Make changes
        self.make_changes = QPushButton("Make changes  Esc")
        self.approve = QPushButton(f"Approve plan  {APPROVE_KEYS}")
        self.approve.setObjectName("approvePlan")
        for button in (self.make_changes, self.approve):
            button.setAutoDefault(False)  # plain Enter approves nothing
        self.make_changes.clicked.connect(self._decline)
        self.approve.clicked.connect(self._approve)

        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addSpacing(4)
        layout.addWidget(plain_label("Approach", "planHeading"))
        for step in self.steps:
            layout.addWidget(step)
        layout.addSpacing(4)
        layout.addWidget(plain_label("Sites", "planHeading"))
        for box in self.sites:
            layout.addWidget(box)
        if self.apps:
            layout.addWidget(plain_label("Apps", "planHeading"))
            for box in self.apps:
                layout.addWidget(box)
        layout.addWidget(plain_label("Untick anything Claude should not use.", muted=True))
        layout.addSpacing(4)
        layout.addWidget(self.still_asks)
        layout.addWidget(self.reason)
        layout.addLayout(boxed(QHBoxLayout(), STRETCH, self.make_changes, self.approve))

    def _item(self, name: str) -> QCheckBox:
        box = QCheckBox(name)
        box.setObjectName("planItem")
        box.setChecked(True)
        box.toggled.connect(self._kept_changed)
        return box

    def kept(self) -> list[str]:
        return [box.text() for box in [*self.sites, *self.apps] if box.isChecked()]

    def _kept_changed(self) -> None:
        # A plan with nothing left in it would allow nothing: ask for changes instead.
        self.approve.setEnabled(bool(self.kept()))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and self.reason.hasFocus():
            return  # the field's returnPressed means Make changes
        if enter and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            if self.approve.isEnabled():
                self.approve.click()
            return
        if enter:
            return  # plain Enter is no answer: the sheet has no default button
        super().keyPressEvent(event)

    def _approve(self) -> None:
        self._finish(Answer(allow=True, keep=self.kept()))

"""The schedule's sheet: "Run NAME on schedule, within these sites and apps", asked once when a
routine's schedule is set (`Scheduler.set`), instead of the plan sheet Claude's own plans get.

It says when the routine will run, the sites and apps its runs may use without the person, and
what still waits for them; Approve Schedule is Ctrl+Return (Cmd+Return on a Mac), Don't
Schedule, Esc and closing it decline. Nothing can be unticked and no reason is asked: the
approval covers the routine's plan as it stands, and no one reads a reason for a schedule.
"""

from __future__ import annotations

import sys
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer
from ui.boxes import STRETCH, boxed
from ui.sheets.approval import RequestSheet, plain_label

APPROVE_KEYS = "⌘↩" if sys.platform == "darwin" else "Ctrl+↩"
UNASKED = "Each run reads and changes things on these without you, and heals a step within them."
WAITS = (
    "Anything that would ask you (sending, paying, deleting, a site or app outside these, a "
    "first look at a window) makes the run wait: you get a notification, and the sheet "
    "opens when you open its chat. Passwords are never filled."
)
LASTS = "This approval lasts until the routine, its plan or its schedule changes."
NOTHING = "No site or app: its steps use only Deskhand's own tools."


class ScheduleSheet(RequestSheet):
    """Asks once about a routine's schedule; answers `request` once, however it closes."""

    def __init__(self, request: ApprovalRequest, parent: QWidget | None = None) -> None:
        super().__init__(request, parent)
        self.setObjectName("scheduleSheet")
        self.setWindowTitle("Approve schedule")
        self.reason = QLineEdit()  # declining says no more than that
        self.reason.hide()
        call = request.call
        given: dict[str, Any] = call.input if isinstance(call.input, dict) else {}
        sites = [str(site) for site in given.get("domains") or []]
        apps = [str(app) for app in given.get("apps") or []]

        title = plain_label(request.title or call.label, "scheduleTitle")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        title.setFont(font)
        self.when = plain_label(call.summary, "scheduleWhen")
        self.items = [plain_label(f"• {site}", "scheduleItem") for site in sites]
        self.items += [plain_label(f"• {app}", "scheduleItem") for app in apps]
        self.decline_button = QPushButton("Don't Schedule  Esc")
        self.approve = QPushButton(f"Approve Schedule  {APPROVE_KEYS}")
        self.approve.setObjectName("approveSchedule")
        for button in (self.decline_button, self.approve):
            button.setAutoDefault(False)  # plain Enter approves nothing
        self.decline_button.clicked.connect(self._decline)
        self.approve.clicked.connect(lambda: self._finish(Answer(allow=True)))

        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(self.when)
        layout.addSpacing(4)
        if self.items:
            layout.addWidget(plain_label("Sites and apps", "planHeading"))
            for item in self.items:
                layout.addWidget(item)
            layout.addWidget(plain_label(UNASKED, muted=True))
        else:
            layout.addWidget(plain_label(NOTHING, muted=True))
        layout.addSpacing(4)
        self.waits = plain_label(WAITS, "scheduleWaits", muted=True)
        layout.addWidget(self.waits)
        layout.addWidget(plain_label(LASTS, muted=True))
        layout.addLayout(boxed(QHBoxLayout(), STRETCH, self.decline_button, self.approve))

    def texts(self) -> list[str]:
        """What the sheet says, top to bottom (its tests read it)."""
        return [label.text() for label in self.findChildren(QLabel) if label.text()]

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.approve.click()
            return
        if enter:
            return  # plain Enter is no answer
        super().keyPressEvent(event)

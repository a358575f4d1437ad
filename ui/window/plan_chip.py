"""The plan chip near the composer: "Plan: 2 sites, 1 app · End", while the chat's plan lasts.

A click on the chip shows what the plan covers (sites, apps, the approach, until when, what
still asks); End ends it at once. The chip follows the chat the window shows, and hides
itself when the plan ends, however it ends (End, a new proposal, its time running out).
"""

from __future__ import annotations

from datetime import datetime

import shiboken6
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QWidget,
    QWidgetAction,
)

from desktop.calls.sources.plan.book import STILL_ASKS, Plan, PlanBook, clock
from ui.boxes import boxed

MAX_TIMER_MS = 60 * 60 * 1000  # a longer plan is looked at again within the hour


def coverage(plan: Plan) -> str:
    """What a plan covers, as the chip's details say it."""
    steps = "\n".join(f"  {number}. {step}" for number, step in enumerate(plan.approach, 1))
    until = datetime.fromtimestamp(plan.expires_at).strftime("%H:%M")
    apps = ", ".join(plan.apps) if plan.apps else "none"
    return (
        f"Approved at {clock(plan.approved_at)}, until {until}\n"
        f"Sites: {', '.join(plan.domains)}\nApps: {apps}\nApproach:\n{steps}\n\n{STILL_ASKS}"
    )


class PlanChip(QFrame):
    """Shows the plan of the chat on screen, if it has one."""

    def __init__(self, plans: PlanBook, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("planChip")
        self._plans = plans
        self.session_id: int | None = None
        self.summary = QToolButton()
        self.summary.setObjectName("planChipSummary")
        self.summary.setToolTip("What the plan covers")
        self.summary.clicked.connect(self.show_details)
        dot = QLabel("·")
        dot.setEnabled(False)
        self.end = QToolButton()
        self.end.setObjectName("planChipEnd")
        self.end.setText("End")
        self.end.setToolTip("End the plan: every step asks again as your mode says")
        self.end.clicked.connect(self._end)
        boxed(QHBoxLayout(self), self.summary, dot, self.end, margins=(4, 0, 4, 0), spacing=0)
        self.details: QMenu | None = None
        self.details_text: QLabel | None = None
        self._expiry = QTimer(self)
        self._expiry.setSingleShot(True)
        self._expiry.timeout.connect(self.refresh)
        self._unsubscribe = plans.subscribe(self._changed)
        self.destroyed.connect(lambda: self._unsubscribe())
        self.refresh()

    def text(self) -> str:
        """The chip as it reads: "Plan: 2 sites, 1 app · End"."""
        return f"{self.summary.text()} · {self.end.text()}"

    def show_session(self, session_id: int | None) -> None:
        self.session_id = session_id
        self.refresh()

    def _changed(self, session_id: int) -> None:
        if shiboken6.isValid(self) and session_id == self.session_id:
            self.refresh()

    def refresh(self) -> None:
        plan = self._plans.current(self.session_id) if self.session_id is not None else None
        self.setVisible(plan is not None)
        self._expiry.stop()
        if plan is None:
            if self.details is not None:
                self.details.close()
            return
        self.summary.setText(plan.chip())
        left = int((plan.expires_at - self._plans.now()) * 1000) + 50
        self._expiry.start(max(50, min(left, MAX_TIMER_MS)))

    def show_details(self) -> None:
        plan = self._plans.current(self.session_id) if self.session_id is not None else None
        if plan is None:
            self.refresh()
            return
        menu = QMenu(self)
        label = QLabel(coverage(plan))
        label.setTextFormat(Qt.TextFormat.PlainText)  # Claude wrote the steps: never rich text
        label.setObjectName("planDetails")
        label.setContentsMargins(12, 8, 12, 8)
        label.setWordWrap(True)
        label.setMinimumWidth(360)
        action = QWidgetAction(menu)
        action.setDefaultWidget(label)
        menu.addAction(action)
        end = menu.addAction("End plan")
        end.triggered.connect(self._end)
        self.details, self.details_text = menu, label
        menu.aboutToHide.connect(self._details_closed)
        above = self.mapToGlobal(QPoint(0, 0))  # the composer is below: open upwards
        above.setY(above.y() - menu.sizeHint().height())
        menu.popup(above)

    def _details_closed(self) -> None:
        self.details = None

    def _end(self) -> None:
        if self.session_id is not None:
            self._plans.end(self.session_id)

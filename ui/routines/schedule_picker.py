"""The routine page's schedule picker: Off, once at a date and time, daily, weekdays, weekly on
chosen days, every N minutes or hours, or a cron line.

It only reads what the person chose and hands it to the core's readers (`times.once`, `daily`,
`every`, `cron`), so a bad time or cron line is refused in the core's words, which the page
shows; nothing the person typed is cleared by a refusal.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from PySide6.QtCore import QDateTime, QTime, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QStackedWidget,
    QTimeEdit,
    QWidget,
)

from desktop.routines.schedules import times
from desktop.routines.schedules.times import DAY_NAMES, Schedule

OFF = "off"
KINDS = {
    OFF: "Off",
    "once": "Once",
    "daily": "Daily",
    "weekdays": "Weekdays",
    "weekly": "Weekly",
    "every": "Every",
    "cron": "Cron line",
}
CRON_EXAMPLE = "0 8 * * 1-5"


class SchedulePicker(QWidget):
    """A kind, and the fields that kind needs; `schedule(now)` reads them as a `Schedule`
    (None: Off), raising `times.ScheduleError` in the core's words."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("schedulePicker")
        self.kind = QComboBox()
        self.kind.setObjectName("scheduleKind")
        self.kind.setAccessibleName("Runs")
        for value, title in KINDS.items():
            self.kind.addItem(title, value)
        self.when = QDateTimeEdit()  # once
        self.when.setObjectName("scheduleWhen")
        self.when.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.when.setCalendarPopup(True)
        self.when.setAccessibleName("Date and time")
        self.clock = QTimeEdit(QTime(8, 0))  # daily, weekdays, weekly
        self.clock.setObjectName("scheduleClock")
        self.clock.setDisplayFormat("HH:mm")
        self.clock.setAccessibleName("Time")
        self.days = [QCheckBox(name) for name in DAY_NAMES]
        for box in self.days:
            box.setObjectName("scheduleDay")
        self.count = QSpinBox()  # every
        self.count.setObjectName("scheduleCount")
        self.count.setRange(1, 999)
        self.count.setValue(30)
        self.count.setAccessibleName("Interval")
        self.unit = QComboBox()
        self.unit.setObjectName("scheduleUnit")
        self.unit.addItem("minutes", "m")
        self.unit.addItem("hours", "h")
        self.unit.setAccessibleName("Unit")
        self.cron_line = QLineEdit()  # cron
        self.cron_line.setObjectName("scheduleCron")
        self.cron_line.setPlaceholderText(f"minute hour day month weekday, e.g. {CRON_EXAMPLE}")
        self.cron_line.setAccessibleName("Cron line")

        self.fields = QStackedWidget()
        self.fields.setObjectName("scheduleFields")
        self._pages: dict[str, int] = {}
        self._page(OFF, [])
        self._page("once", [QLabel("on"), self.when])
        self._page("clock", [QLabel("at"), self.clock])
        self._page("weekly", [QLabel("on"), *self.days])
        self._page("every", [self.count, self.unit])
        self._page("cron", [self.cron_line])
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        row.addWidget(self.kind)
        row.addWidget(self.fields, 1)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        for box in self.days:
            box.toggled.connect(self.changed)
        self.when.dateTimeChanged.connect(self.changed)
        self.clock.timeChanged.connect(self.changed)
        self.count.valueChanged.connect(self.changed)
        self.unit.currentIndexChanged.connect(self.changed)
        self.cron_line.textChanged.connect(self.changed)
        self._kind_changed()

    def _page(self, name: str, widgets: list[QWidget]) -> None:
        page = QWidget()
        row = QHBoxLayout(page)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        for widget in widgets:
            row.addWidget(widget, 1 if widget is self.cron_line else 0)
        if name == "weekly":  # the time goes after the days: "on Mon Wed at 08:00"
            row.addWidget(QLabel("at"))
            self.weekly_clock = QTimeEdit(QTime(8, 0))
            self.weekly_clock.setDisplayFormat("HH:mm")
            self.weekly_clock.setObjectName("scheduleClock")
            self.weekly_clock.setAccessibleName("Time")
            self.weekly_clock.timeChanged.connect(self.changed)
            row.addWidget(self.weekly_clock)
        if name != "cron":  # the cron line takes the row's width
            row.addStretch(1)
        self._pages[name] = self.fields.addWidget(page)

    def _kind_changed(self) -> None:
        kind = self.kind_value()
        page = {"daily": "clock", "weekdays": "clock"}.get(kind, kind)
        self.fields.setCurrentIndex(self._pages[page])
        self.changed.emit()

    def kind_value(self) -> str:
        return str(self.kind.currentData())

    def set_kind(self, kind: str) -> None:
        self.kind.setCurrentIndex(max(self.kind.findData(kind), 0))

    # -- reading and showing a schedule -------------------------------------------------------

    def schedule(self, now: datetime) -> Schedule | None:
        """What the person chose, read by the core (None: Off). Raises ScheduleError."""
        kind = self.kind_value()
        if kind == OFF:
            return None
        if kind == "once":
            return times.once(self.when.dateTime().toString("yyyy-MM-dd HH:mm"), now)
        if kind == "daily":
            return times.daily(self.clock.time().toString("HH:mm"), now)
        if kind == "weekdays":
            return times.daily(self.clock.time().toString("HH:mm"), now, "weekdays")
        if kind == "weekly":
            chosen = [day for day, box in enumerate(self.days) if box.isChecked()]
            return times.daily(self.weekly_clock.time().toString("HH:mm"), now, "weekly", chosen)
        if kind == "every":
            return times.every(f"{self.count.value()}{self.unit.currentData()}", now)
        return times.cron(self.cron_line.text(), now)

    def show_schedule(self, schedule: Schedule | None, now: datetime) -> None:
        """Fill the fields from `schedule` (None: Off); the others keep sensible values."""
        later = now.replace(second=0, microsecond=0) + timedelta(hours=1)
        self.when.setDateTime(QDateTime.fromString(f"{later:%Y-%m-%d %H}:00", "yyyy-MM-dd HH:mm"))
        if schedule is None:
            self.set_kind(OFF)
            return
        if schedule.kind == "once":
            self.when.setDateTime(QDateTime.fromString(schedule.at, "yyyy-MM-dd HH:mm"))
        elif schedule.kind in ("daily", "weekdays"):
            self.clock.setTime(QTime.fromString(schedule.at, "HH:mm"))
        elif schedule.kind == "weekly":
            self.weekly_clock.setTime(QTime.fromString(schedule.at, "HH:mm"))
            for day, box in enumerate(self.days):
                box.setChecked(day in schedule.days)
        elif schedule.kind == "every":
            hours, minutes = divmod(schedule.minutes, 60)
            in_hours = bool(hours) and not minutes
            self.count.setValue(hours if in_hours else schedule.minutes)
            self.unit.setCurrentIndex(1 if in_hours else 0)
        else:
            self.cron_line.setText(schedule.cron)
        self.set_kind(schedule.kind)

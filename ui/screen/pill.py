"""The pill at the top of the screen while Claude controls it: what is happening, and the
person's buttons. The only part of the visualizer that takes clicks.

Three states, from the hand (`tools/screen/hand.py`, through the screen's hooks):

- Claude has the controls: "Deskhand is controlling the screen", Take over, Stop.
- the person's own input paused Claude: "Paused: you're using the computer", Resume, Stop.
- the person took over: "You have the controls", Hand back, Stop.

It is an ordinary top-level window of the app, so it counts among Deskhand's own windows
(`ui/screen/own_windows.py`): Claude can never click it, and the person's clicks on it never
count as reaching for the screen. Its buttons never take the keyboard focus.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QRegion,
    QScreen,
    QShowEvent,
)
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from desktop.calls.sources.screen.hooks import PAUSED, TAKEN, Holder

__all__ = [
    "ACCENT",
    "CONTROLLING",
    "PAUSED",
    "TAKEN",
    "ControlPill",
    "Scheme",
    "bypass_window_manager",
    "fill_region",
]

CONTROLLING = "Deskhand is controlling the screen"
ACCENT = QColor("#ff6a1f")  # bright enough on a light and on a dark desktop
PAUSED_ACCENT = QColor("#d4a72c")  # amber: waiting, not acting
PERSON_ACCENT = QColor("#1f883d")  # green: the person's turn


@dataclass(frozen=True)
class Scheme:
    """The pill's and the bubbles' colours, light or dark as the app's palette is."""

    background: QColor
    text: QColor
    muted: QColor
    button: QColor
    button_hover: QColor
    button_text: QColor

    @classmethod
    def current(cls) -> Scheme:
        if QGuiApplication.palette().window().color().lightness() < 128:
            return cls(
                QColor(36, 39, 43, 240),
                QColor("#f0f3f6"),
                QColor("#9aa4ae"),
                QColor("#3d444d"),
                QColor("#4d555f"),
                QColor("#f0f3f6"),
            )
        return cls(
            QColor(255, 255, 255, 245),
            QColor("#1f2328"),
            QColor("#57606a"),
            QColor("#eef1f4"),
            QColor("#dde2e7"),
            QColor("#1f2328"),
        )


def fill_region(path: QPainterPath) -> QRegion:
    """The pixels inside a path made of one outline (a stroke, a rounded rectangle)."""
    region = QRegion()
    for polygon in path.toFillPolygons():
        region = region.united(QRegion(polygon.toPolygon()))
    return region


def bypass_window_manager() -> Qt.WindowType:
    """On X11, windows the window manager leaves alone stay above the others and unframed."""
    if QGuiApplication.platformName() == "xcb":
        return Qt.WindowType.X11BypassWindowManagerHint
    return Qt.WindowType.Widget


class ControlPill(QWidget):
    """What is happening on the screen and who has the controls, with the person's buttons."""

    def __init__(
        self,
        on_stop: Callable[[], None],
        on_take_over: Callable[[], None] | None = None,
        on_resume: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(
            None,
            Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint
            | Qt.WindowType.WindowDoesNotAcceptFocus
            | bypass_window_manager(),
        )
        self.setObjectName("screenStopPill")
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setAttribute(Qt.WidgetAttribute.WA_MacAlwaysShowToolWindow)
        self.holder: Holder = "claude"
        self._can_take_over = on_take_over is not None
        self.label = QLabel(CONTROLLING)
        self.label.setObjectName("screenStopLabel")
        self.take_over_button = self._button("Take over", "screenTakeOverButton", on_take_over)
        self.take_over_button.setToolTip(
            "Use the computer yourself; Claude waits until you hand back"
        )
        self.resume_button = self._button("Resume", "screenResumeButton", on_resume)
        self.resume_button.setToolTip("Let Claude continue; it looks at the screen again first")
        self.stop_button = self._button("Stop", "screenStopButton", on_stop)
        self.stop_button.setToolTip("Stop Claude's reply now")
        row = QHBoxLayout(self)
        row.setContentsMargins(16, 6, 6, 6)
        row.setSpacing(8)
        row.addWidget(self.label)
        row.addSpacing(4)
        row.addWidget(self.take_over_button)
        row.addWidget(self.resume_button)
        row.addWidget(self.stop_button)
        self._screen: QScreen | None = None
        self.set_holder("claude")

    def _button(self, text: str, name: str, action: Callable[[], None] | None) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay where they were
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        if action is not None:
            button.clicked.connect(action)
        else:
            button.hide()
        return button

    @property
    def accent(self) -> QColor:
        return {"claude": ACCENT, "paused": PAUSED_ACCENT, "person": PERSON_ACCENT}[self.holder]

    def set_holder(self, holder: Holder) -> None:
        """Show who has the controls, and the buttons that fit."""
        self.holder = holder
        self.label.setText({"claude": CONTROLLING, "paused": PAUSED, "person": TAKEN}[holder])
        self.take_over_button.setVisible(holder == "claude" and self._can_take_over)
        self.resume_button.setText("Hand back" if holder == "person" else "Resume")
        self.resume_button.setVisible(holder != "claude")
        self.restyle()

    def restyle(self) -> None:
        scheme = Scheme.current()
        self.setStyleSheet(
            f"""
            #screenStopLabel {{ color: {scheme.text.name()}; font-weight: 600; }}
            QPushButton {{
                border: none; border-radius: 12px; padding: 4px 14px; font-weight: 600;
            }}
            #screenTakeOverButton, #screenResumeButton {{
                background: {scheme.button.name()}; color: {scheme.button_text.name()};
            }}
            #screenTakeOverButton:hover, #screenResumeButton:hover {{
                background: {scheme.button_hover.name()};
            }}
            #screenStopButton {{ background: #d1242f; color: white; }}
            #screenStopButton:hover {{ background: #a40e26; }}
            """
        )
        self.adjustSize()
        self._replace()
        self.update()

    def place(self, screen: QScreen) -> None:
        """At the top of `screen`, in the middle, clear of menu bars and panels."""
        if self._screen is not screen:
            if self._screen is not None:
                self._screen.availableGeometryChanged.disconnect(self._replace)
            self._screen = screen
            screen.availableGeometryChanged.connect(self._replace)
        self.adjustSize()
        area = screen.availableGeometry()
        self.move(area.center().x() - self.width() // 2, area.top() + 14)
        path = QPainterPath()
        path.addRoundedRect(QRectF(self.rect()), self.height() / 2, self.height() / 2)
        self.setMask(fill_region(path))

    def showEvent(self, event: QShowEvent) -> None:
        # The style sheet sizes the buttons when the pill is first polished, on show: the
        # shape (and the place, centred) follow that size.
        super().showEvent(event)
        self._replace()

    def _replace(self, *_args: object) -> None:
        if self._screen is not None:
            self.place(self._screen)

    def paintEvent(self, event: QPaintEvent) -> None:
        scheme = Scheme.current()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        box = QRectF(self.rect()).adjusted(1, 1, -1, -1)
        painter.setPen(QPen(self.accent, 2))
        painter.setBrush(scheme.background)
        painter.drawRoundedRect(box, box.height() / 2, box.height() / 2)
        painter.end()

"""What Claude does on the screen, drawn over it, with a Stop button at hand.

- `ScreenOverlay`, one per display: a frameless, always-on-top window that clicks pass through
  and that never takes the focus. It draws a border around the display, a ripple where Claude
  clicks, the path of a drag, a bubble with the text being typed or the keys pressed, and a
  flash when a screenshot is taken. The window is shaped to what it draws (a mask), so where
  no compositor blends translucent windows (plain X11) it still covers nothing else.
- `StopPill`: "Deskhand is controlling the screen" and Stop, a small window of its own: the
  only part that takes clicks. It is an ordinary top-level window of the app, so it counts
  among Deskhand's own windows (`ui/screen/own_windows.py`) and Claude can never click it.

`ui/screen/visualizer.py` decides when they show; this module is loaded with the first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPaintEvent,
    QPen,
    QPolygonF,
    QRegion,
    QScreen,
)
from PySide6.QtWidgets import QWidget

from ui.screen.own_windows import mark_click_through
from ui.screen.pill import (
    ACCENT,
    CONTROLLING,
    ControlPill,
    Scheme,
    bypass_window_manager,
    fill_region,
)

__all__ = [
    "ACCENT",
    "CONTROLLING",
    "ControlPill",
    "Mark",
    "ScreenOverlay",
    "StopPill",
]

BORDER_WIDTH = 4
FRAME_MS = 33  # animation frames: about 30 a second, only while something moves
RIPPLE_LIFE = 0.7
RIPPLE_GAP = 0.12  # between the rings of a double or triple click
RIPPLE_MIN, RIPPLE_MAX, RIPPLE_PEN = 7.0, 30.0, 3.0
DOT_LIFE = 0.5
DRAG_LIFE = 1.4
DRAG_PEN = 5
SCROLL_LIFE = 0.8
FLASH_LIFE = 0.35
FLASH_WIDTH = 10
BUBBLE_MAX_WIDTH = 480
BUBBLE_MAX_CHARS = 120
BUBBLE_OFFSET = QPoint(18, 26)  # below and right of the pointer, clear of the ripple
BUTTON_COLORS = {"left": ACCENT, "right": QColor("#8b5cf6"), "middle": QColor("#10a37f")}
SCROLL_ARROWS = {"up": "▲", "down": "▼", "left": "◀", "right": "▶"}


@dataclass
class Mark:
    """One thing drawn for an event, in global coordinates, alive for `life` seconds."""

    kind: str  # "ripple", "dot", "drag", "scroll", "bubble", "flash"
    points: tuple[QPoint, ...] = ()
    rect: QRect = field(default_factory=QRect)  # flash: the captured area
    text: str = ""
    count: int = 1
    color: QColor = field(default_factory=lambda: QColor(ACCENT))
    life: float = RIPPLE_LIFE
    born: float = field(default_factory=time.monotonic)

    def progress(self, now: float) -> float:
        return min(1.0, max(0.0, (now - self.born) / self.life))

    def alive(self, now: float) -> bool:
        return now - self.born < self.life


def typed_text(text: str) -> str:
    """Typed text for one line of a bubble: breaks and tabs shown as symbols, cut short."""
    shown = text.replace("\n", " ⏎ ").replace("\t", " ⇥ ")
    return shown if len(shown) <= BUBBLE_MAX_CHARS else shown[: BUBBLE_MAX_CHARS - 1] + "…"


def bubble_life(text: str) -> float:
    """Long enough to read: a second and a half, plus a little per character, at most six."""
    return min(6.0, 1.5 + 0.03 * len(text))


def _frame(area: QRect, width: int) -> list[QRect]:
    """The four sides of a frame `width` thick just inside `area`."""
    if area.width() <= 2 * width or area.height() <= 2 * width:
        return [area]
    return [
        QRect(area.left(), area.top(), area.width(), width),
        QRect(area.left(), area.bottom() - width + 1, area.width(), width),
        QRect(area.left(), area.top() + width, width, area.height() - 2 * width),
        QRect(area.right() - width + 1, area.top() + width, width, area.height() - 2 * width),
    ]


def _rects_region(rects: Iterable[QRect]) -> QRegion:
    region = QRegion()
    for rect in rects:
        region = region.united(QRegion(rect))
    return region


def _disc(center: QPointF, radius: float) -> QRegion:
    if radius <= 0:
        return QRegion()
    box = QRectF(center.x() - radius, center.y() - radius, 2 * radius, 2 * radius)
    return QRegion(box.toAlignedRect(), QRegion.RegionType.Ellipse)


class ScreenOverlay(QWidget):
    """The drawing surface over one display. Clicks pass through it; it never takes focus."""

    def __init__(self, screen: QScreen, scheme: Callable[[], Scheme] = Scheme.current) -> None:
        super().__init__(
            None,
            Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint
            | Qt.WindowType.WindowTransparentForInput
            | Qt.WindowType.WindowDoesNotAcceptFocus
            | bypass_window_manager(),
        )
        self.setObjectName("screenOverlay")
        mark_click_through(self)
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setAttribute(Qt.WidgetAttribute.WA_MacAlwaysShowToolWindow)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.display = screen
        self.scheme = scheme
        self.marks: list[Mark] = []
        self.bordered = False
        self._font = QFont(self.font())
        self._font.setPointSizeF(self._font.pointSizeF() * 1.05)
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._tick)
        screen.geometryChanged.connect(self.fit_to_screen)
        self.fit_to_screen()

    def fit_to_screen(self, *_args: object) -> None:
        self.setGeometry(self.display.geometry())
        self._reshape()

    def covers(self, mark: Mark) -> bool:
        """Whether any of `mark` falls on this display (marks are in global coordinates)."""
        area = self.geometry()
        if mark.kind == "flash":
            return area.intersects(mark.rect)
        if mark.kind == "drag" and len(mark.points) == 2:
            start, end = mark.points
            return area.intersects(QRect(start, end).normalized().adjusted(-1, -1, 1, 1))
        if mark.points:
            return any(area.contains(point) for point in mark.points)
        return self.display == QGuiApplication.primaryScreen()  # a bubble with no anchor

    # -- what it draws ---------------------------------------------------------------

    def add(self, mark: Mark) -> None:
        self.marks.append(mark)
        self._reshape()
        self.update()
        if not self._timer.isActive():
            self._timer.start()

    def set_bordered(self, bordered: bool) -> None:
        self.bordered = bordered
        self._reshape()
        self.update()

    def clear(self) -> None:
        self.marks.clear()
        self._timer.stop()
        self._reshape()
        self.update()

    def _tick(self) -> None:
        now = time.monotonic()
        self.marks = [mark for mark in self.marks if mark.alive(now)]
        if not self.marks:
            self._timer.stop()
        self._reshape()
        self.update()

    def local(self, point: QPoint) -> QPointF:
        return QPointF(point - self.geometry().topLeft())

    # -- shapes: one per mark, for the mask and for painting -----------------------------

    def _border(self) -> list[QRect]:
        return _frame(QRect(QPoint(0, 0), self.size()), BORDER_WIDTH)

    def _ring_radii(self, mark: Mark, ring: int, now: float) -> float | None:
        age = now - mark.born - ring * RIPPLE_GAP
        if age < 0 or age > RIPPLE_LIFE:
            return None
        return RIPPLE_MIN + (RIPPLE_MAX - RIPPLE_MIN) * (age / RIPPLE_LIFE)

    def _bubble_rect(self, mark: Mark) -> QRectF:
        metrics = QFontMetrics(self._font)
        text = metrics.elidedText(mark.text, Qt.TextElideMode.ElideRight, BUBBLE_MAX_WIDTH)
        width = metrics.horizontalAdvance(text) + 28
        height = metrics.height() + 16
        anchor = self.local(mark.points[0]) if mark.points else None
        bounds = QRectF(self.rect()).adjusted(12, 12, -12, -12)
        if anchor is None:
            top_left = QPointF(bounds.center().x() - width / 2, bounds.bottom() - height - 48)
        else:
            top_left = anchor + QPointF(BUBBLE_OFFSET)
        x = min(max(top_left.x(), bounds.left()), bounds.right() - width)
        y = min(max(top_left.y(), bounds.top()), bounds.bottom() - height)
        return QRectF(x, y, width, height)

    def _region(self, mark: Mark, now: float) -> QRegion:
        """The area a mark covers now (the window's region is the union of these)."""
        region = QRegion()
        if mark.kind == "ripple":
            center = self.local(mark.points[0])
            for ring in range(mark.count):
                radius = self._ring_radii(mark, ring, now)
                if radius is not None:
                    outer = _disc(center, radius + RIPPLE_PEN)
                    region = region.united(outer.subtracted(_disc(center, radius - RIPPLE_PEN)))
            region = region.united(_disc(center, 6))
        elif mark.kind == "dot":
            region = _disc(self.local(mark.points[0]), 6)
        elif mark.kind == "drag":
            start, end = (self.local(p) for p in mark.points[:2])
            line = QPainterPath(start)
            line.lineTo(end)
            stroker = QPainterPathStroker()
            stroker.setWidth(DRAG_PEN)
            stroker.setCapStyle(Qt.PenCapStyle.RoundCap)
            region = fill_region(stroker.createStroke(line)).united(_disc(start, 7))
            region = region.united(QRegion(_arrow_head(start, end).toPolygon()))
        elif mark.kind == "scroll":
            region = _disc(self.local(mark.points[0]), 17)
        elif mark.kind == "bubble":
            path = QPainterPath()
            path.addRoundedRect(self._bubble_rect(mark), 10, 10)
            region = fill_region(path)
        elif mark.kind == "flash":
            region = _rects_region(self._flash(mark))
        return region

    def _flash(self, mark: Mark) -> list[QRect]:
        return _frame(mark.rect.translated(-self.geometry().topLeft()), FLASH_WIDTH)

    def _reshape(self) -> None:
        """The window is exactly what is drawn: the rest of the display stays the apps'."""
        now = time.monotonic()
        region = _rects_region(self._border()) if self.bordered else QRegion()
        for mark in self.marks:
            region = region.united(self._region(mark, now))
        if region.isEmpty():
            region = QRegion(0, 0, 1, 1)  # an empty mask means "no mask": keep one pixel
        self.setMask(region)

    # -- painting --------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
        painter.fillRect(self.rect(), Qt.GlobalColor.transparent)
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
        if self.bordered:
            for rect in self._border():
                painter.fillRect(rect, ACCENT)
        now = time.monotonic()
        for mark in self.marks:
            self._paint(painter, mark, now)
        painter.end()

    def _paint(self, painter: QPainter, mark: Mark, now: float) -> None:
        fade = 1.0 - max(0.0, mark.progress(now) - 0.6) / 0.4  # the last 40 % fades out
        color = QColor(mark.color)
        if mark.kind == "ripple":
            center = self.local(mark.points[0])
            for ring in range(mark.count):
                radius = self._ring_radii(mark, ring, now)
                if radius is None:
                    continue
                ring_color = QColor(color)
                ring_color.setAlphaF(1.0 - 0.7 * (radius - RIPPLE_MIN) / (RIPPLE_MAX - RIPPLE_MIN))
                painter.setPen(QPen(ring_color, RIPPLE_PEN * 2))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawEllipse(center, radius, radius)
            painter.setPen(QPen(QColor("white"), 1.5))
            painter.setBrush(color)
            painter.drawEllipse(center, 4.5, 4.5)
        elif mark.kind == "dot":
            color.setAlphaF(0.9 * fade)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            painter.drawEllipse(self.local(mark.points[0]), 5, 5)
        elif mark.kind == "drag":
            color.setAlphaF(fade)
            start, end = (self.local(p) for p in mark.points[:2])
            pen = QPen(color, DRAG_PEN, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.drawLine(start, end)
            painter.setPen(QPen(QColor("white"), 2))
            painter.setBrush(color)
            painter.drawEllipse(start, 6, 6)
            painter.setPen(QPen(color, 1))
            painter.drawPolygon(_arrow_head(start, end))
        elif mark.kind == "scroll":
            color.setAlphaF(fade)
            center = self.local(mark.points[0])
            painter.setPen(QPen(QColor("white"), 2))
            painter.setBrush(color)
            painter.drawEllipse(center, 16, 16)
            painter.setPen(QColor("white"))
            box = QRectF(center.x() - 16, center.y() - 16, 32, 32)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, mark.text)
        elif mark.kind == "bubble":
            scheme = self.scheme()
            box = self._bubble_rect(mark)
            painter.setPen(QPen(color, 2))
            painter.setBrush(scheme.background)
            painter.drawRoundedRect(box.adjusted(1, 1, -1, -1), 9, 9)
            painter.setPen(scheme.text)
            painter.setFont(self._font)
            metrics = QFontMetrics(self._font)
            text = metrics.elidedText(mark.text, Qt.TextElideMode.ElideRight, BUBBLE_MAX_WIDTH)
            painter.drawText(box.adjusted(14, 0, -14, 0), Qt.AlignmentFlag.AlignVCenter, text)
        elif mark.kind == "flash":
            white = QColor("white")
            white.setAlphaF(0.9 * (1.0 - mark.progress(now)))
            for rect in self._flash(mark):
                painter.fillRect(rect, white)


def _arrow_head(start: QPointF, end: QPointF) -> QPolygonF:
    """A triangle at `end` pointing away from `start`."""
    dx, dy = end.x() - start.x(), end.y() - start.y()
    length = max((dx * dx + dy * dy) ** 0.5, 1.0)
    ux, uy = dx / length, dy / length
    back = QPointF(end.x() - ux * 20, end.y() - uy * 20)
    return QPolygonF(
        [
            QPointF(end.x() + ux * 3, end.y() + uy * 3),
            QPointF(back.x() - uy * 10, back.y() + ux * 10),
            QPointF(back.x() + uy * 10, back.y() - ux * 10),
        ]
    )


StopPill = ControlPill  # the name the rest of the app knew it by

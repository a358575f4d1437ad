"""The order Tab moves the keyboard focus in: the window's reading order.

Qt's focus chain follows the order widgets were made in, so a chat opened later, and every
code block or tool card streamed into it, would come after the composer. Here the order is
worked out when Tab is pressed: region by region (the toolbars, then each pane of the
central splitter: the sidebar, then the conversation and its composer), and within a
region top to bottom, left to right; what sits in a scrolling area follows the area.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QToolBar,
    QWidget,
)


def regions(window: QMainWindow) -> list[QWidget]:
    """The window's parts in reading order: toolbars, then the central panes left to right."""
    found: list[QWidget] = list(window.findChildren(QToolBar))
    central = window.centralWidget()
    if isinstance(central, QSplitter):
        panes = (central.widget(index) for index in range(central.count()))
        found += [pane for pane in panes if pane is not None]
    elif central is not None:
        found.append(central)
    return found


def _takes_tab(widget: QWidget, window: QWidget) -> bool:
    return (
        widget.window() is window
        and widget.isVisible()
        and widget.isEnabled()
        and widget.focusProxy() is None
        and bool(widget.focusPolicy().value & Qt.FocusPolicy.TabFocus.value)
    )


def tab_stops(window: QMainWindow) -> list[QWidget]:
    """Every widget Tab stops at, in reading order."""
    parts = regions(window)
    placed: dict[int, list[tuple[QRect, QWidget]]] = {}  # by region: widgets, scroll areas
    inside: dict[QWidget, list[tuple[QRect, QWidget]]] = {}  # by scroll area: its content
    for widget in window.findChildren(QWidget):
        if not _takes_tab(widget, window):
            continue
        area = _scroll_area_around(widget)
        if area is not None:  # content takes its place after the area, in its own order
            content = area.widget()
            assert content is not None  # see _scroll_area_around
            rect = QRect(widget.mapTo(content, QPoint(0, 0)), widget.size())
            if area in inside:
                inside[area].append((rect, widget))
                continue
            inside[area] = [(rect, widget)]
            widget = area
        region = next(
            (i for i, part in enumerate(parts) if part is widget or part.isAncestorOf(widget)),
            len(parts),
        )
        rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
        placed.setdefault(region, []).append((rect, widget))
    order: list[QWidget] = []
    for region in sorted(placed):
        for widget in _reading_order(placed[region]):
            if widget not in inside or _takes_tab(widget, window):
                order.append(widget)
            order += _reading_order(inside.get(widget, []))
    return list(dict.fromkeys(order))


def _reading_order(placed: list[tuple[QRect, QWidget]]) -> list[QWidget]:
    """Rows top to bottom (widgets side by side share a row), each row left to right."""
    rows: list[list[tuple[QRect, QWidget]]] = []
    bottom = None
    for rect, widget in sorted(placed, key=lambda item: item[0].top()):
        if bottom is None or rect.top() >= bottom:
            rows.append([])
            bottom = rect.bottom()
        rows[-1].append((rect, widget))
        bottom = max(bottom, rect.bottom())
    return [widget for row in rows for _, widget in sorted(row, key=lambda item: item[0].left())]


def _scroll_area_around(widget: QWidget) -> QScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea) and parent.widget() is not None:
            return parent
        if isinstance(parent, QAbstractScrollArea):
            return None  # a list's own parts are not stops of their own
        parent = parent.parentWidget()
    return None


def move_focus(window: QMainWindow, forward: bool) -> bool:
    """Give the focus to the next (or previous) stop; False if there is none."""
    stops = tab_stops(window)
    if not stops:
        return False
    current = QApplication.focusWidget()
    if current in stops:
        target = stops[(stops.index(current) + (1 if forward else -1)) % len(stops)]
    else:
        target = stops[0] if forward else stops[-1]
    reason = Qt.FocusReason.TabFocusReason if forward else Qt.FocusReason.BacktabFocusReason
    target.setFocus(reason)
    area = _scroll_area_around(target)
    if area is not None:
        area.ensureWidgetVisible(target)
    return True

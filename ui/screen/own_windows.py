"""Where Deskhand's own windows are on the screen, so screen control never acts on them.

The screen driver asks before every click, drag, scroll and key (on the event loop's thread):
every visible top-level window of this app counts (the main window, the approval sheet above
all, Settings, dialogs, menus, the visualizer's Stop pill), each by its frame (title bar
included) in global logical units, the space the driver's points are in. A window marked
click-through (the visualizer's drawing surface, which clicks pass through) does not count:
otherwise every action under it, that is everywhere, would be refused.
"""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QWidget

__all__ = ["CLICK_THROUGH", "mark_click_through", "own_window_rects"]

CLICK_THROUGH = "deskhandClickThrough"  # the dynamic property that marks such a window


def mark_click_through(widget: QWidget) -> None:
    """Say that clicks pass through `widget`'s window, so it is not one of the app's own."""
    widget.setProperty(CLICK_THROUGH, True)


def own_window_rects() -> list[tuple[int, int, int, int]]:
    """(x, y, width, height) of every visible top-level window of the app but click-through ones."""
    rects = []
    for widget in QApplication.topLevelWidgets():
        if not widget.isVisible() or widget.isMinimized() or widget.property(CLICK_THROUGH):
            continue
        frame = widget.frameGeometry()
        if frame.width() > 0 and frame.height() > 0:
            rects.append((frame.x(), frame.y(), frame.width(), frame.height()))
    return rects

"""Waiting for a widget's first paint: what starts "once the window is on screen" waits here.

A window is mapped (the person sees its frame) before it is painted; work that is not needed
for the first picture (loading the tools, looking for a keychain) waits until it is drawn, so
that the window never shows empty while the event loop is busy elsewhere.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget

FIRST_PAINT_WAIT_S = 3.0


class _FirstPaint(QObject):
    """Resolves `painted` when the watched widget is first painted."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.painted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self.painted.done():
            self.painted.set_result(None)
        return False


async def first_paint(widget: QWidget) -> None:
    """Once `widget` is on screen (or has had a few seconds to get there)."""
    watcher = _FirstPaint(widget)
    try:
        await asyncio.wait_for(watcher.painted, FIRST_PAINT_WAIT_S)
    except TimeoutError:
        pass  # never painted (minimised, offscreen): go on anyway
    widget.removeEventFilter(watcher)

"""What the window gives the screen control and hears from it, before the control is built.

The screen control (`screen.py`) loads the SDK and the screen drivers, which the window
must not wait for at start; the window wires itself to these hooks instead, and the control
reads them once it exists.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

Rectangle = tuple[int, int, int, int]  # x, y, width, height in global logical units
CaptureHook = Callable[[], Awaitable[None] | None]


class ScreenHooks:
    """Deskhand's own windows, the visualizer's event listeners, and its capture hooks."""

    def __init__(self) -> None:
        self.own_windows: Callable[[], list[Rectangle]] = list
        self.listeners: list[Callable[[int, Any], None]] = []  # (chat id, ScreenEvent)
        self.before_capture: CaptureHook | None = None  # hide what the window draws
        self.after_capture: CaptureHook | None = None  # and show it again

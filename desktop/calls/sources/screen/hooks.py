"""What the window gives the screen control and hears from it, before the control is built.

The screen control (`screen.py`) loads the SDK and the screen drivers, which the window
must not wait for at start; the window wires itself to these hooks instead, and the control
reads them once it exists.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from tools.screen.hand import PAUSED, TAKEN, Hand, HandState, Holder

__all__ = ["PAUSED", "TAKEN", "Hand", "HandState", "Holder", "ScreenHooks"]

Rectangle = tuple[int, int, int, int]  # x, y, width, height in global logical units
CaptureHook = Callable[[], Awaitable[None] | None]


class ScreenHooks:
    """Deskhand's own windows, the visualizer's event listeners, its capture hooks, and the
    hand (who has the controls)."""

    def __init__(self) -> None:
        self.own_windows: Callable[[], list[Rectangle]] = list
        self.listeners: list[Callable[[int, Any], None]] = []  # (chat id, ScreenEvent)
        self.before_capture: CaptureHook | None = None  # hide what the window draws
        self.after_capture: CaptureHook | None = None  # and show it again
        # Who has the controls: the overlay shows it and offers Resume, Take over, Hand back.
        self.hand = Hand(own_windows=lambda: self.own_windows())

"""What the driver is about to do, as plain data, for the app to draw (a click ring, a drag line).

The driver calls the app's `on_event(ScreenEvent)` on the event loop's thread just before it
acts, after every check has passed; for a screenshot or zoom just after the capture, so what the
app draws for it is not in the image. Points are global logical coordinates (the same space as
the app's window geometry); `region` is the area a screenshot or zoom captured. Nothing here
knows about Qt: the app turns events into an overlay, which must let clicks through and must
not be listed among the app's own windows (or every action under it would be refused), and
the driver's `before_capture` / `after_capture` hooks let the app hide it while pixels are read.
The element tool (`see/tool.py`) and the browser-window screenshot (`backends/window_shot.py`) report and
capture the same way, so the person sees every action whichever tool took it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Literal

from pydantic import ConfigDict

from tools.data import Data
from tools.screen.geometry import Point, Rect

__all__ = [
    "CaptureHook",
    "EventKind",
    "ScreenEvent",
    "ScreenEventSink",
    "around_capture",
    "call_hook",
]

log = logging.getLogger(__name__)

EventKind = Literal[
    "screenshot", "zoom", "move", "click", "press", "release", "drag", "scroll", "type", "key"
]


class ScreenEvent(Data):
    model_config = ConfigDict(frozen=True)

    kind: EventKind
    display: int | None = None  # the index of the display acted on, when there is one
    points: tuple[Point, ...] = ()  # a click: one; a drag: start and end
    region: Rect | None = None  # screenshot and zoom: the area captured
    button: Literal["left", "middle", "right"] | None = None
    count: int = 1  # 2 for a double click, notches for a scroll
    text: str = ""  # typed text, the keys pressed, a scroll direction


ScreenEventSink = Callable[[ScreenEvent], None]
CaptureHook = Callable[[], Awaitable[None] | None]


async def call_hook(hook: CaptureHook | None, name: str) -> None:
    """Run an app's capture hook (awaited when it is async); a failing hook costs nothing but
    a log line, since the pixels matter more than the overlay."""
    if hook is None:
        return
    try:
        done = hook()
        if inspect.isawaitable(done):
            await done
    except Exception:
        log.exception("The screen's %s callback failed", name)


@asynccontextmanager
async def around_capture(
    before: CaptureHook | None, after: CaptureHook | None
) -> AsyncIterator[None]:
    """The block reads pixels: `before` hides the app's overlay first (and is waited for),
    `after` shows it again however the block ends."""
    try:
        await call_hook(before, "before-capture")
        yield
    finally:
        await call_hook(after, "after-capture")

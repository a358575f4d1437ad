"""What the driver is about to do, as plain data, for the app to draw (a click ring, a drag line).

The driver calls the app's `on_event(ScreenEvent)` on the event loop's thread just before it
acts, after every check has passed; for a screenshot or zoom just after the capture, so what the
app draws for it is not in the image. Points are global logical coordinates (the same space as
the app's window geometry); `region` is the area a screenshot or zoom captured. Nothing here
knows about Qt: the app turns events into an overlay, which must let clicks through and must
not be listed among the app's own windows (or every action under it would be refused), and
the driver's `before_capture` / `after_capture` hooks let the app hide it while pixels are read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tools.screen.geometry import Point, Rect

__all__ = ["EventKind", "ScreenEvent", "ScreenEventSink"]

EventKind = Literal[
    "screenshot", "zoom", "move", "click", "press", "release", "drag", "scroll", "type", "key"
]


class ScreenEvent(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: EventKind
    display: int | None = None  # the index of the display acted on, when there is one
    points: tuple[Point, ...] = ()  # a click: one; a drag: start and end
    region: Rect | None = None  # screenshot and zoom: the area captured
    button: Literal["left", "middle", "right"] | None = None
    count: int = 1  # 2 for a double click, notches for a scroll
    text: str = ""  # typed text, the keys pressed, a scroll direction


ScreenEventSink = Callable[[ScreenEvent], None]

"""The displays of the desktop: a stable index for each, and mapping between global and local points.

Order (the index the model and the person see): displays sorted by the origin of their frame,
left to right (x), then top to bottom (y). It depends only on where the displays are, so it does
not change when another display becomes primary, and display 0 is always the left-most one.
The primary display is marked, and it is the one screenshots show until another is chosen.

A display's `frame` is in global logical units (X11 pixels, macOS points); `scale` is how many
physical pixels one logical unit has (2.0 on a Retina display, always 1.0 on X11), so a capture of
the whole display is `frame.width * scale` pixels wide.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import ConfigDict

from tools.data import Data
from tools.screen.geometry import Point, Rect

__all__ = [
    "Display",
    "describe_displays",
    "display_at",
    "number_displays",
    "primary_display",
    "to_global",
    "to_local",
]


class Display(Data):
    """One display as the desktop reports it, with its index in the documented order."""

    model_config = ConfigDict(frozen=True)

    index: int = 0
    frame: Rect
    scale: float = 1.0
    primary: bool = False
    name: str = ""


def number_displays(reported: Iterable[Display]) -> list[Display]:
    """The backend's displays, in any order, indexed in the documented order (by origin x, then y).

    Mirrored outputs (two displays with the same frame) are one display: input cannot tell them
    apart. If none is marked primary, the one at the global origin is (or else the first).
    """
    unique: dict[Rect, Display] = {}
    for display in reported:
        if display.frame.width <= 0 or display.frame.height <= 0:
            continue
        kept = unique.get(display.frame)
        if kept is None or (display.primary and not kept.primary):
            unique[display.frame] = display
    ordered = sorted(unique.values(), key=lambda d: (d.frame.x, d.frame.y, d.name))
    if ordered and not any(d.primary for d in ordered):
        at_origin = next((d for d in ordered if d.frame.contains(Point(0, 0))), ordered[0])
        ordered = [d.model_copy(update={"primary": d is at_origin}) for d in ordered]
    return [d.model_copy(update={"index": i}) for i, d in enumerate(ordered)]


def primary_display(displays: Sequence[Display]) -> Display | None:
    return next((d for d in displays if d.primary), displays[0] if displays else None)


def display_at(displays: Sequence[Display], point: Point) -> Display | None:
    """The display whose frame holds `point`, or None when it is between or beyond displays."""
    return next((d for d in displays if d.frame.contains(point)), None)


def to_local(display: Display, point: Point) -> Point:
    """A global point relative to `display`'s top-left corner (it may lie outside the display)."""
    return Point(point.x - display.frame.x, point.y - display.frame.y)


def to_global(display: Display, point: Point) -> Point:
    return Point(point.x + display.frame.x, point.y + display.frame.y)


def describe_displays(
    displays: Sequence[Display], current: int | None, image_size: tuple[int, int] | None = None
) -> str:
    """A few lines for the model's context: each display, and which one the screenshots show.

    Displays (screenshots show display 0, at 1356×847; coordinates are screenshot pixels):
    - display 0: 1920×1200 at (0, 0), primary, in the screenshots
    - display 1: 1440×900 at (1920, 0), scale 2
    """
    if not displays:
        return "No display was found."
    shown = f"display {current}" if current is not None else "no display yet"
    size = f", at {image_size[0]}×{image_size[1]}" if image_size and current is not None else ""
    lines = [f"Displays (screenshots show {shown}{size}; coordinates are screenshot pixels):"]
    for display in displays:
        frame = display.frame
        parts = [
            f"- display {display.index}: {frame.width}×{frame.height} at ({frame.x}, {frame.y})"
        ]
        if display.primary:
            parts.append("primary")
        if display.scale != 1.0:
            parts.append(f"scale {display.scale:g}")
        if display.index == current:
            parts.append("in the screenshots")
        lines.append(", ".join(parts))
    return "\n".join(lines)

"""Points and rectangles on the desktop, in whole logical units.

Global coordinates are the desktop's own: X11 pixels with the origin at the top-left of the
root window; on macOS points with the origin at the top-left of the main display (y grows down),
the space Quartz events and `CGDisplayBounds` use. Local coordinates are relative to one display's
top-left corner, in the same units.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Point", "Rect"]


class Point(NamedTuple):
    x: int
    y: int


class Rect(NamedTuple):
    """A rectangle: its top-left corner and size. It holds the points x <= px < x + width."""

    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def bottom(self) -> int:
        return self.y + self.height

    @property
    def area(self) -> int:
        return max(0, self.width) * max(0, self.height)

    def contains(self, point: Point) -> bool:
        return self.x <= point.x < self.right and self.y <= point.y < self.bottom

    def intersection(self, other: Rect) -> Rect | None:
        left, top = max(self.x, other.x), max(self.y, other.y)
        right, bottom = min(self.right, other.right), min(self.bottom, other.bottom)
        if right <= left or bottom <= top:
            return None
        return Rect(left, top, right - left, bottom - top)

    def overlap(self, other: Rect) -> float:
        """Intersection over union: 1.0 for the same rectangle, 0.0 for disjoint ones."""
        common = self.intersection(other)
        if common is None:
            return 0.0
        union = self.area + other.area - common.area
        return common.area / union if union else 0.0

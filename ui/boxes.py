"""Rows and columns filled in one call: a box layout's margins, spacing and contents in order.

A content item is a widget, a nested layout, a `(widget, stretch factor)` pair, or `STRETCH`
(empty space that takes what is left).
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QBoxLayout, QLayout, QWidget

Box = TypeVar("Box", bound=QBoxLayout)

STRETCH = None  # an item: empty space that grows

Item = QWidget | QLayout | tuple[QWidget, int] | None


def boxed(
    box: Box,
    *items: Item,
    margins: tuple[int, int, int, int] | None = None,
    spacing: int | None = None,
) -> Box:
    """`box` (a QHBoxLayout or QVBoxLayout) holding `items`; None keeps Qt's margins or spacing."""
    if margins is not None:
        box.setContentsMargins(*margins)
    if spacing is not None:
        box.setSpacing(spacing)
    for item in items:
        if item is STRETCH:
            box.addStretch(1)
        elif isinstance(item, QLayout):
            box.addLayout(item)
        elif isinstance(item, tuple):
            box.addWidget(*item)
        else:
            box.addWidget(item)
    return box

"""Rows and columns built in one call: a box layout's margins, spacing and contents in order.

A content item is a widget, a nested layout, a `(widget, stretch factor)` pair, or `STRETCH`
(empty space that takes what is left).
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QLayout, QVBoxLayout, QWidget

Box = TypeVar("Box", bound=QBoxLayout)

STRETCH = None  # an item: empty space that grows

Item = QWidget | QLayout | tuple[QWidget, int] | None
Margins = tuple[int, int, int, int]


def hbox(
    parent: QWidget | None,
    *items: Item,
    margins: Margins | None = None,
    spacing: int | None = None,
) -> QHBoxLayout:
    """A row on `parent` (none: to nest in another box); `margins` None keeps Qt's."""
    return _filled(
        QHBoxLayout(parent) if parent is not None else QHBoxLayout(), items, margins, spacing
    )


def vbox(
    parent: QWidget | None,
    *items: Item,
    margins: Margins | None = None,
    spacing: int | None = None,
) -> QVBoxLayout:
    """A column on `parent` (none: to nest in another box); `margins` None keeps Qt's."""
    return _filled(
        QVBoxLayout(parent) if parent is not None else QVBoxLayout(), items, margins, spacing
    )


def _filled(box: Box, items: tuple[Item, ...], margins: Margins | None, spacing: int | None) -> Box:
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

"""What both routine sheets are made of (ui/sheets/routines/save.py, keep.py): their
width, a body that scrolls past a height, headings, the plan and a step's target in words, and
the ways a long text keeps the sheet's width without leaving anything unseen.

Every text here may come from a page, an app or the model: labels show it as plain text, and a
tip (which Qt reads as rich text when it sees a tag) gets it escaped.
"""

from __future__ import annotations

from html import escape

import shiboken6
from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QDialog, QFrame, QLabel, QScrollArea, QWidget

from desktop.routines.model import RoutinePlan, Step
from ui.sheets.approval import plain_label

SHEET_WIDTH = 560
LONGEST_WORD = 56  # characters: a longer word is shortened in the middle (see short_words)
SCROLL_MAX = 420  # px: a sheet's body grows to this, then scrolls
SCROLL_MIN = 160  # px: the least of the body a shrunk sheet shows


def plan_lines(plan: RoutinePlan) -> list[str]:
    """The plan as a person reads it: its sites and its apps, a line each."""
    lines = []
    if plan.domains:
        lines.append("Sites: " + ", ".join(plan.domains))
    if plan.apps:
        lines.append("Apps: " + ", ".join(plan.apps))
    return lines or ["No sites or apps: its steps need no plan."]


def heading(text: str) -> QLabel:
    return plain_label(text, "routineHeading")


def sheet_title(text: str) -> QLabel:
    title = plain_label(text, "routineTitle")
    font = title.font()
    font.setPointSizeF(font.pointSizeF() * 1.25)
    font.setBold(True)
    title.setFont(font)
    return title


class Scrolled(QScrollArea):
    """A sheet's body in a frameless scroll area as tall as the body is at its width, up to
    `SCROLL_MAX` px, then it scrolls. (A scroll area's own size hint takes its content's,
    which guesses wrapped lines at another width: the sheet would open too tall.)"""

    def __init__(self, content: QWidget, width: int) -> None:
        super().__init__()
        self.setObjectName("routineScroll")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(content)
        self.content = content
        self.first_width = width  # until it has one of its own

    def tall(self) -> int:
        content = self.content
        width = self.viewport().width() if self.isVisible() else self.first_width
        tall = content.heightForWidth(width)
        return min(tall if tall > 0 else content.sizeHint().height(), SCROLL_MAX)

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.tall())

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), min(self.tall(), SCROLL_MIN))


def sheet_size(sheet: QDialog) -> QSize:
    """A sheet's size at `SHEET_WIDTH`, its wrapped lines counted at that width (a dialog's
    own hint counts them at the narrowest its words allow, and opens far too tall)."""
    layout = sheet.layout()
    return QSize(SHEET_WIDTH, layout.totalHeightForWidth(SHEET_WIDTH) if layout else 0)


def fitted(text: str, widget: QWidget, width: int) -> str:
    """`text` as it fits `width` px in `widget`'s font: shortened in the middle when longer."""
    return widget.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle, width)


def short_words(text: str, longest: int = LONGEST_WORD) -> str:
    """`text` with each word longer than `longest` characters (an address, a token) shortened
    in the middle: a label wraps only at spaces, and one long word would widen the sheet."""
    half = (longest - 1) // 2
    return " ".join(
        f"{word[:half]}…{word[-half:]}" if len(word) > longest else word for word in text.split(" ")
    )


def plain_tip(text: str) -> str:
    """A tooltip showing `text` as written (a tip reads tags as rich text: the words may come
    from a page or the model)."""
    return f"<p style='white-space: pre-wrap'>{escape(text)}</p>"


def grow_to_fit(sheet: QDialog) -> None:
    """Make a shown sheet as tall as its lines need at its width now (its first size was
    reckoned before the style sheet gave its fields their padding)."""
    layout = sheet.layout()
    if layout is None:
        return
    for area in sheet.findChildren(Scrolled):
        area.updateGeometry()  # its height hint changes with its width: ask it again
    layout.invalidate()
    needed = layout.totalHeightForWidth(sheet.width())
    if needed > sheet.height():
        sheet.resize(sheet.width(), needed)


def target_words(step: Step) -> str:
    """A step's target by meaning, as a person reads it: what, where."""
    target = step.target
    if target is None:
        return ""
    what = " ".join(
        part for part in (target.role, f"“{target.name}”" if target.name else "") if part
    )
    where = [f"near {target.near}" if target.near else ""]
    if target.url:
        where.append(f"on {target.url}")
    if target.app:
        where.append(f"in {target.app}" + (f" — {target.window}" if target.window else ""))
    return " ".join(part for part in [what, *where] if part)


class RoutineSheet(QDialog):
    """A window-modal sheet `SHEET_WIDTH` wide, as tall as its lines need."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(SHEET_WIDTH)

    def sizeHint(self) -> QSize:
        return sheet_size(self)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, lambda: grow_to_fit(self) if shiboken6.isValid(self) else None)

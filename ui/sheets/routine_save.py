"""The save sheet: a finished chat, saved as a routine Deskhand can do again without Claude.

It shows the draft `Routines.draft` made of the chat (desktop/routines/record.py): the name
(suggested from the chat's title), the steps in the cards' own words, each with a box to leave
it out, the looks that were dropped (in grey), the routine's plan (the sites and apps its run
asks for once), every typed text with a field that makes it a named parameter (empty: it stays
as typed; named: the recorded text is the parameter's default), and "End with Claude's answer".
A draft that cannot be saved (a password step, Deskhand's own places, a chat still working)
shows why instead, with no Save button.

Save calls `Routines.save`; a `RoutineError` shows its words in the sheet and nothing the
person chose is lost. Every text here was written by the model, a page or an app: it is shown
as plain text. Opened with `open()`, never `exec()`, so the asyncio loop keeps running.
"""

from __future__ import annotations

from html import escape

import shiboken6
from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.routines.book import RoutineError
from desktop.routines.model import Routine, RoutinePlan, Step
from desktop.routines.record import Draft
from desktop.routines.service import Routines
from ui.boxes import STRETCH, boxed
from ui.sheets.approval import plain_label

INTRO = (
    "Deskhand will do these steps again without asking Claude, through the same approvals: "
    "the sites and apps below are approved once per run, and consequential steps still ask."
)
LEFT_OUT = "left out: only looked · {words}"
PARAMETERS_NOTE = (
    "Name a text to type something else at each run (what was typed is its default); "
    "left empty, it stays as typed."
)
NO_STEPS = "Tick at least one step: a routine needs something to do."
TAKEN = "There is a routine named “{name}” already: choose another name."
TWICE = "“{name}” names two different texts: each parameter stands for one."
SHEET_WIDTH = 560
LONGEST_WORD = 56  # characters: a longer word is shortened in the middle (see short_words)
SCROLL_MAX = 420
SCROLL_MIN = 160  # px: the least of the body a shrunk sheet shows  # px: the sheet's scrolled part grows to this, then scrolls


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


class TypedRow:
    """One typed text and the field that may make it a parameter."""

    def __init__(self, text: str, steps: list[int]) -> None:
        self.text = text
        self.steps = steps  # the draft's steps that typed it
        self.label = plain_label("", "routineTyped", wrap=False)
        self.label.setText(fitted(f"“{text}”", self.label, SHEET_WIDTH // 2 - 40))
        self.label.setToolTip(plain_tip(text))
        self.field = QLineEdit()
        self.field.setObjectName("routineParameter")
        self.field.setPlaceholderText("parameter name (optional)")
        self.field.setAccessibleName(f"Parameter name for “{text}”")


class SaveRoutineSheet(QDialog):
    """Saves one draft as a routine, or says why it cannot be; `saved` carries the routine."""

    saved = Signal(object)  # the Routine written

    def __init__(
        self,
        draft: Draft,
        routines: Routines,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.draft = draft
        self.routines = routines
        self.setObjectName("routineSaveSheet")
        self.setWindowTitle("Save as Routine")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(SHEET_WIDTH)
        self.step_boxes: list[QCheckBox] = []
        self.dropped: list[QLabel] = []
        self.typed_rows: list[TypedRow] = []
        self.save_button: QPushButton | None = None
        self.error = plain_label("", "routineError")
        self.error.hide()
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        if draft.refusal:
            self._refused(layout)
        else:
            self._form(layout)

    def sizeHint(self) -> QSize:
        return sheet_size(self)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, lambda: grow_to_fit(self) if shiboken6.isValid(self) else None)

    # -- a draft that cannot be saved -------------------------------------------------------

    def _refused(self, layout: QVBoxLayout) -> None:
        self.refusal = plain_label(self.draft.refusal, "routineRefusal")
        close = QPushButton("Close  Esc")
        close.setDefault(True)
        close.clicked.connect(self.reject)
        self.close_button = close
        layout.addWidget(sheet_title("This chat can't be saved as a routine"))
        layout.addWidget(self.refusal)
        layout.addLayout(boxed(QHBoxLayout(), STRETCH, close))

    # -- the form ---------------------------------------------------------------------------

    def _form(self, layout: QVBoxLayout) -> None:
        draft = self.draft
        self.name = QLineEdit(draft.name)
        self.name.setObjectName("routineName")
        self.name.setAccessibleName("Routine name")
        self.name.selectAll()

        body = QWidget()
        body.setObjectName("routineBody")
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 8, 0)
        column.setSpacing(6)
        column.addWidget(heading("Steps"))
        for number, step in enumerate(draft.steps, 1):
            column.addWidget(self._step_box(number, step))
        for words in draft.dropped:
            line = plain_label(
                short_words(LEFT_OUT.format(words=words)), "routineDropped", muted=True
            )
            self.dropped.append(line)
            column.addWidget(line)
        column.addSpacing(4)
        column.addWidget(heading("Plan"))
        self.plan = [plain_label(line, "routineItem") for line in plan_lines(draft.plan)]
        for label in self.plan:
            column.addWidget(label)
        if draft.typed:
            column.addSpacing(4)
            column.addWidget(heading("Typed text"))
            column.addWidget(plain_label(PARAMETERS_NOTE, muted=True))
            column.addLayout(self._typed_grid())
        column.addStretch(1)  # a taller sheet leaves its room under the last line

        self.answer = QCheckBox("End with Claude's answer")
        self.answer.setObjectName("routineAnswer")
        self.answer.setChecked(draft.answer)
        self.answer.setToolTip(
            "One request to Claude at the end writes the answer from what the run read; "
            "unticked, the run ends with the last read's text and asks Claude nothing."
        )
        cancel = QPushButton("Cancel")
        save = QPushButton("Save")
        save.setObjectName("saveRoutine")
        save.setDefault(True)
        cancel.setAutoDefault(False)
        cancel.clicked.connect(self.reject)
        save.clicked.connect(self.save)
        self.save_button, self.cancel_button = save, cancel

        layout.addWidget(sheet_title("Save as routine"))
        layout.addWidget(plain_label(INTRO, muted=True))
        name_row = boxed(QHBoxLayout(), plain_label("Name", wrap=False), (self.name, 1))
        layout.addLayout(name_row)
        layout.addWidget(Scrolled(body, SHEET_WIDTH - 24), 1)
        layout.addWidget(self.answer)
        layout.addWidget(self.error)
        layout.addLayout(boxed(QHBoxLayout(), STRETCH, cancel, save))
        self.name.setFocus()

    def _step_box(self, number: int, step: Step) -> QCheckBox:
        words = f"{number}. {step.words or step.member}"
        box = QCheckBox()
        box.setObjectName("routineStep")
        # A box does not wrap: long words (an address) are shortened in the middle, in full
        # in the tip with the target, so the sheet keeps its width.
        box.setText(fitted(words, box, SHEET_WIDTH - 80))
        box.setToolTip(plain_tip("\n".join(part for part in (words, target_words(step)) if part)))
        box.setChecked(True)
        box.toggled.connect(self._steps_changed)
        self.step_boxes.append(box)
        return box

    def _typed_grid(self) -> QGridLayout:
        grid = QGridLayout()
        grid.setContentsMargins(8, 0, 0, 0)
        grid.setHorizontalSpacing(10)
        by_text: dict[str, TypedRow] = {}  # the same text typed twice is one parameter
        for entry in self.draft.typed:
            row = by_text.get(entry.text)
            if row is None:
                row = by_text[entry.text] = TypedRow(entry.text, [])
                self.typed_rows.append(row)
                grid.addWidget(row.label, len(self.typed_rows) - 1, 0)
                grid.addWidget(row.field, len(self.typed_rows) - 1, 1)
            row.steps.append(entry.step)
        grid.setColumnStretch(0, 2)
        grid.setColumnStretch(1, 3)
        return grid

    def _steps_changed(self) -> None:
        # A text typed only by steps left out has nothing to stand for.
        chosen = self.chosen_indexes()
        for row in self.typed_rows:
            used = any(index in chosen for index in row.steps)
            row.label.setEnabled(used)
            row.field.setEnabled(used)
        if self.save_button is not None:
            self.save_button.setEnabled(bool(chosen))
        self._say(NO_STEPS if not chosen else "")

    # -- what the person chose --------------------------------------------------------------

    def chosen_indexes(self) -> list[int]:
        return [index for index, box in enumerate(self.step_boxes) if box.isChecked()]

    def parameters(self) -> dict[str, str]:
        """Each parameter's name → the typed text it stands for. Raises RoutineError when one
        name is given to two texts."""
        chosen: dict[str, str] = {}
        for row in self.typed_rows:
            name = row.field.text().strip()
            if not name or not row.field.isEnabled():
                continue
            if name in chosen and chosen[name] != row.text:
                raise RoutineError("bad_input", TWICE.format(name=name))
            chosen[name] = row.text
        return chosen

    def save(self) -> Routine | None:
        """Save as the person chose; on a RoutineError its words show here and the sheet stays."""
        name = self.name.text().strip()
        try:
            if any(entry.name == name for entry in self.routines.entries()):
                raise RoutineError("bad_input", TAKEN.format(name=name))
            steps = [self.draft.steps[index] for index in self.chosen_indexes()]
            routine = self.routines.save(
                self.draft,
                name,
                self.parameters(),
                steps=steps,
                answer=self.answer.isChecked(),
            )
        except RoutineError as error:
            self._say(error.message)
            return None
        self.saved.emit(routine)
        self.accept()
        return routine

    def _say(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))
        if message and self.isVisible():
            grow_to_fit(self)  # the words take room of their own, not the steps'


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

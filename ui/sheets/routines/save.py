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

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.routines.book import RoutineError
from desktop.routines.model import Routine, Step
from desktop.routines.record import Draft
from desktop.routines.service import Routines
from ui.boxes import STRETCH, boxed
from ui.sheets.approval import plain_label
from ui.sheets.routines.parts import (
    SHEET_WIDTH,
    RoutineSheet,
    Scrolled,
    fitted,
    grow_to_fit,
    heading,
    plain_tip,
    plan_lines,
    sheet_title,
    short_words,
    target_words,
)

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


class SaveRoutineSheet(RoutineSheet):
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

"""The form Run opens for a routine with parameters: a field per parameter, its default filled
in; Enter runs, Esc cancels.

The values are checked by `Routines.values_for` before the form closes, so a missing value is
said beside the fields rather than after the run was asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from desktop.routines.model import Routine

# Checks the values of a run: "" when they will do, else what is wrong, for the person.
Check = Callable[[dict[str, str]], str]


class RunForm(QDialog):
    """Run “NAME”: the routine's parameters, each in a field."""

    def __init__(self, routine: Routine, check: Check, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("routineRunForm")
        self.setWindowTitle(f"Run “{routine.name}”")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(420)
        self.routine = routine
        self.check = check
        self._answer: asyncio.Future[dict[str, str] | None] | None = None
        heading = QLabel(f"Run “{routine.name}”")
        heading.setObjectName("routineFormHeading")
        about = QLabel(
            f"Its steps run again in a new chat, “▶ {routine.name}”. Each field's text goes "
            "where the recorded text went."
        )
        about.setObjectName("routineFormAbout")
        about.setWordWrap(True)
        self.fields: dict[str, QLineEdit] = {}
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for parameter in routine.parameters:
            field = QLineEdit(parameter.default)
            field.setObjectName("routineParameter")
            field.setAccessibleName(parameter.name)
            field.setPlaceholderText(f"recorded: {parameter.default}" if parameter.default else "")
            self.fields[parameter.name] = field
            form.addRow(f"{parameter.name}:", field)
        self.problem = QLabel()
        self.problem.setObjectName("routineFormProblem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        self.buttons = QDialogButtonBox()
        self.run_button = self.buttons.addButton("Run", QDialogButtonBox.ButtonRole.AcceptRole)
        self.run_button.setDefault(True)  # Enter in any field runs
        self.buttons.addButton("Cancel", QDialogButtonBox.ButtonRole.RejectRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 16)
        layout.setSpacing(10)
        layout.addWidget(heading)
        layout.addWidget(about)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        first = next(iter(self.fields.values()), None)
        if first is not None:
            first.selectAll()
            first.setFocus()
        self.finished.connect(self._closed)

    def values(self) -> dict[str, str]:
        return {name: field.text() for name, field in self.fields.items()}

    def accept(self) -> None:
        problem = self.check(self.values())
        if problem:
            self.problem.setText(problem)
            self.problem.show()
            return
        super().accept()

    async def ask(self) -> dict[str, str] | None:
        """Show the form; the values to run with, or None when the person cancelled."""
        self._answer = asyncio.get_running_loop().create_future()
        self.open()
        return await self._answer

    def _closed(self, result: int) -> None:
        if self._answer is not None and not self._answer.done():
            accepted = result == QDialog.DialogCode.Accepted
            self._answer.set_result(self.values() if accepted else None)

"""Settings pages and their forms, built from a pydantic model's fields.

A field's title is its label and its description the help text, so a new setting shows up
by adding a field to the model in `desktop/system/settings/model.py`. Each field gets a widget that shows
and returns a value of its type; a page may pass its own widget for any field. `SettingsPage`
and `Draft` are the contract between a page and the Settings dialog; a `FormPage` is a
page that is one form.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, Protocol

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.system.settings.model import KeyStorage

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1  # what a QSpinBox can hold


class FieldWidget(Protocol):
    """What the form needs from a field's widget (besides being a QWidget)."""

    def field_value(self) -> Any: ...

    def set_field_value(self, value: Any) -> None: ...


class LineField(QLineEdit):
    """One line of text; spaces around it are dropped."""

    def field_value(self) -> str:
        return self.text().strip()

    def set_field_value(self, value: str) -> None:
        self.setText(value)


class TextField(QPlainTextEdit):
    """A few lines of free text, kept exactly as typed."""

    def __init__(self, lines: int = 5, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTabChangesFocus(True)
        margins = self.contentsMargins()
        self.setFixedHeight(
            self.fontMetrics().lineSpacing() * lines
            + int(2 * self.document().documentMargin())
            + margins.top()
            + margins.bottom()
        )

    def field_value(self) -> str:
        return self.toPlainText()

    def set_field_value(self, value: str) -> None:
        self.setPlainText(value)


class IntField(QSpinBox):
    """A whole number within the field's bounds."""

    def __init__(self, minimum: int, maximum: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setRange(minimum, maximum)
        self.setMinimumWidth(140)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def field_value(self) -> int:
        return self.value()

    def set_field_value(self, value: int) -> None:
        self.setValue(value)


class BoolField(QCheckBox):
    def field_value(self) -> bool:
        return self.isChecked()

    def set_field_value(self, value: bool) -> None:
        self.setChecked(value)


class ChoiceField(QComboBox):
    """One of a fixed set of values (a `Literal`)."""

    def __init__(self, choices: Iterable[Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        for choice in choices:
            self.addItem(str(choice), choice)

    def field_value(self) -> Any:
        return self.currentData()

    def set_field_value(self, value: Any) -> None:
        self.setCurrentIndex(max(self.findData(value), 0))


WidgetFactory = Callable[[FieldInfo], QWidget]
Check = Callable[[Any], str | None]  # a value -> what is wrong with it, or None


def int_bounds(field: FieldInfo) -> tuple[int, int]:
    """The field's `ge`/`gt`/`le`/`lt` constraints as inclusive bounds."""
    low, high = _INT_MIN, _INT_MAX
    for item in field.metadata:
        if isinstance(item, annotated_types.Ge):
            low = max(low, int(item.ge))  # type: ignore[call-overload]
        elif isinstance(item, annotated_types.Gt):
            low = max(low, int(item.gt) + 1)  # type: ignore[call-overload]
        elif isinstance(item, annotated_types.Le):
            high = min(high, int(item.le))  # type: ignore[call-overload]
        elif isinstance(item, annotated_types.Lt):
            high = min(high, int(item.lt) - 1)  # type: ignore[call-overload]
    return low, high


def widget_for(field: FieldInfo) -> QWidget:
    """The standard widget for a field's type."""
    annotation = field.annotation
    if typing.get_origin(annotation) is Literal:
        return ChoiceField(typing.get_args(annotation))
    if annotation is bool:
        return BoolField()
    if annotation is int:
        return IntField(*int_bounds(field))
    if annotation is str:
        return LineField()
    raise TypeError(f"no settings widget for {annotation!r}; pass one in `widgets`")


def push_button(text: str, on_click: Callable[[], object], tip: str = "") -> QPushButton:
    """A page's button that calls `on_click` when pressed."""
    button = QPushButton(text)
    button.setToolTip(tip)
    button.clicked.connect(on_click)
    return button


def hint_label(text: str = "") -> QLabel:
    """Help text: smaller and grey, wrapped."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 0.9)
    label.setFont(font)
    return label


def error_label() -> QLabel:
    """Where a field's problem is shown; hidden while there is none."""
    label = hint_label()
    label.setForegroundRole(QPalette.ColorRole.WindowText)  # the placeholder colour is faded
    set_role(label, "error")
    label.hide()
    return label


def set_role(label: QLabel, role: str) -> None:
    """Colour a label by what it says ("error", or "" for plain text) through the theme."""
    label.setProperty("role", role)
    label.style().unpolish(label)
    label.style().polish(label)


class SettingsForm(QWidget):
    """Rows of label | widget, with help text and an error line under each widget.

    Every row may have a path ("model.base_url", as in a pydantic error's `loc`) so problems
    found on Save land under the right widget.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(14)
        self._grid.setVerticalSpacing(10)
        self._grid.setColumnStretch(1, 1)
        # Labels are as tall as one line edit, so they line up with a widget's first line.
        self._label_height = QLineEdit().sizeHint().height()
        self._fields: dict[str, QWidget] = {}
        self._checks: dict[str, Check] = {}
        self._errors: dict[str, QLabel] = {}
        self._rows: dict[str, tuple[QLabel, QWidget]] = {}
        self._columns: dict[str, QVBoxLayout] = {}

    def add_row(
        self, title: str, widget: QWidget, *, hint: str = "", path: str | None = None
    ) -> None:
        label = QLabel(title)
        label.setBuddy(widget)
        label.setMinimumHeight(self._label_height)
        label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if hint:
            label.setToolTip(hint)
            widget.setToolTip(hint)
        column = QWidget()
        stack = QVBoxLayout(column)
        stack.setContentsMargins(0, 0, 0, 0)
        stack.setSpacing(3)
        fixed = widget.sizePolicy().horizontalPolicy() == QSizePolicy.Policy.Fixed
        stack.addWidget(widget, 0, Qt.AlignmentFlag.AlignLeft if fixed else Qt.AlignmentFlag(0))
        if hint:
            stack.addWidget(hint_label(hint))
        error = error_label()
        stack.addWidget(error)
        row = self._grid.rowCount()
        self._grid.addWidget(label, row, 0, Qt.AlignmentFlag.AlignTop)
        self._grid.addWidget(column, row, 1)
        if path is not None:
            self._errors[path] = error
            self._rows[path] = (label, column)
            self._columns[path] = stack

    def add_fields(
        self,
        model: BaseModel,
        *,
        prefix: str = "",
        only: Iterable[str] | None = None,
        widgets: Mapping[str, WidgetFactory] | None = None,
        checks: Mapping[str, Check] | None = None,
    ) -> None:
        """A row per field of `model` (or the fields in `only`), filled with its current values."""
        widgets = widgets or {}
        names = list(only) if only is not None else list(type(model).model_fields)
        for name in names:
            info = type(model).model_fields[name]
            path = f"{prefix}.{name}" if prefix else name
            widget = widgets.get(name, widget_for)(info)
            typing.cast(FieldWidget, widget).set_field_value(getattr(model, name))
            self.add_row(info.title or name, widget, hint=info.description or "", path=path)
            self._fields[path] = widget
            if checks and name in checks:
                self._checks[path] = checks[name]

    def field(self, path: str) -> QWidget:
        return self._fields[path]

    def add_note(self, path: str, widget: QWidget) -> None:
        """Put `widget` under the row's help text (and above its error line)."""
        column = self._columns[path]
        column.insertWidget(column.count() - 1, widget)

    def set_row_visible(self, path: str, visible: bool) -> None:
        for widget in self._rows[path]:
            widget.setVisible(visible)

    def write(self, data: dict[str, Any]) -> None:
        """Put every field's value into `data`, a `model_dump()` of the settings, by path."""
        for path, widget in self._fields.items():
            *parents, name = path.split(".")
            target = data
            for part in parents:
                target = target[part]
            target[name] = typing.cast(FieldWidget, widget).field_value()

    def problems(self) -> dict[str, str]:
        """What the form's own checks find wrong, by path."""
        found = {}
        for path, check in self._checks.items():
            message = check(typing.cast(FieldWidget, self._fields[path]).field_value())
            if message:
                found[path] = message
        return found

    def show_problems(self, problems: Mapping[str, str]) -> set[str]:
        """Show the problems that belong to this form's rows; returns their paths."""
        shown = set()
        for path, message in problems.items():
            if path in self._errors:
                self._errors[path].setText(message)
                self._errors[path].show()
                shown.add(path)
        return shown

    def clear_problems(self) -> None:
        for label in self._errors.values():
            label.clear()
            label.hide()


@dataclasses.dataclass
class Draft:
    """What Save hands to `LiveSettings.apply`, filled in by the pages."""

    data: dict[str, Any]  # a `Settings.model_dump()` the pages update in place
    api_key: str | None = None  # None keeps the current key
    # What is wrong, by path ("model.base_url"), found before validation.
    problems: dict[str, str] = dataclasses.field(default_factory=dict)


class SettingsPage(QWidget):
    """One page of the dialog. Subclasses build their rows from the settings model."""

    edits_settings = True  # False for a page with nothing to save (the dialog offers Close)

    def collect(self, draft: Draft) -> None:
        """Write this page's values (and problems found before validation) into `draft`."""
        raise NotImplementedError

    def show_problems(self, problems: Mapping[str, str]) -> set[str]:
        """Show the problems that belong to this page; returns their paths."""
        return set()

    def clear_problems(self) -> None:
        pass

    def holds_new_secret(self) -> bool:
        """Whether the page holds a secret typed but not saved yet (an API key)."""
        return False

    def after_save(self, draft: Draft, stored_in: KeyStorage | None) -> str | None:
        """Something the person should read now that the settings are saved, if any."""
        return None

    def stop(self) -> None:
        """The dialog is closing: stop background work."""


class FormPage(SettingsPage):
    """A page that is one form over one section of the settings."""

    def __init__(self, form: SettingsForm, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = form
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)

    def collect(self, draft: Draft) -> None:
        self.form.write(draft.data)

    def show_problems(self, problems: Mapping[str, str]) -> set[str]:
        return self.form.show_problems(problems)

    def clear_problems(self) -> None:
        self.form.clear_problems()

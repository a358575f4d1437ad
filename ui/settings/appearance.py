"""Settings → Appearance: light, dark, or the same as the system.

The page is built from the appearance settings model. A choice shows at once, as a
preview; Save keeps it, and closing without saving puts back the saved one.
"""

from __future__ import annotations

from typing import cast

from pydantic.fields import FieldInfo
from PySide6.QtWidgets import QComboBox, QSizePolicy, QWidget

from desktop.system.settings.model import THEME_TITLES, Theme
from desktop.workspace import Workspace
from ui import theme
from ui.settings.form import FormPage, SettingsForm


class ThemeField(QComboBox):
    """The theme, by its title; choosing one previews it."""

    def __init__(self, _field: FieldInfo | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        for value, title in THEME_TITLES.items():
            self.addItem(title, value)
        self.setMinimumWidth(220)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.currentIndexChanged.connect(
            lambda _index: theme.theme().set_preference(self.field_value())
        )

    def field_value(self) -> Theme:
        return cast(Theme, self.currentData())

    def set_field_value(self, value: Theme) -> None:
        self.blockSignals(True)  # showing the saved value is not a new choice
        self.setCurrentIndex(max(self.findData(value), 0))
        self.blockSignals(False)


class AppearancePage(FormPage):
    """How Deskhand looks; changes show at once, without a restart."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        form = SettingsForm()
        form.add_fields(
            workspace.settings.appearance, prefix="appearance", widgets={"theme": ThemeField}
        )
        super().__init__(form, parent)
        self._workspace = workspace
        self.theme_field = cast(ThemeField, form.field("appearance.theme"))
        self.layout_.addWidget(form)
        self.layout_.addStretch(1)

    def stop(self) -> None:
        """The dialog closed: whatever was saved is what shows (a preview does not outlive it)."""
        theme.theme().set_preference(self._workspace.settings.appearance.theme)

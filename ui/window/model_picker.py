"""The model picker in the window's toolbar, kept in step with Settings → Model.

It lists the model in use and, once the list is first opened, the models the server
offers (the window fetches them; the picker only asks with `models_wanted`).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QSizePolicy, QWidget


class ModelPicker(QComboBox):
    """Emits `model_chosen(id)` when the person picks a model, never when code sets one."""

    model_chosen = Signal(str)
    models_wanted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelPicker")
        self.setToolTip("The model that answers (also in Settings → Model)")
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.setMinimumContentsLength(12)
        self.loaded = False
        self.activated.connect(lambda index: self.model_chosen.emit(self.itemText(index)))

    def current_model(self) -> str:
        return self.currentText()

    def set_current(self, model: str) -> None:
        self.blockSignals(True)
        try:
            if self.findText(model) < 0:
                self.insertItem(0, model)
            self.setCurrentIndex(self.findText(model))
        finally:
            self.blockSignals(False)

    def set_models(self, ids: list[str]) -> None:
        """The server's models (newest first); the one in use stays listed and chosen."""
        current = self.currentText()
        self.blockSignals(True)
        try:
            self.clear()
            self.addItems(ids)
        finally:
            self.blockSignals(False)
        self.loaded = True
        if current:
            self.set_current(current)

    def showPopup(self) -> None:
        if not self.loaded:
            self.models_wanted.emit()
        super().showPopup()

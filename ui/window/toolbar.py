"""The window's toolbar: the permission mode (with "for this run" when it came from the
command line) on the left, the model picker (kept in step with Settings → Model) on the right.

It shows the workspace's mode and model, saves what the person picks (saying so on the status
bar), and fetches the server's models the first time the picker is opened.
"""

from __future__ import annotations

import asyncio
import logging

import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QSizePolicy, QStatusBar, QToolBar, QWidget

from desktop.system.settings.permissions import MODE_TITLES, Mode
from desktop.workspace import Workspace

log = logging.getLogger(__name__)

FOR_THIS_RUN = "for this run"


class ModelPicker(QComboBox):
    """The model in use and, once the list is first opened, the ones the server offers (it
    asks for them with `models_wanted`). Emits `model_chosen(id)` when the person picks a
    model, never when code sets one."""

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


class WindowToolbar(QToolBar):
    """Emits `mode_chosen(Mode)` and, through `model_picker`, `model_chosen(id)`, after saving."""

    mode_chosen = Signal(object)

    def __init__(self, workspace: Workspace, status: QStatusBar, parent: QWidget | None = None):
        super().__init__("Permissions", parent)
        self.workspace = workspace
        self.status = status
        self._models_task: asyncio.Future[None] | None = None
        self.setObjectName("modeToolbar")
        self.setMovable(False)
        label = QLabel("Permissions:")
        label.setObjectName("modeLabel")
        self.mode_box = QComboBox()
        self.mode_box.setObjectName("modeBox")
        self.mode_box.setToolTip(
            "Ask every time: every action asks.\nAsk for changes: reading runs, anything else asks."
            "\nAutonomous: only actions that send, delete, pay or run code ask."
        )
        for mode, title in MODE_TITLES.items():
            self.mode_box.addItem(title, mode.value)
        self.mode_box.currentIndexChanged.connect(
            lambda index: self._mode_chosen(Mode(self.mode_box.itemData(index)))
        )
        self.mode_run_label = QLabel(FOR_THIS_RUN)
        self.mode_run_label.setObjectName("modeRunLabel")
        self.mode_run_label.setToolTip(
            "Set with --permission-mode when Deskhand started; not saved. "
            "Choosing a mode here saves it and ends the override."
        )
        self.addWidget(label)
        self.addWidget(self.mode_box)
        self.mode_run_action = self.addWidget(self.mode_run_label)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.addWidget(spacer)
        model_label = QLabel("Model:")
        model_label.setObjectName("modeLabel")
        self.model_picker = ModelPicker()
        self.addWidget(model_label)
        self.addWidget(self.model_picker)
        self.show_mode()
        self.model_picker.set_current(workspace.settings.model.model)
        self.model_picker.model_chosen.connect(self._model_chosen)
        self.model_picker.models_wanted.connect(self.load_models)

    def show_mode(self) -> None:
        """The mode in force, with "for this run" when it is this run's override, not saved."""
        mode, run_only = self.workspace.live.mode, self.workspace.live.mode_override is not None
        self.mode_box.blockSignals(True)
        self.mode_box.setCurrentIndex(max(self.mode_box.findData(mode.value), 0))
        self.mode_box.blockSignals(False)
        self.mode_run_action.setVisible(run_only)
        self.mode_run_label.setVisible(run_only)

    def _mode_chosen(self, mode: Mode) -> None:
        self.workspace.live.set_mode(mode)
        self.show_mode()
        self.status.showMessage(f"Permissions: {self.mode_box.currentText()}", 3000)
        self.mode_chosen.emit(mode)

    def _model_chosen(self, model: str) -> None:
        if model and model != self.workspace.settings.model.model:
            self.workspace.live.set_model(model)
            self.status.showMessage(f"Model: {model}", 3000)

    def settings_saved(self) -> None:
        """Settings were saved: the mode may differ, and a new key or server may offer other
        models."""
        self.show_mode()
        self.model_picker.loaded = False

    def load_models(self) -> asyncio.Future[None]:
        """Fetch the server's models for the picker (once; again after a failure)."""
        if self._models_task is None or self._models_task.done():
            self._models_task = asyncio.ensure_future(self._load_models())
        return self._models_task

    async def _load_models(self) -> None:
        try:
            ids = await self.workspace.list_models()
        except Exception:
            log.info("the models list could not be fetched", exc_info=True)
            return
        if shiboken6.isValid(self) and ids:
            self.model_picker.set_models(ids)

    def cancel_loading(self) -> None:
        """On quit: stop fetching the models list."""
        if self._models_task is not None:
            self._models_task.cancel()


STYLE = """
#modeRunLabel { color: palette(placeholder-text); font-style: italic; padding: 0px 6px; }
#modelPicker { min-width: 140px; }
"""

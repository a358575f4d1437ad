"""The window's toolbar: the permission mode (with "for this run" when it came from the
command line) on the left, the model picker on the right.

It shows what it is given and reports what the person picks; the window saves it.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QSizePolicy, QToolBar, QWidget

from desktop.calls.permissions import MODE_TITLES, Mode
from ui.window.model_picker import ModelPicker

FOR_THIS_RUN = "for this run"


class WindowToolbar(QToolBar):
    """Emits `mode_chosen(Mode)` and, through `model_picker`, `model_chosen(id)`."""

    mode_chosen = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Permissions", parent)
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
            lambda index: self.mode_chosen.emit(Mode(self.mode_box.itemData(index)))
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

    def show_mode(self, mode: Mode, *, run_only: bool) -> None:
        """The mode in force; `run_only` when it is this run's override, not saved."""
        self.mode_box.blockSignals(True)
        self.mode_box.setCurrentIndex(max(self.mode_box.findData(mode.value), 0))
        self.mode_box.blockSignals(False)
        self.mode_run_action.setVisible(run_only)
        self.mode_run_label.setVisible(run_only)


STYLE = """
#modeRunLabel { color: palette(placeholder-text); font-style: italic; padding: 0px 6px; }
#modelPicker { min-width: 140px; }
"""

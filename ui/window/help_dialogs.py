"""Help's two windows: the keyboard shortcuts (every shortcut the menus and the window define,
in a table) and About Deskhand, with what Deskhand does today, a line each (as the first-run
welcome says). Loaded when first opened: the dialog classes they use are not needed for the
window to show."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

import desktop  # `desktop.__version__` reads the package's metadata when first asked for
from ui.capabilities import capability_list
from ui.window.menus import shortcut_rows


class ShortcutsDialog(QDialog):
    """Help → Keyboard Shortcuts: a table of every shortcut."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts")
        rows = shortcut_rows()
        self.table = QTableWidget(len(rows), 2)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels(["Keys", "Does"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setShowGrid(False)
        for row, (keys, what) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(keys))
            self.table.setItem(row, 1, QTableWidgetItem(what))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(520, 480)

    def rows(self) -> list[tuple[str, str]]:
        found = []
        for row in range(self.table.rowCount()):
            keys, what = self.table.item(row, 0), self.table.item(row, 1)
            if keys is not None and what is not None:
                found.append((keys.text(), what.text()))
        return found


def about_box(parent: QWidget) -> QMessageBox:
    """Help → About Deskhand, opened (not run modally)."""
    box = QMessageBox(parent)
    box.setWindowTitle("About Deskhand")
    box.setIconPixmap(QApplication.windowIcon().pixmap(64, 64))
    box.setText(f"<b>Deskhand</b> {desktop.__version__}")
    box.setInformativeText(
        "<p>A desktop assistant that acts on your computer, with Claude. Nothing runs that you "
        f"would not have approved.</p><p>What it does today:</p>{capability_list()}"
    )
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.open()
    return box

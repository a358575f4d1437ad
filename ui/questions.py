"""The question asked before something that cannot be undone (deleting a chat, removing a
routine, signing out of a connector): window-modal, its one acting answer drawn in the theme's
danger colour, Cancel the default, and the words shown as plain text (a chat's title or a
server's name is never read as markup)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def ask_to_confirm(
    parent: QWidget,
    *,
    title: str,
    question: str,
    detail: str,
    verb: str,
    then: Callable[[], None],
    icon: QMessageBox.Icon = QMessageBox.Icon.Warning,
    ended: Callable[[], None] | None = None,
) -> QMessageBox:
    """Ask `question`, opened at once; `then()` runs only if the person answers `verb`, and
    `ended()` once the box closes, whatever the answer."""
    box = QMessageBox(parent)
    box.setIcon(icon)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(question)
    box.setInformativeText(detail)
    agreed = box.addButton(verb, QMessageBox.ButtonRole.DestructiveRole)
    agreed.setProperty("destructive", True)  # drawn in the theme's danger colour
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.setWindowModality(Qt.WindowModality.WindowModal)

    def decided(_result: int) -> None:
        if box.clickedButton() is agreed:
            then()
        if ended is not None:
            ended()
        box.deleteLater()

    box.finished.connect(decided)
    box.open()
    return box

"""Settings → Screen: whether Claude may see and use the screen, the visualizer, and on a Mac the
two permissions screen control needs.

The status line says whether the screen can be used here, and if not why and what to do (as
Deskhand found it at launch). On a Mac each permission (Screen Recording, Accessibility) is a
card: its status, why Deskhand needs it, and a button that opens its exact pane of System
Settings. macOS applies a grant only after Deskhand restarts, and the page says so.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QFont
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.calls.sources.screen.source import (
    RELAUNCH_NOTE,
    ScreenPermission,
    request_permission,
    status_line,
)
from desktop.workspace import Workspace
from ui.boxes import boxed
from ui.settings.form import FormPage, SettingsForm, hint_label

__all__ = ["PermissionCard", "ScreenPage"]


class PermissionCard(QFrame):
    """One macOS permission: its status, why it is needed, and where to grant it."""

    def __init__(self, permission: ScreenPermission, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.permission = permission
        self.setObjectName("screenPermission")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel(permission.title)
        font = self.title.font()
        font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(font)
        self.status = QLabel(
            "Allowed."
            if permission.granted
            else f"Not allowed yet: turn Deskhand on in System Settings → {permission.title}."
        )
        self.status.setObjectName("permissionStatus")
        self.status.setWordWrap(True)
        self.why = hint_label(permission.why)
        self.open_button = QPushButton(f"Open System Settings → {permission.title}")
        self.open_button.setObjectName("openPermissionPane")
        self.open_button.clicked.connect(self.open_pane)
        layout = boxed(
            QVBoxLayout(self),
            self.title,
            self.status,
            self.why,
            margins=(12, 10, 12, 10),
            spacing=4,
        )
        layout.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignLeft)

    def open_pane(self) -> None:
        """List Deskhand in the pane (macOS adds an app there once it asks), then open it."""
        request_permission(self.permission.key)
        QDesktopServices.openUrl(QUrl(self.permission.settings_url))


class ScreenPage(FormPage):
    """Whether Claude may use the screen, the visualizer, and macOS's permissions."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        form = SettingsForm()
        form.add_fields(workspace.settings.screen, prefix="screen")
        super().__init__(form, parent)
        control = workspace.toolbox.screen
        self.usable, line = status_line(control.status, enabled=workspace.settings.screen.enabled)
        self.status = QLabel(line)  # what to do, when something is missing: not faded help text
        self.status.setObjectName("screenStatus")
        self.status.setWordWrap(True)
        self.layout_.addWidget(self.status)
        self.layout_.addWidget(form)
        self.cards = [PermissionCard(permission) for permission in control.permissions]
        if self.cards:
            heading = QLabel("macOS permissions")
            font = heading.font()
            font.setWeight(QFont.Weight.DemiBold)
            heading.setFont(font)
            self.layout_.addWidget(heading)
            for card in self.cards:
                self.layout_.addWidget(card)
            self.relaunch_note = hint_label(RELAUNCH_NOTE)
            self.relaunch_note.setObjectName("relaunchNote")
            self.layout_.addWidget(self.relaunch_note)
        self.layout_.addStretch(1)

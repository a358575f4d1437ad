"""Settings → Browser and Settings → Apps: both pages are built from their settings models.

The Apps page also shows the Automation permission Deskhand last saw for each Mac app,
with a button that opens the right pane of System Settings.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.workspace import Workspace
from tools.browser import find_browser, install_hint
from tools.macos import AUTOMATION_SETTINGS_URL, macos_status
from ui.settings_form import Draft, SettingsForm, SettingsPage, hint_label

STATE_TITLES = {"allowed": "Allowed", "denied": "Not allowed", "unknown": "Not asked yet"}


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


class BrowserPage(FormPage):
    """Which browser Deskhand drives, how it shows, which sites, and the default-off members."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        form = SettingsForm()
        form.add_fields(workspace.settings.browser, prefix="browser")
        super().__init__(form, parent)
        choice = find_browser(workspace.settings.browser.executable_path.strip() or None)
        found = (
            f"Deskhand will use: {choice.path or choice.channel} ({choice.source})."
            if choice
            else f"No browser was found. Install one with: {install_hint()}"
        )
        self.found = hint_label(found)
        self.found.setObjectName("browserFound")
        self.layout_.addWidget(self.found)
        self.layout_.addWidget(form)
        self.layout_.addStretch(1)


class AppsPage(FormPage):
    """The Mac tools, and the Automation permission of each app Deskhand has tried."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        form = SettingsForm()
        form.add_fields(workspace.settings.apps, prefix="apps", only=["macos_enabled"])
        super().__init__(form, parent)
        available, line = macos_status()
        self.status = hint_label(line if not available else f"Available ({line}).")
        self.status.setObjectName("macStatus")
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("automationTable")
        self.table.setHorizontalHeaderLabels(["App", "Automation permission"])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        states = workspace.toolbox.automation.states()
        self.table.setRowCount(len(states))
        for row, (app, state) in enumerate(sorted(states.items())):
            self.table.setItem(row, 0, QTableWidgetItem(app))
            self.table.setItem(row, 1, QTableWidgetItem(STATE_TITLES.get(state, state)))
        self.open_settings = QPushButton("Open System Settings → Automation")
        self.open_settings.setEnabled(available)
        self.open_settings.clicked.connect(
            lambda: QDesktopServices.openUrl(QUrl(AUTOMATION_SETTINGS_URL))
        )
        explain = QLabel(
            "macOS asks once per app before Deskhand may control it. If you said no, turn "
            "Deskhand on for that app in System Settings → Privacy & Security → Automation."
        )
        explain.setWordWrap(True)
        self.layout_.addWidget(self.status)
        self.layout_.addWidget(form)
        self.layout_.addWidget(explain)
        self.layout_.addWidget(self.table, 1)
        self.layout_.addWidget(self.open_settings)

"""Settings → Apps: the Mac tools, the layout presets Claude saved, and Automation access.

The page shows the Automation permission Deskhand last saw for each Mac app, with a button
that opens the right pane of System Settings.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from desktop.system.mac_setup import AUTOMATION_SETTINGS_URL, macos_status
from desktop.workspace import Workspace
from ui.settings.form import Draft, FormPage, SettingsForm, hint_label

STATE_TITLES = {"allowed": "Allowed", "denied": "Not allowed", "unknown": "Not asked yet"}


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
        _fit_header(self.table)
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
        self.presets = QTableWidget(0, 2)
        self.presets.setObjectName("presetsTable")
        self.presets.setHorizontalHeaderLabels(["Layout preset", "Apps"])
        self.presets.verticalHeader().hide()
        _fit_header(self.presets)
        self._preset_items: list[list[dict[str, object]]] = []
        for preset in workspace.settings.apps.presets:
            self._add_preset_row(preset.name, [item.model_dump() for item in preset.items])
        self.delete_preset = QPushButton("Delete preset")
        self.delete_preset.clicked.connect(self._delete_selected_preset)

        self.layout_.addWidget(self.status)
        self.layout_.addWidget(form)
        self.layout_.addWidget(explain)
        self.layout_.addWidget(self.table, 1)
        self.layout_.addWidget(self.open_settings, 0, Qt.AlignmentFlag.AlignLeft)
        self.layout_.addWidget(
            hint_label(
                "Layouts Claude saved or applied for you (double-click a name to rename it):"
            )
        )
        self.layout_.addWidget(self.presets, 1)
        self.layout_.addWidget(self.delete_preset, 0, Qt.AlignmentFlag.AlignLeft)

    def _add_preset_row(self, name: str, items: list[dict[str, object]]) -> None:
        row = self.presets.rowCount()
        self.presets.insertRow(row)
        self.presets.setItem(row, 0, QTableWidgetItem(name))
        apps = QTableWidgetItem(", ".join(str(item.get("app", "")) for item in items))
        apps.setFlags(apps.flags() & ~Qt.ItemFlag.ItemIsEditable)
        self.presets.setItem(row, 1, apps)
        self._preset_items.append(items)

    def _delete_selected_preset(self) -> None:
        row = self.presets.currentRow()
        if row >= 0:
            self.presets.removeRow(row)
            del self._preset_items[row]

    def preset_names(self) -> list[str]:
        items = (self.presets.item(row, 0) for row in range(self.presets.rowCount()))
        return [item.text().strip() for item in items if item is not None]

    def collect(self, draft: Draft) -> None:
        super().collect(draft)
        draft.data["apps"]["presets"] = [
            {"name": name, "items": items}
            for name, items in zip(self.preset_names(), self._preset_items, strict=True)
        ]
        if any(not name for name in self.preset_names()):
            draft.problems["apps.presets"] = "A preset needs a name."


def _fit_header(table: QTableWidget) -> None:
    """Columns as wide as their titles and contents, the last taking the rest; room for rows."""
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(True)
    table.setMinimumHeight(
        header.sizeHint().height() + 4 * table.verticalHeader().defaultSectionSize()
    )

"""Settings → Audit: what ran, and who said so, filterable and exportable as CSV."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.audit_export import audit_rows, write_csv
from desktop.workspace import Workspace
from ui.settings.form import Draft, SettingsPage, hint_label


class AuditPage(SettingsPage):
    """Every decision and execution, newest first, filterable and exportable as CSV."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._workspace = workspace
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by tool, action, summary, decision or outcome")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.refresh)
        self.export = QPushButton("Export CSV…")
        self.export.clicked.connect(self.choose_export_file)
        self.status = hint_label()
        self.table = QTableWidget(0, 6)
        self.table.setObjectName("auditTable")
        self.table.setHorizontalHeaderLabels(
            ["Time", "Tool", "Action", "Summary", "Decision", "Outcome"]
        )
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self._export_dialog: QFileDialog | None = None

        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.export)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)

    def showEvent(self, event: QShowEvent) -> None:
        self.refresh()
        super().showEvent(event)

    def refresh(self) -> None:
        entries = self._workspace.store.audit(self.filter.text())
        rows = audit_rows(entries)
        self.table.setRowCount(len(rows))
        for row, (entry, values) in enumerate(zip(entries, rows, strict=True)):
            decision = f"{entry.decision} ({entry.decided_by})"
            for column, text in enumerate(
                (values[0], entry.tool, entry.action, entry.summary, decision, values[6])
            ):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, column, item)
        self.status.setText(f"{len(rows)} entries" if rows else "Nothing recorded yet.")

    def choose_export_file(self) -> None:
        dialog = QFileDialog(self, "Export audit log", str(Path.home() / "deskhand-audit.csv"))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("CSV files (*.csv)")
        dialog.fileSelected.connect(lambda path: self.export_to(Path(path)))
        self._export_dialog = dialog
        dialog.open()

    def export_to(self, path: Path) -> None:
        try:
            count = write_csv(self._workspace.store.audit(self.filter.text()), path)
        except OSError as exc:
            self.status.setText(
                f"Couldn't write {path}: {exc.strerror or exc}. Choose another place."
            )
            return
        self.status.setText(f"Exported {count} entries to {path}.")

    def collect(self, draft: Draft) -> None:
        """The audit log is read-only."""

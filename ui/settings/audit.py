"""Settings → Audit: what ran, and who said so, filterable and exportable as CSV."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QResizeEvent, QShowEvent
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

from desktop.calls.audit_export import (
    audit_rows,
    decision_text,
    effect_text,
    reason_text,
    write_csv,
)
from desktop.workspace import Workspace
from ui.settings.form import Draft, SettingsPage, hint_label

COLUMNS = ["Time", "Action", "Summary", "Decision", "Reason", "Outcome", "Effect"]
SUMMARY, REASON, EFFECT = COLUMNS.index("Summary"), COLUMNS.index("Reason"), COLUMNS.index("Effect")


class AuditPage(SettingsPage):
    """Every decision and execution, newest first, filterable and exportable as CSV."""

    edits_settings = False

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._workspace = workspace
        self.filter = QLineEdit()
        self.filter.setPlaceholderText(
            "Filter by action, summary, decision, reason, outcome or effect"
        )
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.refresh)
        self.export = QPushButton("Export CSV…")
        self.export.clicked.connect(self.choose_export_file)
        self.status = hint_label()
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("auditTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        # The summary wraps rather than being cut; rows are fitted as they scroll into view.
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(SUMMARY, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(REASON, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(REASON, 150)
        self._fitted: set[int] = set()
        # Rows are fitted once the columns have their widths: after the layout settles.
        self._fit_later = QTimer(self)
        self._fit_later.setSingleShot(True)
        self._fit_later.setInterval(0)
        self._fit_later.timeout.connect(self._fit_rows)
        self.table.verticalScrollBar().valueChanged.connect(lambda _value: self._fit_rows())
        header.sectionResized.connect(self._refit)
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

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_later.start()

    def refresh(self) -> None:
        entries = self._workspace.store.audit(self.filter.text())
        rows = audit_rows(entries)
        self.table.setRowCount(len(rows))
        self._fitted.clear()
        for row, (entry, values) in enumerate(zip(entries, rows, strict=True)):
            cells = (
                values[0],
                f"{entry.tool} · {entry.action}",
                entry.summary,
                decision_text(entry),
                reason_text(entry),
                values[6],
                effect_text(entry),
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
                if column in (SUMMARY, REASON):
                    item.setToolTip(text)
                elif column == EFFECT and entry.changes:
                    item.setToolTip(entry.changes)  # every line, as the CSV has them
                self.table.setItem(row, column, item)
        self._fit_later.start()
        self.status.setText(f"{len(rows)} entries" if rows else "Nothing recorded yet.")

    def _refit(self, column: int, _old: int, _new: int) -> None:
        if column in (SUMMARY, REASON):  # a new width wraps the text differently
            self._fitted.clear()
            self._fit_later.start()

    def _fit_rows(self) -> None:
        """Fit the rows on screen to their wrapped text (all 5,000 at once would take long)."""
        table = self.table
        first = max(table.rowAt(0), 0)
        last = table.rowAt(table.viewport().height() - 1)
        last = table.rowCount() - 1 if last < 0 else last
        for row in range(first, min(last + 10, table.rowCount())):
            if row not in self._fitted:
                self._fitted.add(row)
                table.resizeRowToContents(row)

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

"""Settings → Permissions: the mode and a rule per tool action.

The page edits a draft like every page: nothing is saved until Save, and Cancel leaves
the rules as they were.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic.fields import FieldInfo
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.permissions import (
    MODE_TITLES,
    RISK_TITLES,
    RULE_TITLES,
    Mode,
    PermissionSettings,
    Rule,
)
from desktop.workspace import Workspace
from ui.settings.form import Draft, SettingsForm, SettingsPage, hint_label

DEFAULT_RULE = "By mode"


class ModeField(QComboBox):
    """The permission mode, by its title."""

    def __init__(self, _field: FieldInfo | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        for mode, title in MODE_TITLES.items():
            self.addItem(title, mode.value)

    def field_value(self) -> str:
        return str(self.currentData())

    def set_field_value(self, value: Mode | str) -> None:
        self.setCurrentIndex(max(self.findData(str(value)), 0))


class RuleCombo(QComboBox):
    """By mode (no rule) / Always allow / Ask / Never."""

    def __init__(self, rule: Rule | None) -> None:
        super().__init__()
        self.addItem(DEFAULT_RULE, None)
        for value, title in RULE_TITLES.items():
            self.addItem(title, value.value)
        self.set_rule(rule)

    def rule(self) -> Rule | None:
        data = self.currentData()
        return Rule(data) if data else None

    def set_rule(self, rule: Rule | None) -> None:
        self.setCurrentIndex(self.findData(rule.value) if rule else 0)


class PermissionsPage(SettingsPage):
    """The current mode and a table of every tool action with its risk level and rule."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._workspace = workspace
        permissions = workspace.settings.permissions
        self.form = SettingsForm()
        self.form.add_fields(
            permissions, prefix="permissions", only=["mode"], widgets={"mode": ModeField}
        )

        self.table = QTableWidget(0, 4)
        self.table.setObjectName("rulesTable")
        self.table.setHorizontalHeaderLabels(["Tool", "Action", "Risk", "Rule"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.combos: dict[str, RuleCombo] = {}
        self._fill(permissions)

        self.empty = hint_label("No tools are available on this machine yet.")
        self.empty.setVisible(not self.combos)
        self.reset = QPushButton("Reset all rules")
        self.reset.clicked.connect(self.reset_rules)
        explanation = hint_label(
            "A rule decides before the mode does. “Never” always wins; “Always allow” skips the "
            "approval sheet for that action."
        )
        row = QHBoxLayout()
        row.addWidget(explanation, 1)
        row.addWidget(self.reset)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.form)
        layout.addLayout(row)
        layout.addWidget(self.empty)
        layout.addWidget(self.table, 1)

    def _fill(self, permissions: PermissionSettings) -> None:
        entries: list[tuple[str, str, str, str]] = []  # key, tool, action, risk
        for group in self._workspace.toolbox.action_groups():
            for info in group.actions:
                key = (
                    info.name
                    if info.name.startswith(f"{group.tool}.")
                    else f"{group.tool}.{info.name}"
                )
                entries.append((key, group.title, info.name, RISK_TITLES[info.risk]))
        known = {key for key, *_ in entries}
        for key in sorted(set(permissions.rules) - known):  # host rules and tools not loaded now
            tool_name, _, action = key.partition(".")
            entries.append((key, tool_name, action or "(all)", ""))
        self.table.setRowCount(len(entries))
        for row, (key, title, action, risk) in enumerate(entries):
            for column, text in enumerate((title, action, risk)):
                item = QTableWidgetItem(text)
                item.setToolTip(key)
                self.table.setItem(row, column, item)
            combo = RuleCombo(permissions.rules.get(key))
            self.table.setCellWidget(row, 3, combo)
            self.combos[key] = combo

    def reset_rules(self) -> None:
        for combo in self.combos.values():
            combo.set_rule(None)

    def collect(self, draft: Draft) -> None:
        self.form.write(draft.data)
        draft.data["permissions"]["rules"] = {
            key: rule.value
            for key, combo in self.combos.items()
            if (rule := combo.rule()) is not None
        }

    def show_problems(self, problems: Mapping[str, str]) -> set[str]:
        return self.form.show_problems(problems)

    def clear_problems(self) -> None:
        self.form.clear_problems()

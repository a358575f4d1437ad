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
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.calls.permissions import DEFAULT_CAP, RISK_TITLES, Risk, RuleScope
from desktop.system.settings.permissions import (
    MODE_TITLES,
    RULE_TITLES,
    Mode,
    PermissionSettings,
    Rule,
)
from desktop.workspace import Workspace
from ui.settings.form import Draft, IntField, SettingsForm, SettingsPage, hint_label, int_bounds

DEFAULT_RULE = "By mode"


class ModeField(QComboBox):
    """The permission mode, by its title."""

    def __init__(self, _field: FieldInfo | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        for mode, title in MODE_TITLES.items():
            self.addItem(title, mode.value)
        self.setMinimumWidth(220)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def field_value(self) -> str:
        return str(self.currentData())

    def set_field_value(self, value: Mode | str) -> None:
        self.setCurrentIndex(max(self.findData(str(value)), 0))


class MinutesField(IntField):
    """How long an approved plan lasts, in minutes."""

    def __init__(self, field: FieldInfo, parent: QWidget | None = None) -> None:
        super().__init__(*int_bounds(field), parent)
        self.setSuffix(" minutes")


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


class CapCombo(QComboBox):
    """The highest risk an Always-allow rule lets through."""

    def __init__(self, risk: Risk) -> None:
        super().__init__()
        self._risks = list(Risk)  # the scale, from reads up: an item's index is its rank
        for value in self._risks:
            self.addItem(f"up to {RISK_TITLES[value].lower()}")
        self.setCurrentIndex(risk.rank)
        self.setToolTip("Calls riskier than this still ask, even with Always allow.")

    def risk(self) -> Risk:
        return self._risks[self.currentIndex()]


class PermissionsPage(SettingsPage):
    """The current mode and a table of every tool action with its risk level and rule."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._workspace = workspace
        permissions = workspace.settings.permissions
        self.form = SettingsForm()
        self.form.add_fields(
            permissions,
            prefix="permissions",
            only=["mode", "plan_minutes"],
            widgets={"mode": ModeField, "plan_minutes": MinutesField},
        )

        self.table = QTableWidget(0, 6)
        self.table.setObjectName("rulesTable")
        self.table.setHorizontalHeaderLabels(
            ["Tool", "Action", "Site", "Usual risk", "Rule", "Always allow covers"]
        )
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.combos: dict[str, RuleCombo] = {}  # by rule scope (without its risk cap)
        self.covers: dict[str, CapCombo] = {}
        self._scopes: dict[str, RuleScope] = {}
        self._fill(permissions)

        self.empty = hint_label("No tools are available on this machine yet.")
        self.empty.setVisible(not self.combos)
        self.reset = QPushButton("Reset all rules")
        self.reset.clicked.connect(self.reset_rules)
        explanation = hint_label(
            "A rule decides before the mode does. “Never” always wins; “Always allow” skips the "
            "approval sheet for that action, on that site, for calls up to the risk it covers."
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
        """One row per action (any site), and one per saved rule with its own scope."""
        rows: dict[str, tuple[RuleScope, str, Risk | None]] = {}  # base key -> scope, title, risk
        titles: dict[str, str] = {}
        for group in self._workspace.toolbox.action_groups():
            titles[group.tool] = group.title
            for info in group.actions:
                action = info.name.removeprefix(f"{group.tool}.")
                scope = RuleScope(tool=group.tool, action=action)
                rows[scope.key] = (scope, group.title, info.risk)
        saved: dict[str, tuple[Rule, Risk | None]] = {}
        for key, rule in permissions.rules.items():
            scope = RuleScope.parse(key)
            base = scope.model_copy(update={"up_to": None})
            saved[base.key] = (rule, scope.up_to)
            if base.key not in rows:  # site rules, whole-tool rules, tools not loaded now
                rows[base.key] = (base, titles.get(scope.tool, scope.tool), None)
        self.table.setRowCount(len(rows))
        for row, (key, (scope, title, risk)) in enumerate(rows.items()):
            cells = (
                title,
                scope.action or "(every action)",
                scope.site or "Any site",
                RISK_TITLES[risk] if risk else "",
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(key)
                self.table.setItem(row, column, item)
            chosen: Rule | None = saved[key][0] if key in saved else None
            cap = saved[key][1] if key in saved else None
            combo = RuleCombo(chosen)
            # An Always allow saved without a cap covers changes; a new one its action's risk.
            covers = CapCombo(cap or (DEFAULT_CAP if chosen is Rule.ALLOW else risk or DEFAULT_CAP))
            covers.setEnabled(chosen is Rule.ALLOW)
            combo.currentIndexChanged.connect(
                lambda _i, c=combo, v=covers: v.setEnabled(c.rule() is Rule.ALLOW)
            )
            self.table.setCellWidget(row, 4, combo)
            self.table.setCellWidget(row, 5, covers)
            self.combos[key] = combo
            self.covers[key] = covers
            self._scopes[key] = scope

    def reset_rules(self) -> None:
        for combo in self.combos.values():
            combo.set_rule(None)

    def collect(self, draft: Draft) -> None:
        self.form.write(draft.data)
        rules: dict[str, str] = {}
        for key, combo in self.combos.items():
            rule = combo.rule()
            if rule is None:
                continue
            scope = self._scopes[key]
            if rule is Rule.ALLOW:
                scope = scope.model_copy(update={"up_to": self.covers[key].risk()})
            rules[scope.key] = rule.value
        draft.data["permissions"]["rules"] = rules

    def show_problems(self, problems: Mapping[str, str]) -> set[str]:
        return self.form.show_problems(problems)

    def clear_problems(self) -> None:
        self.form.clear_problems()

"""Settings → Permissions and Settings → Audit."""

from __future__ import annotations

import csv
import time
from pathlib import Path

from PySide6.QtWidgets import QDialogButtonBox

from desktop.calls.permissions import ToolCall
from desktop.system.settings.permissions import Mode, Rule
from desktop.system.store import AuditEntry
from desktop.workspace import Workspace
from tests.support.sample_tools import NotebookTool
from tools.base import Risk
from ui.settings import SettingsDialog
from ui.settings.audit import AuditPage
from ui.settings.permissions import PermissionsPage


def open_page(qtbot, workspace: Workspace, name: str) -> SettingsDialog:  # type: ignore[no-untyped-def]
    dialog = SettingsDialog(workspace, page=name)
    qtbot.addWidget(dialog)
    dialog.open()
    return dialog


def test_rules_table_lists_each_action_and_saves_rules_and_mode(
    qtbot, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    workspace.registry.add(NotebookTool(risk=Risk.CONSEQUENTIAL))
    dialog = open_page(qtbot, workspace, "permissions")
    page = dialog.page("permissions")
    assert isinstance(page, PermissionsPage)
    rows = [[page.table.item(r, c).text() for c in range(4)] for r in range(page.table.rowCount())]
    assert ["Notebook", "write", "Any site", "Consequential"] in rows

    page.combos["notebook.write"].set_rule(Rule.NEVER)
    page.form.field("permissions.mode").set_field_value(Mode.AUTONOMOUS)  # type: ignore[attr-defined]
    with qtbot.waitSignal(dialog.saved):
        dialog.button(QDialogButtonBox.StandardButton.Save).click()
    reopened = Workspace.open(workspace.paths.root)
    assert reopened.settings.permissions.rules == {"notebook.write": Rule.NEVER}
    assert reopened.settings.permissions.mode is Mode.AUTONOMOUS
    reopened.store.close()


def test_cancel_keeps_rules_and_reset_clears_them(qtbot, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    workspace.registry.add(NotebookTool())
    workspace.live.set_rule("notebook.write", Rule.ALLOW)
    workspace.live.set_rule("browser.navigate@example.com", Rule.NEVER)
    dialog = open_page(qtbot, workspace, "permissions")
    page = dialog.page("permissions")
    assert isinstance(page, PermissionsPage)
    assert {"notebook.write", "browser.navigate@example.com"} <= set(page.combos)  # host rules too
    page.reset_rules()
    dialog.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert workspace.settings.permissions.rules == {
        "notebook.write": Rule.ALLOW,
        "browser.navigate@example.com": Rule.NEVER,
    }

    dialog = open_page(qtbot, workspace, "permissions")
    dialog.page("permissions").reset_rules()  # type: ignore[attr-defined]
    with qtbot.waitSignal(dialog.saved):
        dialog.button(QDialogButtonBox.StandardButton.Save).click()
    assert workspace.settings.permissions.rules == {}


def test_the_browser_actions_are_listed_with_their_risks(qtbot, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    """On any machine with the browser on, its actions can be given rules like any tool's."""
    dialog = open_page(qtbot, workspace, "permissions")
    page = dialog.page("permissions")
    assert isinstance(page, PermissionsPage)
    assert not page.empty.isVisibleTo(page)
    rows = {
        tuple(page.table.item(row, column).text() for column in (0, 1, 3))
        for row in range(page.table.rowCount())
    }
    assert ("Browser", "screenshot", "Read") in rows
    assert ("Browser", "left_click", "Change") in rows
    assert ("Browser", "navigate", "Change") in rows
    assert not any(action == "javascript_exec" for _, action, _ in rows)  # off in Settings

    page.combos["browser.navigate"].set_rule(Rule.NEVER)
    with qtbot.waitSignal(dialog.saved):
        dialog.button(QDialogButtonBox.StandardButton.Save).click()
    assert workspace.settings.permissions.rules == {"browser.navigate": Rule.NEVER}


def test_each_rule_shows_its_scope_and_can_be_narrowed_or_removed(
    qtbot, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    workspace.live.set_rule("browser.left_click@shop.example^change", Rule.ALLOW)
    workspace.live.set_rule("browser.navigate@evil.example", Rule.NEVER)
    dialog = open_page(qtbot, workspace, "permissions")
    page = dialog.page("permissions")
    assert isinstance(page, PermissionsPage)
    shown = {
        page.table.item(row, 0).toolTip(): tuple(
            page.table.item(row, column).text() for column in range(3)
        )
        for row in range(page.table.rowCount())
    }
    assert shown["browser.left_click@shop.example"] == ("Browser", "left_click", "shop.example")
    key = "browser.left_click@shop.example"
    assert page.combos[key].rule() is Rule.ALLOW
    assert page.covers[key].risk() is Risk.CHANGE and page.covers[key].isEnabled()
    assert not page.covers["browser.navigate@evil.example"].isEnabled()  # Never has no cap

    page.covers[key].setCurrentIndex(0)  # narrow it to reads only
    page.combos["browser.navigate@evil.example"].set_rule(None)  # remove it
    with qtbot.waitSignal(dialog.saved):
        dialog.button(QDialogButtonBox.StandardButton.Save).click()
    assert workspace.settings.permissions.rules == {
        "browser.left_click@shop.example^read": Rule.ALLOW
    }


def audit(
    workspace: Workspace,
    tool: str,
    action: str,
    decision: str,
    outcome: str,
    *,
    by: str = "person",
    reason: str = "",
    summary: str = "",
) -> None:
    workspace.store.add_audit(
        AuditEntry(
            at=time.time(),
            session_id=None,
            tool=tool,
            action=action,
            summary=summary or f"{tool} {action}",
            input_digest="0" * 16,
            decision=decision,
            decided_by=by,
            outcome=outcome,
            duration_ms=12,
            reason=reason,
        )
    )


def test_audit_lists_filters_and_exports_csv(qtbot, workspace: Workspace, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    audit(workspace, "macos", "mail_send", "denied", "not run")
    audit(workspace, "browser", "navigate", "allowed", "ok")
    dialog = open_page(qtbot, workspace, "audit")
    page = dialog.page("audit")
    assert isinstance(page, AuditPage)
    assert page.table.rowCount() == 2
    assert page.table.item(0, 1).text() == "browser · navigate"  # newest first
    qtbot.keyClicks(page.filter, "mail")
    assert page.table.rowCount() == 1 and page.table.item(0, 1).text() == "macos · mail_send"

    target = tmp_path / "audit.csv"
    page.export_to(target)
    with target.open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][:3] == ["time", "tool", "action"] and rows[0][-3:] == [
        "reason",
        "effect",
        "changes",
    ]
    assert [r[1:3] for r in rows[1:]] == [["macos", "mail_send"]]
    assert "Exported 1 entries" in page.status.text()

    page.export_to(tmp_path / "missing-folder" / "audit.csv")
    assert "Couldn't write" in page.status.text()


def test_audit_says_why_each_call_was_denied_and_shows_the_whole_summary(
    qtbot, aloop, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    long = "Run JavaScript on " + "https://shop.example.com/checkout/" * 4
    audit(workspace, "browser", "javascript_exec", "denied", "not run", summary=long)
    audit(workspace, "finder", "delete", "denied", "not run", by="rule", reason="set to Never")
    audit(workspace, "mail", "send", "denied", "not run", reason="not to my boss")
    audit(workspace, "browser", "navigate", "allowed", "ok")
    dialog = open_page(qtbot, workspace, "audit")
    page = dialog.page("audit")
    assert isinstance(page, AuditPage)
    headers = [page.table.horizontalHeaderItem(c).text() for c in range(page.table.columnCount())]
    reasons = [page.table.item(row, headers.index("Reason")).text() for row in range(4)]
    assert reasons == ["", "“not to my boss”", "Your “Never” rule", "You said no"]
    assert page.table.item(1, headers.index("Decision")).text() == "Denied by you"

    # The long summary wraps onto more lines instead of being cut off.
    summary = headers.index("Summary")
    qtbot.waitUntil(lambda: page.table.rowHeight(3) > page.table.rowHeight(0))
    width = page.table.columnWidth(summary)
    lines = page.table.rowHeight(3) // page.table.fontMetrics().lineSpacing()
    assert page.table.fontMetrics().horizontalAdvance(long) <= width * lines

    # Nothing to save on this page: it offers Close, and no Save that would do nothing.
    assert not dialog.button(QDialogButtonBox.StandardButton.Save).isVisible()
    assert dialog.button(QDialogButtonBox.StandardButton.Cancel).text() == "Close"
    dialog.select_page("model")
    assert dialog.button(QDialogButtonBox.StandardButton.Save).isVisible()


def test_how_long_a_plan_lasts_is_set_on_the_permissions_page(qtbot, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    dialog = open_page(qtbot, workspace, "permissions")
    page = dialog.page("permissions")
    assert isinstance(page, PermissionsPage)
    lasts = page.form.field("permissions.plan_minutes")
    assert lasts.text() == "60 minutes"  # type: ignore[attr-defined]
    lasts.set_field_value(20)  # type: ignore[attr-defined]
    with qtbot.waitSignal(dialog.saved):
        dialog.button(QDialogButtonBox.StandardButton.Save).click()
    assert workspace.settings.permissions.plan_minutes == 20
    proposal = ToolCall(
        session_id=3,
        tool_use_id="t",
        tool="update_plan",
        action="update_plan",
        input={"domains": ["docs.example"], "approach": ["Read"]},
        risk=Risk.CHANGE,
        reason="",
        summary="",
    )
    plan = workspace.plans.approve(proposal, None)
    assert plan is not None and plan.expires_at - plan.approved_at == 20 * 60

"""The plan sheet's keys and what it answers: sites and apps removed, Esc, plain Enter."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Risk, ToolCall
from tests.support.sheets import answer_of
from ui.sheets.plan import PlanSheet

PLAN = {
    "domains": ["docs.python.org", "*.python.org"],
    "approach": ["Open the documentation", "Search for list comprehensions", "Read the result"],
    "apps": ["Reminders"],
}


def open_plan_sheet(qtbot, aloop) -> tuple[PlanSheet, ApprovalRequest, QWidget]:  # type: ignore[no-untyped-def]
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    call = ToolCall(
        session_id=1,
        tool_use_id="t",
        tool="update_plan",
        action="update_plan",
        input=PLAN,
        risk=Risk.CHANGE,
        reason="",
        summary="",
    )

    async def make() -> ApprovalRequest:
        return ApprovalRequest(call, note="update_plan")

    request = aloop.run_until_complete(make())
    sheet = PlanSheet(request, parent)
    sheet.open()
    return sheet, request, parent  # the parent stays alive with the sheet


def test_removed_sites_and_apps_are_left_out_of_the_approval(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    sheet, request, _parent = open_plan_sheet(qtbot, aloop)
    sheet.sites[1].setChecked(False)  # *.python.org
    sheet.apps[0].setChecked(False)
    sheet.approve.click()
    answer = answer_of(aloop, request)
    assert answer.allow and answer.keep == ["docs.python.org"] and not answer.always


def test_with_nothing_left_the_plan_cannot_be_approved(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    sheet, request, _parent = open_plan_sheet(qtbot, aloop)
    for box in [*sheet.sites, *sheet.apps]:
        box.setChecked(False)
    assert not sheet.approve.isEnabled()
    qtbot.keyClick(sheet, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert sheet.isVisible() and not request.done


def test_esc_means_make_changes_with_the_reason_typed(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    sheet, request, _parent = open_plan_sheet(qtbot, aloop)
    qtbot.keyClicks(sheet.reason, "skip the app")
    qtbot.keyClick(sheet, Qt.Key.Key_Escape)
    answer = answer_of(aloop, request)
    assert not answer.allow and answer.reason == "skip the app"
    assert not sheet.isVisible()

"""The approval sheet shows exactly what will run and answers the request however it closes."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer, ToolCall
from tests.support.sheets import answer_of
from tests.support.waiting import wait_until
from tools.base import Risk
from ui.sheets.approval import ApprovalSheet


def make_call(risk: Risk = Risk.CHANGE, **input: object) -> ToolCall:
    return ToolCall(
        session_id=1,
        tool_use_id="toolu_1",
        tool="macos",
        action="mail_send",
        input=input or {"to": "ana@example.com"},
        risk=risk,
        reason="Sends an email",
        summary="Send mail to ana@example.com: 'Quarterly numbers'",
        target="Mail",
    )


def open_sheet(qtbot, aloop, call: ToolCall) -> tuple[ApprovalSheet, ApprovalRequest, QWidget]:  # type: ignore[no-untyped-def]
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()

    async def make() -> ApprovalRequest:
        return ApprovalRequest(call)

    request = aloop.run_until_complete(make())
    sheet = ApprovalSheet(request, "macOS: mail send", parent)
    sheet.open()
    return sheet, request, parent


def test_invisible_characters_are_shown_as_escapes(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    call = make_call(
        subject="Pay\u200bnow", to="evil\u202egnp.exe", body="line one\nline two", name="Zoë"
    )
    sheet, _, _ = open_sheet(qtbot, aloop, call)
    shown = sheet.input_view.toPlainText()
    assert "Pay\\u200bnow" in shown and "\u200b" not in shown
    assert "evil\\u202egnp.exe" in shown and "\u202e" not in shown
    assert "line one\\nline two" in shown
    assert "Zo\\u00eb" in shown
    assert sheet.windowModality() == Qt.WindowModality.WindowModal
    assert sheet.summary.text() == call.summary and "Mail" in sheet.target.text()
    assert "Sends an email" in sheet.badge.text()


def test_allow_once_and_deny_with_reason(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    sheet, request, _ = open_sheet(qtbot, aloop, make_call())
    qtbot.mouseClick(sheet.allow_once, Qt.MouseButton.LeftButton)
    assert answer_of(aloop, request) == Answer(allow=True)
    assert not sheet.isVisible()

    sheet, request, _ = open_sheet(qtbot, aloop, make_call())
    qtbot.keyClicks(sheet.reason, "wrong person")
    qtbot.mouseClick(sheet.deny, Qt.MouseButton.LeftButton)
    assert answer_of(aloop, request) == Answer(allow=False, reason="wrong person")


def test_escape_denies_and_deny_is_default_for_consequential_calls(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    sheet, request, _ = open_sheet(qtbot, aloop, make_call(Risk.CONSEQUENTIAL))
    assert sheet.deny.isDefault() and not sheet.allow_once.isDefault()
    qtbot.keyClick(sheet, Qt.Key.Key_Escape)
    assert answer_of(aloop, request).allow is False

    sheet, _, _ = open_sheet(qtbot, aloop, make_call(Risk.CHANGE))
    assert sheet.allow_once.isDefault()


def test_always_allow_for_a_consequential_call_asks_once_more(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    sheet, request, _ = open_sheet(qtbot, aloop, make_call(Risk.CONSEQUENTIAL))
    qtbot.mouseClick(sheet.allow_always, Qt.MouseButton.LeftButton)
    assert not request.done and sheet._confirm is not None
    sheet._confirm.button(QMessageBox.StandardButton.Yes).click()
    assert answer_of(aloop, request) == Answer(allow=True, always=True)


def test_stop_closes_the_sheet(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    sheet, request, _ = open_sheet(qtbot, aloop, make_call())

    async def stop() -> None:
        waiter = asyncio.ensure_future(request.wait())
        await asyncio.sleep(0)
        waiter.cancel()
        await wait_until(lambda: not sheet.isVisible(), what="sheet closed")

    aloop.run_until_complete(stop())
    assert not sheet.isVisible()


def test_enter_in_the_reason_field_denies_even_when_allow_is_the_default(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    sheet, request, _ = open_sheet(qtbot, aloop, make_call(Risk.CHANGE))
    assert sheet.allow_once.isDefault()
    sheet.reason.setFocus()
    qtbot.keyClicks(sheet.reason, "not this one")
    qtbot.keyClick(sheet.reason, Qt.Key.Key_Return)
    assert answer_of(aloop, request) == Answer(allow=False, reason="not this one")

    sheet, request, _ = open_sheet(qtbot, aloop, make_call(Risk.CHANGE))
    sheet.reason.setFocus()
    qtbot.keyClick(sheet.reason, Qt.Key.Key_Enter)  # the keypad's Enter too, with no reason
    assert answer_of(aloop, request).allow is False


def test_ctrl_return_allows_once_and_the_button_says_so(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    sheet, request, _ = open_sheet(qtbot, aloop, make_call(Risk.CONSEQUENTIAL))
    assert "↩" in sheet.allow_once.text()
    qtbot.keyClick(sheet.input_view, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert answer_of(aloop, request) == Answer(allow=True)


def test_always_allow_says_what_it_will_cover(qtbot, aloop) -> None:  # type: ignore[no-untyped-def]
    call = make_call(Risk.CHANGE).model_copy(
        update={"tool": "browser", "action": "left_click", "target": "https://shop.example/cart"}
    )
    sheet, request, _ = open_sheet(qtbot, aloop, call)
    assert "shop.example" in sheet.allow_always.text()
    note = sheet.scope_note.text()
    assert "shop.example" in note and "change things" in note and "still ask" in note
    qtbot.mouseClick(sheet.allow_always, Qt.MouseButton.LeftButton)
    assert answer_of(aloop, request) == Answer(allow=True, always=True)

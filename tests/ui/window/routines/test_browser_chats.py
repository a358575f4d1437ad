"""Browser chats in real Chromium saved as routines: one that tried to type a password cannot
be (its save sheet says why and has no Save button, nothing is written); one that filled a form
is saved with its looks left out, its site in the plan and its typed text a parameter."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.routines.record import SECRET
from desktop.workspace import Workspace
from tests.support.model_server import (
    RecordedRequest,
    Reply,
    ScriptedModelServer,
    browser_use,
    text_reply,
    tool_reply,
)
from tests.support.page_server import PageServer
from tests.support.turns import turn_log
from tests.support.window import settle, type_and_send
from tools.browser import errors, find_browser
from ui.window.main_window import MainWindow

pytestmark = pytest.mark.skipif(
    find_browser() is None, reason="no Chromium-family browser installed"
)


@pytest.fixture
def browsing_window(
    qtbot, aloop, data_dir: Path, api_env: ScriptedModelServer
) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    data_dir.mkdir(parents=True)
    (data_dir / "settings.json").write_text(
        json.dumps(
            {
                "model": {"max_retries": 0},
                "permissions": {"mode": "autonomous"},
                "browser": {"headless": True, "allow_hosts": "127.0.0.1"},
            }
        )
    )
    workspace = Workspace.open(data_dir)
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    yield window
    aloop.run_until_complete(window.shutdown())
    aloop.run_until_complete(workspace.toolbox.close())


def finish_turn(aloop, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """The turn's end; Chromium's first start may take long on a busy machine."""
    turns = turn_log(window.conversations)
    settle(aloop, lambda: turns.finished, "the turn", timeout=90)
    assert not turns.unexpected, turns.unexpected


def result_texts(request: RecordedRequest) -> list[str]:
    """The text of each tool_result the model was sent last."""
    assert request.body is not None
    blocks: list[dict[str, Any]] = request.body["messages"][-1]["content"]
    texts = []
    for block in blocks:
        content = block.get("content")
        items = content if isinstance(content, list) else [{"type": "text", "text": content}]
        texts.append("\n".join(i.get("text", "") for i in items if i.get("type") == "text"))
    return texts


def fill_password(request: RecordedRequest) -> Reply:
    """The model, having read the page, fills the password field by its ref."""
    page = result_texts(request)[-1]  # read_page's, after navigate's
    line = next(line for line in page.splitlines() if '"Password"' in line)
    ref = next(t for t in line.replace("[", " ").replace("]", " ").split() if t.startswith("ref_"))
    target = {"type": "ref", "ref": ref}
    return tool_reply(browser_use("form_input", target=target, value="hunter2"))


def test_a_password_chat_shows_the_refusal_and_writes_nothing(
    qtbot, aloop, browsing_window: MainWindow, model_server: ScriptedModelServer, pages: PageServer
) -> None:  # type: ignore[no-untyped-def]
    window = browsing_window
    model_server.enqueue(
        tool_reply(
            browser_use("navigate", url=pages.url("login.html")),
            browser_use("read_page", filter="interactive"),
        ),
        fill_password,
        text_reply("I could not sign in: the password is yours to type."),
    )
    type_and_send(qtbot, window, "Sign in to the site")
    finish_turn(aloop, window)
    assert model_server.message_requests[2]["messages"][-1]["content"][0]["content"] == [
        {"type": "text", "text": errors.PASSWORD_FIELD}
    ]

    window.routine_files.save_current()
    sheet = window.routine_files.save_sheet
    assert sheet is not None and sheet.isVisible()
    assert sheet.refusal.text() == SECRET
    assert "Sign in by hand with Take over; routines never hold passwords." in SECRET
    assert sheet.save_button is None and sheet.step_boxes == []
    qtbot.keyClick(sheet, Qt.Key.Key_Escape)
    assert not sheet.isVisible()
    assert not window.workspace.paths.routines.exists()


def fill_name(request: RecordedRequest) -> Reply:
    page = result_texts(request)[-1]
    line = next(line for line in page.splitlines() if '"Full name' in line)
    ref = next(t for t in line.replace("[", " ").replace("]", " ").split() if t.startswith("ref_"))
    target = {"type": "ref", "ref": ref}
    return tool_reply(browser_use("form_input", target=target, value="Ada Lovelace"))


def test_a_browser_chat_saved_with_its_looks_left_out_and_its_site_in_the_plan(
    qtbot, aloop, browsing_window: MainWindow, model_server: ScriptedModelServer, pages: PageServer
) -> None:  # type: ignore[no-untyped-def]
    window = browsing_window
    model_server.enqueue(
        tool_reply(
            browser_use("navigate", url=pages.url("form.html")),
            browser_use("read_page", filter="interactive"),
        ),
        fill_name,
        tool_reply(browser_use("find", query="the full name field")),
        text_reply("The name is filled in."),
    )
    type_and_send(qtbot, window, "Fill in my name on the sign-up form")
    finish_turn(aloop, window)
    filled = model_server.message_requests[2]["messages"][-1]["content"][0]["content"]
    assert [item.get("text") for item in filled[:2]] == [
        "Set the value of ref_1.",
        'Effect:\n~ textbox "Full name": "" → "Ada Lovelace"',
    ]

    window.routine_files.save_current()
    sheet = window.routine_files.save_sheet
    assert sheet is not None and sheet.isVisible()
    site = "127.0.0.1"
    assert [box.text() for box in sheet.step_boxes] == [
        f"1. Open {pages.url('form.html')}",
        f"2. Set 'Full name' (textbox) to 'Ada Lovelace' on {site}",
        f"3. Find 'the full name field' on {site}",  # the last look: the answer came from it
    ]
    assert [line.text() for line in sheet.dropped] == [
        f"left out: only looked · Read the page on {site}"
    ]
    assert [line.text() for line in sheet.plan] == [f"Sites: {site}"]
    assert [row.label.text() for row in sheet.typed_rows] == ["“Ada Lovelace”"]
    sheet.name.setText("Sign up")
    sheet.typed_rows[0].field.setText("full_name")
    assert sheet.save() is not None

    saved = json.loads((window.workspace.paths.routines / "Sign up.json").read_text("utf-8"))
    assert saved["plan"]["domains"] == [site]
    assert [step["member"] for step in saved["steps"]] == ["navigate", "form_input", "find"]
    assert saved["steps"][1]["input"]["value"] == "{{full_name}}"
    assert saved["steps"][1]["effect"] == ['~ textbox "Full name": "" → "Ada Lovelace"']
    assert saved["parameters"] == [{"name": "full_name", "default": "Ada Lovelace"}]

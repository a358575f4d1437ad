"""The browser end to end in the real window: cards, a screenshot thumbnail, and the sheet for JavaScript."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.workspace import Workspace
from tests.support import seen
from tests.support.model_server import (
    ScriptedModelServer,
    browser_use,
    text_reply,
    tool_reply,
)
from tests.support.page_server import PageServer
from tests.support.seen import card_texts
from tests.support.window import finish_turn, settle, type_and_send
from tools.browser import find_browser
from ui.thread.tool_card import ToolCard
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
                "browser": {"headless": True, "allow_hosts": "127.0.0.1", "javascript_exec": True},
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


def test_browsing_shows_cards_a_screenshot_and_asks_before_javascript(
    qtbot, aloop, browsing_window: MainWindow, model_server: ScriptedModelServer, pages: PageServer
) -> None:  # type: ignore[no-untyped-def]
    window = browsing_window
    page = pages.url("form.html")
    model_server.enqueue(
        tool_reply(browser_use("navigate", url=page), browser_use("screenshot")),
        tool_reply(browser_use("javascript_exec", text="document.title")),
        text_reply("The form is open."),
    )
    type_and_send(qtbot, window, "Open the sign-up form")
    settle(
        aloop,
        lambda: window.approval_sheet is not None and window.approval_sheet.isVisible(),
        "the sheet",
    )
    sheet = window.approval_sheet
    assert sheet is not None
    assert "Consequential" in sheet.badge.text()
    assert page in sheet.target.text()  # the approver sees which page the script would run on
    assert "document.title" in sheet.input_view.toPlainText()
    qtbot.mouseClick(sheet.deny, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)

    cards = window.thread.findChildren(ToolCard)
    assert [c.title.text() for c in cards] == [
        "Browser: navigate",
        "Browser: screenshot",
        "Browser: javascript exec",
    ]
    # The page opened (the browser saw where it went) and was photographed; the script was denied.
    assert [c.state.text() for c in cards] == [f"Went to {page}", "Done", "You denied this"]
    assert len(cards[1].thumbnails) == 1
    shot = model_server.message_requests[1]["messages"][-1]["content"][1]
    kinds = [item["type"] for item in shot["content"]]
    assert "image" in kinds and "browser_state" in kinds

    # Reopened after a restart, the browser's cards read as they did live.
    reopened = MainWindow(window.workspace)
    qtbot.addWidget(reopened)
    reopened.open_session(window.current_session_id)
    assert card_texts(reopened) == card_texts(window)
    assert card_texts(reopened)[1][5] == 1  # the screenshot's thumbnail


def test_a_refused_local_request_shows_on_the_card_and_only_the_person_can_allow_it(
    qtbot, aloop, browsing_window: MainWindow, model_server: ScriptedModelServer, pages: PageServer
) -> None:  # type: ignore[no-untyped-def]
    window = browsing_window
    local = f"{pages.alt_origin}/second.html"  # localhost: not on the allowed list
    page = pages.url(f"reach-local.html?to={local}")
    model_server.enqueue(
        tool_reply(browser_use("navigate", url=page)),
        text_reply("The page is open."),
        tool_reply(browser_use("navigate", url=page)),
        text_reply("Opened again."),
    )
    type_and_send(qtbot, window, "Open the page")
    finish_turn(aloop, window)
    assert "/second.html" not in pages.paths()  # nothing reached the local address
    [card] = window.thread.findChildren(ToolCard)
    assert "Blocked 1 request to local addresses (localhost)" in card.notices.text()
    [offer] = card.offer_buttons
    assert offer.text() == "Allow localhost…"
    # The model never could; the person can, for this chat.
    card.allow_requested.emit("localhost", False)
    type_and_send(qtbot, window, "Try again")
    finish_turn(aloop, window)
    settle(aloop, lambda: "/second.html" in pages.paths(), "the local request")
    assert window.workspace.settings.browser.allow_hosts == "127.0.0.1"  # only this chat
    [audit] = [a for a in window.workspace.store.audit() if a.outcome and "Blocked" in a.outcome]
    assert "local addresses" in audit.outcome


def test_take_over_and_hand_back_the_browser(
    qtbot, aloop, browsing_window: MainWindow, model_server: ScriptedModelServer, pages: PageServer
) -> None:  # type: ignore[no-untyped-def]
    window = browsing_window
    hand = window.workspace.toolbox.browser_hand
    model_server.enqueue(
        tool_reply(browser_use("navigate", url=pages.url("form.html"))),
        text_reply("Please sign in yourself: press Take over, then Hand back."),
        tool_reply(browser_use("left_click", ref="e1")),  # planned before the person acted
        tool_reply(browser_use("screenshot")),
        text_reply("I see you are signed in."),
    )
    type_and_send(qtbot, window, "Open the form")
    finish_turn(aloop, window)
    [card] = window.thread.findChildren(ToolCard)
    assert card.line.hand.isVisible() and card.line.hand.text() == "Take over"

    qtbot.mouseClick(card.line.hand, Qt.MouseButton.LeftButton)
    session_id = window.current_session_id
    settle(aloop, lambda: hand.has_it(session_id), "the person to have the browser")
    assert card.line.hand.text() == "Hand back"
    # The person uses the browser themselves: types in a field, goes to another page.
    pool = window.workspace.toolbox.browser_pool
    assert pool is not None
    browser = pool.session(session_id)
    page = browser.tabs[browser.active].page
    aloop.run_until_complete(page.fill("#name", "typed by the person"))
    aloop.run_until_complete(page.goto(pages.url("second.html")))

    # Meanwhile Claude's next call waits: nothing runs, no sheet, no result yet.
    type_and_send(qtbot, window, "Go on")
    settle(aloop, lambda: len(model_server.message_requests) == 3, "the next call")
    aloop.run_until_complete(asyncio.sleep(0.5))
    assert len(model_server.message_requests) == 3 and window.is_running()

    qtbot.mouseClick(card_line(window).hand, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)
    assert not hand.has_it(session_id)
    told = json.dumps(
        model_server.message_requests[3]["messages"][-1]["content"], ensure_ascii=False
    )
    assert "The person took over the browser for" in told
    assert "“Second page”" in told and "second.html" in told and "before acting" in told
    assert "typed by the person" not in told  # never what was typed
    assert "I see you are signed in." in seen.text(window.thread)


def card_line(window: MainWindow):  # type: ignore[no-untyped-def]
    """The line that shows Take over / Hand back now (the newest browser call's)."""
    from ui.thread.tool_card import ToolRun

    lines = [c.line for c in window.thread.findChildren(ToolCard)]
    lines += [r.line for r in window.thread.findChildren(ToolRun)]
    [line] = [line for line in lines if line.hand.isVisible()]
    return line

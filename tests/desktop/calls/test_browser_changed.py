"""A page that changes after the approval: the app describes the call again and asks again.

Real agent, real gate, real Chromium on the shop page (tests/support/pages/shop.html). The
person's answer is where the page changes: while the sheet is open, the page turns the
button the approval was for into something else. Whether an order was posted is checked at
the page server; whether the button ran, on the page's own status line.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from desktop.calls.gated import ASKING_AGAIN, MAX_ASKED_AGAIN
from desktop.calls.permissions import Answer
from desktop.chat.events import ToolFinished, ToolProgress
from desktop.system.settings.permissions import Rule
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer
from tests.support.page_server import PageServer
from tests.support.shop import BUY, NEXT, Change, orders, run_turn, shop
from tools.base import Risk
from tools.browser import errors, find_browser

pytestmark = pytest.mark.skipif(
    find_browser() is None, reason="no Chromium-family browser installed"
)

# "Next" becomes a "Buy now" that submits the order form (the same element, other effect).
NEXT_BECOMES_BUY = """() => {
  const next = document.getElementById('next');
  next.textContent = 'Buy now';
  next.type = 'submit';
  document.getElementById('order').appendChild(next);
}"""
# "Buy now" becomes a harmless "Continue" button that only writes the status line.
BUY_BECOMES_CONTINUE = """() => {
  const buy = document.getElementById('buy');
  buy.textContent = 'Continue';
  buy.type = 'button';
  buy.onclick = () => { document.getElementById('status').textContent = 'continue pressed'; };
  document.body.appendChild(buy);
}"""
# The page redraws "Next": a new element that reads and does exactly the same.
NEXT_REDRAWN = """() => {
  const next = document.getElementById('next');
  next.replaceWith(next.cloneNode(true));
}"""
# "Next" is renamed each time the person is asked: a page that never holds still.
NEXT_RENAMED = "(n) => { document.getElementById('next').textContent = 'Next ' + n; }"


def script(source: str) -> Change:
    """A change the page makes to itself (the script gets the number of the question)."""

    async def change(page: Page, turn: int) -> None:
        await page.evaluate(source, turn)

    return change


def click_result(model_server: ScriptedModelServer) -> dict[str, Any]:
    block: dict[str, Any] = model_server.message_requests[2]["messages"][-1]["content"][0]
    return block


def click_audit(ws: Workspace) -> list[tuple[str, str, str | None]]:
    return [
        (a.decision, a.decided_by, a.outcome)
        for a in reversed(ws.store.audit())
        if a.action == "left_click"
    ]


def test_the_new_target_is_shown_and_allowed_then_it_acts(
    shopping: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    person = shop(
        shopping, pages, (script(NEXT_BECOMES_BUY), Answer(allow=True)), (None, Answer(allow=True))
    )
    events, _status = run_turn(shopping, person, model_server, NEXT)

    first, second = person.asked
    assert first.risk == Risk.CHANGE and "'Next'" in first.summary
    assert second.risk == Risk.CONSEQUENTIAL and "'Buy now'" in second.summary
    assert orders(pages) == ["/order"]  # approved the second time, for what it now was
    assert not click_result(model_server).get("is_error")
    assert ASKING_AGAIN in [e.line for e in events if isinstance(e, ToolProgress)]
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["ok", "ok"]
    assert click_audit(shopping) == [
        ("allowed", "person", "not run · what it acts on changed after the approval"),
        ("allowed", "person", "ok"),
    ]


def test_the_new_target_denied_leaves_the_page_alone(
    shopping: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    person = shop(
        shopping,
        pages,
        (script(NEXT_BECOMES_BUY), Answer(allow=True)),
        (None, Answer(allow=False, reason="not buying")),
    )
    events, status = run_turn(shopping, person, model_server, NEXT)

    assert [c.risk for c in person.asked] == [Risk.CHANGE, Risk.CONSEQUENTIAL]
    assert orders(pages) == [] and status == "idle"  # neither bought nor pressed
    result = click_result(model_server)
    assert result["is_error"] and "not buying" in result["content"][0]["text"]
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["ok", "denied"]


def test_a_change_the_rules_cover_does_not_ask_again(
    shopping: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    settings = shopping.settings.model_copy(deep=True)
    settings.permissions.rules["browser.left_click@127.0.0.1^change"] = Rule.ALLOW
    shopping.live.apply(settings)
    person = shop(shopping, pages, (script(BUY_BECOMES_CONTINUE), Answer(allow=True)))
    _events, status = run_turn(shopping, person, model_server, BUY)

    # Asked once, for "Buy now"; what it became is a change the site's rule allows.
    assert [(c.risk, "'Buy now'" in c.summary) for c in person.asked] == [
        (Risk.CONSEQUENTIAL, True)
    ]
    assert status == "continue pressed" and orders(pages) == []
    assert [row[:2] for row in click_audit(shopping)] == [
        ("allowed", "person"),
        ("allowed", "rule"),
    ]


def test_a_redrawn_button_that_reads_the_same_is_not_asked_twice(
    shopping: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    person = shop(shopping, pages, (script(NEXT_REDRAWN), Answer(allow=True)))
    _events, status = run_turn(shopping, person, model_server, NEXT)

    assert len(person.asked) == 1
    assert status == "next pressed"
    assert [row[:2] for row in click_audit(shopping)] == [
        ("allowed", "person"),
        ("allowed", "person"),  # the same sheet, already answered
    ]


def test_a_page_that_keeps_changing_is_refused_after_asking_again_twice(
    shopping: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    turns = [(script(NEXT_RENAMED), Answer(allow=True))] * (MAX_ASKED_AGAIN + 1)
    person = shop(shopping, pages, *turns)
    events, status = run_turn(shopping, person, model_server, NEXT)

    assert len(person.asked) == MAX_ASKED_AGAIN + 1
    assert status == "idle"
    result = click_result(model_server)
    assert result["is_error"] and result["content"][0]["text"] == errors.PAGE_CHANGED
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["ok", "error"]


def test_a_page_that_moved_to_a_site_set_to_never_is_blocked(
    shopping: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    settings = shopping.settings.model_copy(deep=True)
    settings.permissions.rules["browser.left_click@localhost"] = Rule.NEVER
    shopping.live.apply(settings)
    elsewhere = f"{pages.alt_origin}/shop.html"

    async def moves(page: Page, _turn: int) -> None:
        await page.evaluate("(url) => { location.href = url; }", elsewhere)
        await page.wait_for_url(elsewhere)
        await page.wait_for_load_state("load")

    person = shop(shopping, pages, (moves, Answer(allow=True)))
    events, status = run_turn(shopping, person, model_server, NEXT)

    assert len(person.asked) == 1  # the rule answered for the other site
    assert status == "idle"
    result = click_result(model_server)
    assert result["is_error"] and "Never" in result["content"][0]["text"]
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["ok", "blocked"]

"""A page that changes after the approval: the app describes the call again and asks again.

Real agent, real gate, real Chromium on the shop page (tests/support/pages/shop.html). The
person's answer is where the page changes: while the sheet is open, the page turns the
button the approval was for into something else. Whether an order was posted is checked at
the page server; whether the button ran, on the page's own status line.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.gated import ASKING_AGAIN, MAX_ASKED_AGAIN
from desktop.calls.permissions import Answer, ToolCall
from desktop.chat.events import AgentEvent, ToolFinished, ToolProgress
from desktop.system.permission_settings import Rule
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, browser_use, text_reply, tool_reply
from tests.support.page_server import PageServer
from tests.support.turns import send
from tools.base import Risk
from tools.browser import errors, find_browser

pytestmark = pytest.mark.skipif(
    find_browser() is None, reason="no Chromium-family browser installed"
)

# Where the shop page puts its buttons, in screenshot coordinates.
NEXT = {"type": "coordinate", "x": 500, "y": 120}
BUY = {"type": "coordinate", "x": 350, "y": 120}
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

Change = Callable[[Page, int], Awaitable[Any]]


def script(source: str) -> Change:
    """A change the page makes to itself (the script gets the number of the question)."""

    async def change(page: Page, turn: int) -> None:
        await page.evaluate(source, turn)

    return change


@pytest.fixture
def browsing(data_dir: Path, api_env: ScriptedModelServer) -> Iterator[Workspace]:
    """Headless browser on the test pages; navigating is always allowed, clicks ask."""
    data_dir.mkdir(parents=True)
    (data_dir / "settings.json").write_text(
        json.dumps(
            {
                "model": {"max_retries": 0},
                "browser": {"headless": True, "allow_hosts": "127.0.0.1, localhost"},
                "permissions": {"mode": "changes", "rules": {"browser.navigate": "allow"}},
            }
        )
    )
    ws = Workspace.open(data_dir)
    yield ws
    ws.store.close()


class ChangingPerson:
    """Answers each sheet in turn; before answering, runs the page script given for that turn
    (the page changing while the person reads the sheet)."""

    def __init__(self, ws: Workspace, url: str, *turns: tuple[Change | None, Answer]) -> None:
        self.ws, self.url = ws, url
        self.sid = ws.store.create_session().id
        self.turns = list(turns)
        self.asked: list[ToolCall] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def __call__(self, request: ApprovalRequest) -> None:
        self.asked.append(request.call)
        change, answer = self.turns.pop(0)
        task = asyncio.ensure_future(self._answer(request, change, answer, len(self.asked)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(
        self, request: ApprovalRequest, change: Change | None, answer: Answer, turn: int
    ) -> None:
        if change is not None:
            await change(await self.page(), turn)
        request.answer(answer)

    async def page(self) -> Page:
        pool = self.ws.toolbox.browser_pool
        assert pool is not None
        return (await pool.session(str(self.sid)).tab(None)).page


def run_turn(
    ws: Workspace, person: ChangingPerson, model_server: ScriptedModelServer, target: Any
) -> tuple[list[AgentEvent], str]:
    """One turn: open the shop, click `target`; returns the events and the page's status."""
    model_server.enqueue(
        tool_reply(browser_use("navigate", url=person.url)),
        tool_reply(browser_use("left_click", target=target)),
        text_reply("Done."),
    )
    events: list[AgentEvent] = []
    status = ""

    async def go() -> None:
        nonlocal status
        ws.approvals.subscribe(person)
        await send(ws.conversations, person.sid, "Go on in the shop", events.append)
        status = await page_status(await person.page())
        await ws.toolbox.close()
        await ws.agent.close()

    asyncio.run(go())
    return events, status


async def page_status(page: Page) -> str:
    """The shop's status line, or "" once the page has gone elsewhere (a posted order)."""
    script = "document.getElementById('status')?.textContent ?? ''"
    try:
        return str(await page.evaluate(script))
    except PlaywrightError:  # caught mid-navigation: read the page it went to
        await page.wait_for_load_state("load")
        return str(await page.evaluate(script))


def shop(ws: Workspace, pages: PageServer, *turns: tuple[Change | None, Answer]) -> ChangingPerson:
    return ChangingPerson(ws, pages.url("shop.html"), *turns)


def orders(pages: PageServer) -> list[str]:
    return [path for path in pages.paths() if path == "/order"]


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
    browsing: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    person = shop(
        browsing, pages, (script(NEXT_BECOMES_BUY), Answer(allow=True)), (None, Answer(allow=True))
    )
    events, _status = run_turn(browsing, person, model_server, NEXT)

    first, second = person.asked
    assert first.risk == Risk.CHANGE and "'Next'" in first.summary
    assert second.risk == Risk.CONSEQUENTIAL and "'Buy now'" in second.summary
    assert orders(pages) == ["/order"]  # approved the second time, for what it now was
    assert not click_result(model_server).get("is_error")
    assert ASKING_AGAIN in [e.line for e in events if isinstance(e, ToolProgress)]
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["ok", "ok"]
    assert click_audit(browsing) == [
        ("allowed", "person", "not run · what it acts on changed after the approval"),
        ("allowed", "person", "ok"),
    ]


def test_the_new_target_denied_leaves_the_page_alone(
    browsing: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    person = shop(
        browsing,
        pages,
        (script(NEXT_BECOMES_BUY), Answer(allow=True)),
        (None, Answer(allow=False, reason="not buying")),
    )
    events, status = run_turn(browsing, person, model_server, NEXT)

    assert [c.risk for c in person.asked] == [Risk.CHANGE, Risk.CONSEQUENTIAL]
    assert orders(pages) == [] and status == "idle"  # neither bought nor pressed
    result = click_result(model_server)
    assert result["is_error"] and "not buying" in result["content"][0]["text"]
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["ok", "denied"]


def test_a_change_the_rules_cover_does_not_ask_again(
    browsing: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    settings = browsing.settings.model_copy(deep=True)
    settings.permissions.rules["browser.left_click@127.0.0.1^change"] = Rule.ALLOW
    browsing.live.apply(settings)
    person = shop(browsing, pages, (script(BUY_BECOMES_CONTINUE), Answer(allow=True)))
    _events, status = run_turn(browsing, person, model_server, BUY)

    # Asked once, for "Buy now"; what it became is a change the site's rule allows.
    assert [(c.risk, "'Buy now'" in c.summary) for c in person.asked] == [
        (Risk.CONSEQUENTIAL, True)
    ]
    assert status == "continue pressed" and orders(pages) == []
    assert [row[:2] for row in click_audit(browsing)] == [
        ("allowed", "person"),
        ("allowed", "rule"),
    ]


def test_a_redrawn_button_that_reads_the_same_is_not_asked_twice(
    browsing: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    person = shop(browsing, pages, (script(NEXT_REDRAWN), Answer(allow=True)))
    _events, status = run_turn(browsing, person, model_server, NEXT)

    assert len(person.asked) == 1
    assert status == "next pressed"
    assert [row[:2] for row in click_audit(browsing)] == [
        ("allowed", "person"),
        ("allowed", "person"),  # the same sheet, already answered
    ]


def test_a_page_that_keeps_changing_is_refused_after_asking_again_twice(
    browsing: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    turns = [(script(NEXT_RENAMED), Answer(allow=True))] * (MAX_ASKED_AGAIN + 1)
    person = shop(browsing, pages, *turns)
    events, status = run_turn(browsing, person, model_server, NEXT)

    assert len(person.asked) == MAX_ASKED_AGAIN + 1
    assert status == "idle"
    result = click_result(model_server)
    assert result["is_error"] and result["content"][0]["text"] == errors.PAGE_CHANGED
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["ok", "error"]


def test_a_page_that_moved_to_a_site_set_to_never_is_blocked(
    browsing: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    settings = browsing.settings.model_copy(deep=True)
    settings.permissions.rules["browser.left_click@localhost"] = Rule.NEVER
    browsing.live.apply(settings)
    elsewhere = f"{pages.alt_origin}/shop.html"

    async def moves(page: Page, _turn: int) -> None:
        await page.evaluate("(url) => { location.href = url; }", elsewhere)
        await page.wait_for_url(elsewhere)
        await page.wait_for_load_state("load")

    person = shop(browsing, pages, (moves, Answer(allow=True)))
    events, status = run_turn(browsing, person, model_server, NEXT)

    assert len(person.asked) == 1  # the rule answered for the other site
    assert status == "idle"
    result = click_result(model_server)
    assert result["is_error"] and "Never" in result["content"][0]["text"]
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["ok", "blocked"]

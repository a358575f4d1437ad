"""The shop page (tests/support/pages/shop.html) as a person uses it through the real agent and
gate: where its buttons are, a person who answers each sheet while the page changes under it,
one turn that opens the shop and clicks, and the orders that reached the page server."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer, ToolCall
from desktop.chat.events import AgentEvent
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, browser_use, text_reply, tool_reply
from tests.support.page_server import PageServer
from tests.support.turns import send

# Where the shop page puts its buttons, in screenshot coordinates.
NEXT = {"type": "coordinate", "x": 500, "y": 120}
BUY = {"type": "coordinate", "x": 350, "y": 120}

Change = Callable[[Page, int], Awaitable[Any]]


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

"""Each call is described once: the card shows what the approval sheet asks about.

Real agent, real gate, real Chromium on the shop page. The click is addressed by a point, so
only a look at the page can say what it lands on ("Buy now"); that look is the call's one
description, and the card, the sheet and the stored card (what a reopened chat shows) all read
it.
"""

from __future__ import annotations

from desktop.calls.contract import CARD_KEY
from desktop.calls.permissions import Answer
from desktop.chat.events import ToolStarted
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer
from tests.support.page_server import PageServer
from tests.support.shop import BUY, orders, run_turn, shop
from tools.base import Risk


def test_the_card_says_what_the_sheet_asked_about(
    shopping: Workspace,
    model_server: ScriptedModelServer,
    pages: PageServer,
) -> None:
    person = shop(shopping, pages, (None, Answer(allow=False)))
    events, _status = run_turn(shopping, person, model_server, BUY)

    [asked] = person.asked
    assert asked.risk == Risk.CONSEQUENTIAL and "'Buy now'" in asked.summary
    [card] = [e for e in events if isinstance(e, ToolStarted) and e.name == "left_click"]
    assert (card.label, card.summary) == (asked.label, asked.summary)
    stored = [
        block[CARD_KEY]
        for message in shopping.store.messages(person.sid)
        if isinstance(message.content, list)
        for block in message.content
        if isinstance(block, dict) and block.get("tool_use_id") == asked.tool_use_id
    ]
    assert [card["summary"] for card in stored] == [asked.summary]
    assert orders(pages) == []  # denied: nothing was posted

"""The toolset on the wire: a real `AsyncAnthropic` client, the scripted model server, real Chromium.

The scripted "model" sends browser tool_use blocks (`toolset_name: "browser"`); the loop here
answers each with `toolset.tool_result(use)`, as the app's agent does. The next request must
carry the toolset's `tools[]` entry and well-formed tool_result blocks: text, the screenshot
image, and the browser_state block.
"""

from __future__ import annotations

import pytest
from anthropic import AsyncAnthropic

from tests.support.model_server import (
    ScriptedModelServer,
    browser_use,
    text_reply,
    tool_reply,
)
from tests.support.page_server import PageServer
from tests.tools.browser.conftest import Driver, Gate

pytestmark = pytest.mark.anyio


async def test_a_turn_of_browser_calls_round_trips_through_the_api(
    browser: Driver, pages: PageServer, gate: Gate
) -> None:
    toolset = browser.toolset
    with ScriptedModelServer() as server:
        client = AsyncAnthropic(api_key="test", base_url=server.base_url, max_retries=0)
        server.enqueue(
            tool_reply(
                browser_use("navigate", url=pages.url("form.html")),
                browser_use("read_page", filter="interactive"),
            )
        )
        messages: list[dict] = [{"role": "user", "content": "Sign me up"}]

        async def turn() -> list[dict]:
            reply = await client.beta.messages.create(
                model="claude-test", max_tokens=512, tools=[toolset], messages=messages
            )
            messages.append({"role": "assistant", "content": [b.to_dict() for b in reply.content]})
            results = []
            for block in reply.content:
                if block.type == "tool_use" and block.toolset_name == toolset.toolset_name:
                    results.append(dict(await toolset.tool_result(block)))
            messages.append({"role": "user", "content": results})
            return results

        first = await turn()
        sign_up = next(
            line.split("[")[-1].rstrip("]")
            for line in first[1]["content"][0]["text"].splitlines()
            if '"Sign up"' in line
        )
        server.enqueue(
            tool_reply(
                browser_use("left_click", target={"type": "ref", "ref": sign_up}),
                browser_use("screenshot"),
            ),
            text_reply("Signed up."),
        )
        second = await turn()
        final = await client.beta.messages.create(
            model="claude-test", max_tokens=512, tools=[toolset], messages=messages
        )
        assert final.content[0].text == "Signed up."

    sent = server.message_requests
    assert sent[0]["tools"] == [toolset.to_dict()]
    assert sent[0]["tools"][0]["type"] == "browser_toolset_20260801"
    navigate_result, read_result = sent[1]["messages"][-1]["content"]
    assert navigate_result["toolset_name"] == "browser"
    assert navigate_result["content"][0]["text"].startswith("Navigated to ")
    assert navigate_result["content"][-1]["type"] == "browser_state"
    assert 'button "Sign up"' in read_result["content"][0]["text"]
    click_result, shot_result = sent[2]["messages"][-1]["content"]
    assert click_result["content"][0] == {"type": "text", "text": "Clicked."}
    image, state = shot_result["content"]
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    assert state["tabs"][0]["url"] == pages.url("form.html") and state["tabs"][0]["active"]
    assert [r["is_error"] for r in second if "is_error" in r] == []
    assert gate.members() == ["navigate", "read_page", "left_click", "screenshot"]

"""Checks ScriptedModelServer against the real `anthropic.AsyncAnthropic` client.

Plain sync tests driving `asyncio.run`, so they do not depend on pytest-asyncio.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import anthropic
import httpx2
import pytest
from anthropic.lib.streaming import BetaAsyncMessageStreamManager

from .model_server import (
    DropConnection,
    Hang,
    HttpError,
    RecordedRequest,
    Reply,
    ScriptedModelServer,
    StreamError,
    Text,
    ToolUse,
    Usage,
    text_reply,
    tool_reply,
)

T = TypeVar("T")
MODEL = "claude-sonnet-5-5"
MESSAGES: list[Any] = [{"role": "user", "content": "hi"}]


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as s:
        yield s


def run(
    server: ScriptedModelServer,
    body: Callable[[anthropic.AsyncAnthropic], Awaitable[T]],
    max_retries: int = 0,
) -> T:
    """Run `body(client)` on a fresh event loop with a client pointed at `server`."""

    async def main() -> T:
        async with anthropic.AsyncAnthropic(
            api_key="test", base_url=server.base_url, max_retries=max_retries
        ) as client:
            return await body(client)

    return asyncio.run(main())


def stream(client: anthropic.AsyncAnthropic) -> BetaAsyncMessageStreamManager[Any]:
    return client.beta.messages.stream(model=MODEL, max_tokens=100, messages=MESSAGES)


def test_streamed_text_reply(server: ScriptedModelServer) -> None:
    server.enqueue(text_reply("Hello there, world!", usage=Usage(cache_read_input_tokens=7)))

    async def body(client: anthropic.AsyncAnthropic) -> tuple[list[str], Any]:
        async with stream(client) as s:
            deltas = [t async for t in s.text_stream]
            return deltas, await s.get_final_message()

    deltas, message = run(server, body)
    assert deltas == ["Hello th", "ere, wor", "ld!"]
    assert message.content[0].type == "text"
    assert message.content[0].text == "Hello there, world!"
    assert message.stop_reason == "end_turn"
    assert message.model == MODEL
    assert message.id.startswith("msg_")
    assert message.usage.input_tokens == 10
    assert message.usage.output_tokens == 5
    assert message.usage.cache_read_input_tokens == 7
    assert message.usage.cache_creation_input_tokens == 0
    assert server.pending() == 0


def test_stream_deltas_arrive_in_real_time(server: ScriptedModelServer) -> None:
    server.enqueue(Reply(blocks=[Text(text="abcdefghij", chunk_size=2)], chunk_delay=0.1))

    async def body(client: anthropic.AsyncAnthropic) -> list[float]:
        stamps: list[float] = []
        async with stream(client) as s:
            async for _ in s.text_stream:
                stamps.append(time.monotonic())
        return stamps

    stamps = run(server, body)
    assert len(stamps) == 5
    # Flushed one by one, not buffered until the end.
    assert stamps[-1] - stamps[0] >= 0.3


def test_tool_reply(server: ScriptedModelServer) -> None:
    use = ToolUse(
        name="click",
        input={"selector": "#go", "times": 2, "opts": {"force": True}},
        extra={"toolset_name": "browser", "custom": 1},
    )
    server.enqueue(tool_reply(use, text="Clicking."), tool_reply(ToolUse(name="noop")))

    async def body(client: anthropic.AsyncAnthropic) -> list[Any]:
        finals = []
        for _ in range(2):
            async with stream(client) as s:
                finals.append(await s.get_final_message())
        return finals

    first, second = run(server, body)
    assert first.stop_reason == "tool_use"
    assert [b.type for b in first.content] == ["text", "tool_use"]
    block = first.content[1]
    assert block.name == "click"
    assert block.input == {"selector": "#go", "times": 2, "opts": {"force": True}}
    assert block.toolset_name == "browser"
    assert block.model_extra == {"custom": 1}
    assert block.id.startswith("toolu_")
    noop = second.content[0]
    assert noop.input == {}
    assert noop.id.startswith("toolu_") and noop.id != block.id


def test_explicit_tool_id_is_kept(server: ScriptedModelServer) -> None:
    server.enqueue(tool_reply(ToolUse(name="x", id="toolu_fixed")))

    async def body(client: anthropic.AsyncAnthropic) -> Any:
        async with stream(client) as s:
            return await s.get_final_message()

    assert run(server, body).content[0].id == "toolu_fixed"


def test_non_streaming_create(server: ScriptedModelServer) -> None:
    server.enqueue(
        tool_reply(ToolUse(name="read", input={"path": "a.txt"}), text="Let me look."),
        text_reply("plain", model="claude-opus-5-5"),
    )

    async def body(client: anthropic.AsyncAnthropic) -> list[Any]:
        return [
            await client.messages.create(model=MODEL, max_tokens=100, messages=MESSAGES),
            await client.beta.messages.create(model=MODEL, max_tokens=100, messages=MESSAGES),
        ]

    tools, plain = run(server, body)
    assert tools.stop_reason == "tool_use"
    assert tools.content[0].text == "Let me look."
    assert tools.content[1].input == {"path": "a.txt"}
    assert plain.content[0].text == "plain"
    assert plain.model == "claude-opus-5-5"
    assert plain.usage.output_tokens == 5


def test_http_401_raises_authentication_error(server: ScriptedModelServer) -> None:
    server.enqueue(HttpError(status=401, type="authentication_error", message="bad key"))

    async def body(client: anthropic.AsyncAnthropic) -> None:
        async with stream(client) as s:
            await s.get_final_message()

    with pytest.raises(anthropic.AuthenticationError) as info:
        run(server, body)
    assert info.value.type == "authentication_error"
    assert info.value.api_message == "bad key"
    assert info.value.request_id is not None and info.value.request_id.startswith("req_")


def test_http_429_raises_rate_limit_error(server: ScriptedModelServer) -> None:
    server.enqueue(HttpError(status=429, type="rate_limit_error", headers={"retry-after": "12"}))

    async def body(client: anthropic.AsyncAnthropic) -> Any:
        return await client.messages.create(model=MODEL, max_tokens=10, messages=MESSAGES)

    with pytest.raises(anthropic.RateLimitError) as info:
        run(server, body)
    assert info.value.response.headers["retry-after"] == "12"
    assert info.value.type == "rate_limit_error"


def test_sdk_retries_429_then_succeeds(server: ScriptedModelServer) -> None:
    server.enqueue(
        HttpError(status=429, type="rate_limit_error", headers={"retry-after": "0"}),
        text_reply("after retry"),
    )

    async def body(client: anthropic.AsyncAnthropic) -> str:
        async with stream(client) as s:
            return await s.get_final_text()

    assert run(server, body, max_retries=2) == "after retry"
    assert len(server.message_requests) == 2
    assert server.requests[1].headers["x-stainless-retry-count"] == "1"


def test_stream_error_mid_stream(server: ScriptedModelServer) -> None:
    server.enqueue(StreamError(text="partial"))
    received: list[str] = []

    async def body(client: anthropic.AsyncAnthropic) -> None:
        async with stream(client) as s:
            async for t in s.text_stream:
                received.append(t)

    with pytest.raises(anthropic.APIStatusError) as info:
        run(server, body)
    assert received == ["partial"]
    assert type(info.value) is anthropic.APIStatusError  # status 200 maps to no subclass
    assert info.value.status_code == 200
    assert info.value.type == "overloaded_error"
    assert info.value.api_message == "Overloaded"
    assert info.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }


def test_drop_connection_mid_stream(server: ScriptedModelServer) -> None:
    server.enqueue(DropConnection(text="Half an ans"))
    received: list[str] = []

    async def body(client: anthropic.AsyncAnthropic) -> None:
        async with stream(client) as s:
            async for t in s.text_stream:
                received.append(t)

    with pytest.raises(httpx2.RemoteProtocolError, match="incomplete chunked read"):
        run(server, body)
    assert "".join(received) == "Half an ans"


def test_drop_connection_without_stream_is_connection_error(
    server: ScriptedModelServer,
) -> None:
    server.enqueue(DropConnection())

    async def body(client: anthropic.AsyncAnthropic) -> Any:
        return await client.messages.create(model=MODEL, max_tokens=10, messages=MESSAGES)

    with pytest.raises(anthropic.APIConnectionError):
        run(server, body)


def test_hang_then_cancel_returns_promptly(server: ScriptedModelServer) -> None:
    server.enqueue(Hang(text="thinking"))

    async def body(client: anthropic.AsyncAnthropic) -> tuple[list[str], float]:
        received: list[str] = []
        got_text = asyncio.Event()

        async def consume() -> None:
            async with stream(client) as s:
                async for t in s.text_stream:
                    received.append(t)
                    got_text.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(got_text.wait(), 5)
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return received, time.monotonic() - started

    received, elapsed = run(server, body)
    assert received == ["thinking"]
    assert elapsed < 1.0


def test_hang_then_close_stream_returns_promptly(server: ScriptedModelServer) -> None:
    server.enqueue(Hang(text="x"))

    async def body(client: anthropic.AsyncAnthropic) -> float:
        async with stream(client) as s:
            async for _ in s.text_stream:
                break
            started = time.monotonic()
        return time.monotonic() - started

    assert run(server, body) < 1.0


def test_stop_unblocks_hang(server: ScriptedModelServer) -> None:
    server.enqueue(Hang(text="x", seconds=60))

    async def body(client: anthropic.AsyncAnthropic) -> float:
        async with stream(client) as s:
            async for _ in s.text_stream:
                started = time.monotonic()
                await asyncio.to_thread(server.stop)
                return time.monotonic() - started
        raise AssertionError("no text received")

    assert run(server, body) < 2.0
    server.stop()  # idempotent


def test_models_list_and_retrieve() -> None:
    with ScriptedModelServer(models=["m-a", "m-b", "m-c"]) as server:

        async def body(client: anthropic.AsyncAnthropic) -> tuple[list[str], list[str], Any]:
            first = await client.models.list()
            paged = [m.id async for m in client.beta.models.list(limit=2)]
            return [m.id for m in first.data], paged, await client.models.retrieve("m-b")

        ids, paged, model = run(server, body)
        assert ids == ["m-a", "m-b", "m-c"]
        assert paged == ["m-a", "m-b", "m-c"]
        assert model.id == "m-b" and model.type == "model"

        async def missing(client: anthropic.AsyncAnthropic) -> Any:
            return await client.models.retrieve("nope")

        with pytest.raises(anthropic.NotFoundError):
            run(server, missing)


def test_default_models(server: ScriptedModelServer) -> None:
    async def body(client: anthropic.AsyncAnthropic) -> list[str]:
        return [m.id for m in (await client.models.list()).data]

    assert run(server, body) == ["claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5"]


def test_requests_are_recorded(server: ScriptedModelServer) -> None:
    server.enqueue(text_reply("one"), text_reply("two"))

    async def body(client: anthropic.AsyncAnthropic) -> None:
        async with stream(client) as s:
            await s.get_final_message()
        await client.messages.create(
            model=MODEL,
            max_tokens=7,
            system="be brief",
            messages=[{"role": "user", "content": "second"}],
        )
        await client.models.list()

    run(server, body)
    assert [(r.method, r.path) for r in server.requests] == [
        ("POST", "/v1/messages"),
        ("POST", "/v1/messages"),
        ("GET", "/v1/models"),
    ]
    # anthropic 2.x sends the API key as a bearer token, not x-api-key.
    assert server.requests[0].headers["authorization"] == "Bearer test"
    first, second = server.message_requests
    assert first["messages"] == MESSAGES and first["stream"] is True
    assert second["messages"] == [{"role": "user", "content": "second"}]
    assert second["system"] == "be brief" and second["max_tokens"] == 7
    assert "stream" not in second


def test_empty_queue_fails_loudly_without_retries(server: ScriptedModelServer) -> None:
    async def body(client: anthropic.AsyncAnthropic) -> Any:
        return await client.messages.create(model=MODEL, max_tokens=10, messages=MESSAGES)

    with pytest.raises(anthropic.InternalServerError, match="no reply queued"):
        run(server, body, max_retries=2)
    assert len(server.requests) == 1


def test_callable_script_sees_the_request(server: ScriptedModelServer) -> None:
    def decide(request: RecordedRequest) -> Reply:
        assert request.body is not None
        return text_reply(f"you said {request.body['messages'][-1]['content']}")

    server.enqueue(decide)
    assert server.pending() == 1

    async def body(client: anthropic.AsyncAnthropic) -> str:
        async with stream(client) as s:
            return await s.get_final_text()

    assert run(server, body) == "you said hi"
    assert server.pending() == 0


def test_beta_query_and_keep_alive(server: ScriptedModelServer) -> None:
    server.enqueue(text_reply("a"), text_reply("b"))
    conn = http.client.HTTPConnection("127.0.0.1", int(server.base_url.rsplit(":", 1)[1]))
    try:
        texts = []
        for _ in range(2):  # both on one keep-alive connection
            payload = json.dumps({"model": MODEL, "max_tokens": 5, "messages": MESSAGES})
            conn.request("POST", "/v1/messages?beta=true", body=payload)
            response = conn.getresponse()
            assert response.status == 200
            assert not response.will_close
            texts.append(json.loads(response.read())["content"][0]["text"])
    finally:
        conn.close()
    assert texts == ["a", "b"]
    assert [r.query for r in server.requests] == ["beta=true", "beta=true"]
    assert len(server.message_requests) == 2


def _history(result: dict[str, Any]) -> list[Any]:
    """A turn in which the model used a browser member and a function tool, then `result`."""
    return [
        {"role": "user", "content": "Open the site"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_nav", "name": "navigate", "input": {"url": "x"}}
                | {"toolset_name": "browser"},
                {"type": "tool_use", "id": "toolu_note", "name": "note", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                result,
                {"type": "tool_result", "tool_use_id": "toolu_note", "content": "Saved."},
            ],
        },
    ]


def test_a_toolset_result_must_echo_its_toolset_name(server: ScriptedModelServer) -> None:
    server.enqueue(text_reply("Done."))
    filler = {
        "type": "tool_result",
        "tool_use_id": "toolu_nav",
        "content": "Stopped.",
        "is_error": True,
    }

    async def body(client: anthropic.AsyncAnthropic) -> list[Any]:
        outcomes: list[Any] = []
        for result in (
            filler,  # no toolset_name: refused
            {**filler, "toolset_name": "computer"},  # another toolset's: refused
        ):
            with pytest.raises(anthropic.BadRequestError) as refused:
                async with client.beta.messages.stream(
                    model=MODEL, max_tokens=100, messages=_history(result)
                ) as s:
                    await s.get_final_message()
            outcomes.append(refused.value)
        # Echoed: accepted, and the reply queued before the refusals is still the one served.
        async with client.beta.messages.stream(
            model=MODEL, max_tokens=100, messages=_history({**filler, "toolset_name": "browser"})
        ) as s:
            outcomes.append(await s.get_final_message())
        return outcomes

    missing, wrong, accepted = run(server, body)
    for refusal in (missing, wrong):
        assert refusal.status_code == 400
        error = refusal.body["error"]
        assert error["type"] == "invalid_request_error"
        assert error["message"].startswith("messages.2.content.0.toolset_name: ")
        assert "`toolu_nav`" in error["message"] and "`browser`" in error["message"]
    assert accepted.content[0].text == "Done."
    assert len(server.message_requests) == 3

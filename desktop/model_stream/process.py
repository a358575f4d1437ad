"""The model stream process: reads Claude's replies from the API so that the app's own
process is free to paint.

Reading a server-sent-event stream costs the SDK and its HTTP stack about a third of a
millisecond per event. A reply streaming at 2,000 tokens a second keeps a thread busy
most of the time, and Python runs one thread at a time: every call of the window into
Qt, which lets go of the interpreter and must take it back, would wait its turn. In a
process of its own the stream costs the window nothing but a few batches a frame.

`main([fd])` is the process's entry (`deskhand --stream-process FD`, FD its end of a
socket pair). It takes `StartStream` and `CancelStream` messages, streams each request
with the SDK's stream helper, and answers with `StreamText` batches (the first text at
once, then one batch per BATCH_SECONDS at most), then `StreamDone` or `StreamFailed`.
It ends when the app's end of the socket closes, so it never outlives the app, even one
that was killed.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from desktop.model_stream import errors
from desktop.model_stream.client import ClientConfig, client_from
from tools.data import Data

if TYPE_CHECKING:  # the app imports this module for its messages; the SDK loads in the child
    from multiprocessing.connection import Connection

    from anthropic import AsyncAnthropic
    from anthropic.types.beta import BetaMessage

log = logging.getLogger(__name__)

BATCH_SECONDS = 0.008  # text is handed over at most about once per frame
KEEP_CLIENTS = 4  # clients (one per key / base URL) kept open for the next request
KEEP_CANCELS = 100  # Cancels remembered for streams not started (or long ended)


class StartStream(Data):
    stream_id: int
    client: ClientConfig
    request: dict[str, Any]


class CancelStream(Data):
    stream_id: int


class StreamText(Data):
    stream_id: int
    text: str


class StreamResult(Data):
    """The final message, as the agent stores it."""

    content: list[dict[str, Any]]
    stop_reason: str | None
    model: str
    usage: dict[str, Any] | None


class StreamDone(Data):
    stream_id: int
    result: StreamResult


class StreamFailed(Data):
    stream_id: int
    report: errors.ProblemReport
    error: str  # the exception's class name, for the app's log


ToProcess = StartStream | CancelStream
FromProcess = StreamText | StreamDone | StreamFailed


def serve(connection: Connection) -> None:
    """Serve streams until the app closes its end of the pipe."""
    asyncio.run(_Server(connection).run())


def main(argv: list[str]) -> int:
    """`deskhand --stream-process FD`: the app starts this with its end of a socket pair."""
    from multiprocessing.connection import Connection

    connection = Connection(int(argv[0]))
    warm_up()  # a request sent meanwhile waits in the pipe: it would wait for this anyway
    serve(connection)
    return 0


def warm_up() -> None:
    """Load what the first stream needs now, as the app starts, rather than when the first
    request comes: the SDK (about a second to import), its HTTP stack and the TLS certificates
    (read as the first client is built), and the validators of the stream's events, which the
    SDK builds as the first stream parses them (a tenth of a second more). The app starts this
    process as its window shows, so a message sent at the first paint finds all of it in; only
    the client for the real key is built with that message."""
    client = client_from(ClientConfig(api_key="warm-up", base_url=None, max_retries=0))
    client.beta.messages  # noqa: B018  (the SDK loads its resources on first use)
    try:
        asyncio.run(rehearse())
    except Exception:  # only time is lost: the first stream builds them itself
        log.warning("the stream's rehearsal failed", exc_info=True)


# A reply with a text block and a tool call, as the API streams it: parsed once at start.
_REHEARSAL = [
    (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_warm_up",
                "type": "message",
                "role": "assistant",
                "model": "warm-up",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 0},
            },
        },
    ),
    (
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ),
    (
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "."}},
    ),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    (
        "content_block_start",
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "tool_use",
                "id": "toolu_warm_up",
                "name": "warm_up",
                "input": {},
            },
        },
    ),
    (
        "content_block_delta",
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'},
        },
    ),
    ("content_block_stop", {"type": "content_block_stop", "index": 1}),
    (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
    ),
    ("message_stop", {"type": "message_stop"}),
]


async def rehearse() -> StreamResult:
    """One stream of `_REHEARSAL` through the SDK's own client and parsing, answered in this
    process (no network), made into the result the app would receive."""
    import json

    import httpx2
    from anthropic import AsyncAnthropic

    body = "".join(
        f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in _REHEARSAL
    ).encode()

    def answer(_request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(answer))
    async with AsyncAnthropic(api_key="warm-up", http_client=http, max_retries=0) as client:
        request: dict[str, Any] = {"model": "warm-up", "max_tokens": 1, "messages": []}
        async with client.beta.messages.stream(**request) as stream:
            async for _event in stream:
                pass
            return result_of(await stream.get_final_message())


def result_of(final: BetaMessage) -> StreamResult:
    """The final message as the app stores it."""
    return StreamResult(
        content=[block.to_dict(mode="json", exclude_none=True) for block in final.content],
        stop_reason=final.stop_reason,
        model=final.model or "",
        usage=final.usage.to_dict(mode="json") if final.usage else None,
    )


class _Server:
    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.clients: OrderedDict[ClientConfig, AsyncAnthropic] = OrderedDict()
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self.configs: dict[int, ClientConfig] = {}  # the client each running stream uses
        # A Cancel can overtake its Start (the app sends a big request from a worker thread).
        # One for a stream that already ended lands here too; those are dropped once far
        # behind the newest Start (the app numbers streams in order).
        self.cancelled_early: set[int] = set()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        closed = asyncio.Event()

        def read() -> None:
            # Blocking reads on a thread of their own: a large request never holds up a stream.
            try:
                while True:
                    loop.call_soon_threadsafe(self.handle, self.connection.recv())
            except (EOFError, OSError):
                loop.call_soon_threadsafe(closed.set)

        threading.Thread(target=read, name="stream-requests", daemon=True).start()
        await closed.wait()
        for task in self.tasks.values():
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        for client in self.clients.values():
            await client.close()

    def handle(self, message: ToProcess) -> None:
        if isinstance(message, StartStream):
            if len(self.cancelled_early) > KEEP_CANCELS:
                oldest = message.stream_id - KEEP_CANCELS
                self.cancelled_early = {i for i in self.cancelled_early if i > oldest}
            if message.stream_id in self.cancelled_early:
                self.cancelled_early.discard(message.stream_id)
                return
            started = asyncio.create_task(self.stream(message))
            self.tasks[message.stream_id] = started
            self.configs[message.stream_id] = message.client
            started.add_done_callback(lambda _: self.forget(message.stream_id))
        elif (running := self.tasks.get(message.stream_id)) is not None:
            running.cancel()  # leaving the stream's `async with` closes the connection
        else:
            self.cancelled_early.add(message.stream_id)

    def forget(self, stream_id: int) -> None:
        self.tasks.pop(stream_id, None)
        self.configs.pop(stream_id, None)

    def send(self, message: FromProcess) -> None:
        try:
            self.connection.send(message)
        except OSError:
            pass  # the app is gone; reading will end this process

    async def client_for(self, config: ClientConfig) -> AsyncAnthropic:
        client = self.clients.pop(config, None) or client_from(config)
        self.clients[config] = client  # most recently used last
        in_use = set(self.configs.values())
        for old in [c for c in list(self.clients)[:-KEEP_CLIENTS] if c not in in_use]:
            await self.clients.pop(old).close()
        return client

    async def stream(self, start: StartStream) -> None:
        stream_id = start.stream_id
        loop = asyncio.get_running_loop()
        pending: list[str] = []
        timer: asyncio.TimerHandle | None = None
        last_sent = -BATCH_SECONDS  # so the first words go at once

        def hand_over() -> None:
            nonlocal timer, last_sent
            if timer is not None:
                timer.cancel()
                timer = None
            if pending:
                self.send(StreamText(stream_id=stream_id, text="".join(pending)))
                pending.clear()
                last_sent = loop.time()

        try:
            client = await self.client_for(start.client)
            async with client.beta.messages.stream(**start.request) as stream:
                async for event in stream:
                    if event.type != "text":
                        continue
                    pending.append(event.text)
                    # While events are buffered the iterator never yields to the loop, so
                    # a timer alone would fire late: the clock is checked on every event.
                    if loop.time() - last_sent >= BATCH_SECONDS:
                        hand_over()
                    elif timer is None:  # the stream may pause before the next event
                        timer = loop.call_at(last_sent + BATCH_SECONDS, hand_over)
                final = await stream.get_final_message()
        except asyncio.CancelledError:
            return  # Stop: the app has stopped listening to this stream
        except Exception as exc:
            log.debug("model call failed", exc_info=True)
            hand_over()  # what arrived before the failure is kept
            report = errors.describe(exc, model=str(start.request.get("model", "")))
            self.send(StreamFailed(stream_id=stream_id, report=report, error=type(exc).__name__))
            return
        finally:
            if timer is not None:
                timer.cancel()
                timer = None
        hand_over()
        self.send(StreamDone(stream_id=stream_id, result=result_of(final)))

"""Model streams on a thread of their own, so reading the stream never competes with painting.

Parsing server-sent events costs a fraction of a millisecond per event; at a few thousand
events a second that is most of the GUI thread. The worker runs one asyncio loop on a
daemon thread with its own client, and hands text to the caller's loop in batches of a
few milliseconds. Cancelling the awaiting task cancels the stream on the worker.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from anthropic import AsyncAnthropic

BATCH_SECONDS = 0.008  # text is handed over at most about once per frame


class StreamWorker:
    """One background loop for every model stream of the app."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: AsyncAnthropic | None = None
        self._client_key: object = None
        self._lock = threading.Lock()

    def _ensure_started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=loop.run_forever, name="model-stream", daemon=True
                )
                self._thread.start()
                self._loop = loop
            return self._loop

    async def _client_for(self, key: object, make: Callable[[], AsyncAnthropic]) -> AsyncAnthropic:
        if self._client is None or key != self._client_key:
            if self._client is not None:
                await self._client.close()
            self._client = make()
            self._client_key = key
        return self._client

    async def stream(
        self,
        *,
        client_key: object,
        make_client: Callable[[], AsyncAnthropic],
        request: dict[str, Any],
        on_text: Callable[[str], None],
    ) -> Any:
        """Stream one message; `on_text` runs on the caller's loop. Returns the final message."""
        caller = asyncio.get_running_loop()
        worker = self._ensure_started()

        async def run() -> Any:
            client = await self._client_for(client_key, make_client)
            pending: list[str] = []
            timer: asyncio.TimerHandle | None = None
            first = True

            def hand_over() -> None:
                nonlocal timer
                timer = None
                if pending:
                    caller.call_soon_threadsafe(on_text, "".join(pending))
                    pending.clear()

            try:
                async with client.beta.messages.stream(**request) as stream:
                    async for event in stream:
                        if event.type != "text":
                            continue
                        pending.append(event.text)
                        if first:  # the first words show at once
                            first = False
                            hand_over()
                        elif timer is None:  # the rest go in batches, also when the stream pauses
                            timer = asyncio.get_running_loop().call_later(BATCH_SECONDS, hand_over)
                    return await stream.get_final_message()
            finally:
                if timer is not None:
                    timer.cancel()
                hand_over()  # what arrived before the end, a failure or Stop is kept

        future: Future[Any] = asyncio.run_coroutine_threadsafe(run(), worker)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()  # closes the stream on the worker
            raise

    async def close(self) -> None:
        loop = self._loop
        if loop is None:
            return
        if self._client is not None:
            closing = asyncio.run_coroutine_threadsafe(self._client.close(), loop)
            await asyncio.wrap_future(closing)
            self._client = None
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5)
        loop.close()
        self._loop = None
        self._thread = None

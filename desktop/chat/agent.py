"""One turn of the conversation: stream the reply, run each tool call, loop until the model stops.

The agent knows no UI: it reports through `emit(event)` and commits every finished
message to the store before the next model call. Cancelling the task that runs a turn
(the Stop button) closes the stream, keeps the partial text marked as stopped, and
answers every open tool_use so the transcript stays valid.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from desktop.chat.commit import commit
from desktop.chat.events import (
    AgentEvent,
    MessageStarted,
    TextDelta,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from desktop.chat.request import build_request
from desktop.chat.tool_calls import ToolCalls
from desktop.chat.transcript import notice_for
from desktop.model_stream import errors
from desktop.model_stream.client import ClientConfig, client_from
from desktop.model_stream.worker import shared_worker
from desktop.system import heavy
from desktop.system.settings.model import Settings
from desktop.system.store import MessageStatus, Store
from desktop.system.usage import Usage

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

log = logging.getLogger(__name__)

Emit = Callable[[AgentEvent], None]
KeyProvider = Callable[[], Awaitable[str | None]]

MAX_PAUSE_CONTINUATIONS = 5


class Agent:
    """Runs turns for any session; one `Agent` serves the whole app."""

    def __init__(
        self,
        *,
        store: Store,
        settings: Callable[[], Settings],
        api_key: KeyProvider,
        calls: ToolCalls,
        settled: Callable[[], Awaitable[None]] | None = None,
        desktop_context: Callable[[], Awaitable[str | None]] | None = None,
    ) -> None:
        self.store = store
        self._settings = settings
        self._api_key = api_key
        self.calls = calls
        self._settled = settled  # waits for tool sources still starting (MCP servers at launch)
        self.desktop_context = desktop_context
        self._client: AsyncAnthropic | None = None
        self._client_config: ClientConfig | None = None
        self.streams = shared_worker()
        # Requests sent per chat since the app started (a routine's run reports its own).
        self.requests: Counter[int] = Counter()

    async def client_config(self) -> ClientConfig:
        """What a client is built from now; MissingKeyError without a key."""
        key = await self._api_key()
        if not key:
            raise errors.MissingKeyError
        return ClientConfig.of(self._settings(), key)

    async def client(self) -> AsyncAnthropic:
        """A client here (for the models list and checks); streams run in their own process."""
        config = await self.client_config()
        if self._client is None or config != self._client_config:
            if self._client is not None:
                await self._client.close()
            # Building the client loads the TLS certificates: seconds on a cold disk, so off the
            # loop; the SDK itself comes from the one place that imports it, never a second thread.
            await heavy.ready()
            self._client = await asyncio.to_thread(client_from, config)
            self._client_config = config
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def continue_turn(self, session_id: int, emit: Emit, *, act: bool = True) -> None:
        """Answer the stored history as it is (also what Retry does after a failure); with
        `act=False` the model only writes (a routine's answer: one request, no tool call)."""
        emit(TurnStarted(session_id=session_id))
        settings = self._settings()
        total = Usage()
        pauses = 0
        try:
            client = await self.client_config()
        except errors.MissingKeyError as exc:
            self._fail(session_id, exc, settings, emit)
            return
        if self._settled is not None:
            await self._settled()
        context = await self._desktop_context() if self.desktop_context else None
        while True:
            request = build_request(
                settings, self.store.messages(session_id), self.api_tools(), context, act=act
            )
            outcome = await self._stream_one(session_id, client, request, settings, emit)
            if outcome is None:
                return
            stop_reason, usage, tool_uses = outcome
            total = total + usage
            if stop_reason == "tool_use" and tool_uses and act:
                await self.calls.run_all(session_id, tool_uses, emit)
                continue
            if stop_reason == "pause_turn" and pauses < MAX_PAUSE_CONTINUATIONS:
                pauses += 1  # the server paused a long step; sending the history again resumes it
                continue
            emit(
                TurnFinished(
                    session_id=session_id,
                    stop_reason=stop_reason,
                    notice=notice_for(stop_reason, settings.model.max_tokens),
                    usage=total,
                    model=settings.model.model,
                )
            )
            return

    async def _stream_one(
        self,
        session_id: int,
        client: ClientConfig,
        request: dict[str, Any],
        settings: Settings,
        emit: Emit,
    ) -> tuple[str, Usage, list[dict[str, Any]]] | None:
        """One model call. Returns (stop reason, usage, tool_use blocks), or None after a failure."""
        emit(MessageStarted(session_id=session_id))
        self.requests[session_id] += 1
        received: list[str] = []
        try:

            def on_text(text: str) -> None:
                received.append(text)
                emit(TextDelta(session_id=session_id, text=text))

            final = await self.streams.stream(client=client, request=request, on_text=on_text)
        except asyncio.CancelledError:
            self._keep_partial(session_id, received, "stopped", settings, emit)
            raise
        except Exception as exc:
            log.warning("model call failed: %s", getattr(exc, "error", type(exc).__name__))
            self._keep_partial(session_id, received, "failed", settings, emit)
            self._fail(session_id, exc, settings, emit)
            return None
        content = final.content
        usage = Usage.model_validate(final.usage, strict=False) if final.usage else Usage()
        stop_reason = str(final.stop_reason or "end_turn")
        commit(
            self.store,
            emit,
            session_id,
            "assistant",
            content,
            model=final.model or settings.model.model,
            usage=usage,
            stop_reason=stop_reason,
        )
        tool_uses = [block for block in content if block.get("type") == "tool_use"]
        return stop_reason, usage, tool_uses

    def _keep_partial(
        self,
        session_id: int,
        received: list[str],
        status: MessageStatus,
        settings: Settings,
        emit: Emit,
    ) -> None:
        text, model = "".join(received), settings.model.model
        if not text.strip():
            return
        content = [{"type": "text", "text": text}]
        commit(self.store, emit, session_id, "assistant", content, status=status, model=model)

    def _fail(self, session_id: int, exc: BaseException, settings: Settings, emit: Emit) -> None:
        report = errors.describe(exc, model=settings.model.model)
        words = report.model_dump(exclude={"kind"})  # title, detail, retryable, open_settings
        emit(TurnFailed(session_id=session_id, error_kind=report.kind, **words))

    async def _desktop_context(self) -> str | None:
        """The desktop snapshot for this turn; a failure leaves it out rather than failing the turn."""
        assert self.desktop_context is not None
        try:
            return await self.desktop_context()
        except Exception:
            log.warning("desktop snapshot failed", exc_info=True)
            return None

    def api_tools(self) -> list[dict[str, Any]]:
        """The `tools[]` to send: every tool source's entries."""
        return self.calls.api_tools()

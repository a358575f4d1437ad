"""One turn of the conversation: stream the reply, run each tool call, loop until the model stops.

The agent knows no UI: it reports through `emit(event)` and commits every finished
message to the store before the next model call. Cancelling the task that runs a turn
(the Stop button) closes the stream, keeps the partial text marked as stopped, and
answers every open tool_use so the transcript stays valid.
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from anthropic import AsyncAnthropic
from pydantic import BaseModel

from desktop import errors, images
from desktop.browser_calls import NOT_EXECUTED, BrowserCalls
from desktop.events import (
    AgentEvent,
    MessageCommitted,
    MessageStarted,
    TextDelta,
    ToolFinished,
    ToolProgress,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    Usage,
)
from desktop.gate import Gate, denial_text
from desktop.model import OUTCOME_KEY, ClientConfig, build_request, client_from
from desktop.permissions import ToolCall
from desktop.settings import Settings
from desktop.store import MessageStatus, Store
from desktop.stream_worker import shared_worker
from tools.base import TOOL_FAILED, RunContext, Tool, ToolRegistry, ToolResult

log = logging.getLogger(__name__)

Emit = Callable[[AgentEvent], None]
KeyProvider = Callable[[], Awaitable[str | None]]

STOPPED_TOOL = "Stopped by the person before this action finished."
MAX_PAUSE_CONTINUATIONS = 5
OutcomeKind = Literal["ok", "error", "denied", "blocked", "stopped"]


def tool_label(title: str, action: str) -> str:
    """The card's label: "Browser: navigate", "macOS: calendar today"."""
    return f"{title}: {action.replace('_', ' ')}"


def _notice_for(stop_reason: str, settings: Settings) -> str | None:
    if stop_reason == "max_tokens":
        return (
            f"The reply reached the limit of {settings.model.max_tokens} tokens and was cut off. "
            "Ask Claude to continue, or raise Max tokens in Settings → Model."
        )
    if stop_reason == "refusal":
        return "Claude declined to continue with this request. Rephrase it or start a new chat."
    if stop_reason == "model_context_window_exceeded":
        return errors.context_too_long().detail
    if stop_reason == "pause_turn":
        return "Claude paused a long-running step. Send “continue” to let it go on."
    return None


class Agent:
    """Runs turns for any session; one `Agent` serves the whole app."""

    def __init__(
        self,
        *,
        store: Store,
        settings: Callable[[], Settings],
        api_key: KeyProvider,
        registry: ToolRegistry,
        gate: Gate,
        attachments_dir: Any,
        browser: BrowserCalls | None = None,
        desktop_context: Callable[[], Awaitable[str | None]] | None = None,
    ) -> None:
        self.store = store
        self._settings = settings
        self._api_key = api_key
        self.registry = registry
        self.gate = gate
        self.browser = browser
        self.desktop_context = desktop_context
        self.attachments_dir = attachments_dir
        self._client: AsyncAnthropic | None = None
        self._client_config: ClientConfig | None = None
        self.streams = shared_worker()

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
            # Building the client loads the TLS certificates: seconds on a cold disk, so off the loop.
            self._client = await asyncio.to_thread(client_from, config)
            self._client_config = config
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def run_turn(self, session_id: int, text: str, emit: Emit) -> None:
        """Commit the person's message, then answer it."""
        message_id = self.store.add_message(session_id, "user", [{"type": "text", "text": text}])
        emit(
            MessageCommitted(
                session_id=session_id, message_id=message_id, role="user", status="complete"
            )
        )
        await self.continue_turn(session_id, emit)

    async def continue_turn(self, session_id: int, emit: Emit) -> None:
        """Answer the stored history as it is (also what Retry does after a failure)."""
        emit(TurnStarted(session_id=session_id))
        settings = self._settings()
        total = Usage()
        pauses = 0
        try:
            client = await self.client_config()
        except errors.MissingKeyError as exc:
            self._fail(session_id, exc, settings, emit)
            return
        context = await self._desktop_context() if self.desktop_context else None
        while True:
            request = build_request(
                settings, self.store.messages(session_id), self.api_tools(), context
            )
            outcome = await self._stream_one(session_id, client, request, settings, emit)
            if outcome is None:
                return
            stop_reason, usage, tool_uses = outcome
            total = total + usage
            if stop_reason == "tool_use" and tool_uses:
                await self._run_tools(session_id, tool_uses, emit)
                continue
            if stop_reason == "pause_turn" and pauses < MAX_PAUSE_CONTINUATIONS:
                pauses += 1  # the server paused a long step; sending the history again resumes it
                continue
            emit(
                TurnFinished(
                    session_id=session_id,
                    stop_reason=stop_reason,
                    notice=_notice_for(stop_reason, settings),
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
        message_id = self.store.add_message(
            session_id, "assistant", content, model=final.model or settings.model.model, usage=usage
        )
        emit(
            MessageCommitted(
                session_id=session_id, message_id=message_id, role="assistant", status="complete"
            )
        )
        tool_uses = [block for block in content if block.get("type") == "tool_use"]
        return str(final.stop_reason or "end_turn"), usage, tool_uses

    def _keep_partial(
        self,
        session_id: int,
        received: list[str],
        status: MessageStatus,
        settings: Settings,
        emit: Emit,
    ) -> None:
        text = "".join(received)
        if not text.strip():
            return
        message_id = self.store.add_message(
            session_id,
            "assistant",
            [{"type": "text", "text": text}],
            status=status,
            model=settings.model.model,
        )
        emit(
            MessageCommitted(
                session_id=session_id, message_id=message_id, role="assistant", status=status
            )
        )

    def _fail(self, session_id: int, exc: BaseException, settings: Settings, emit: Emit) -> None:
        report = errors.describe(exc, model=settings.model.model)
        emit(
            TurnFailed(
                session_id=session_id,
                error_kind=report.kind,
                title=report.title,
                detail=report.detail,
                retryable=report.retryable,
                open_settings=report.open_settings,
            )
        )

    async def _desktop_context(self) -> str | None:
        """The desktop snapshot for this turn; a failure leaves it out rather than failing the turn."""
        assert self.desktop_context is not None
        try:
            return await self.desktop_context()
        except Exception:
            log.warning("desktop snapshot failed", exc_info=True)
            return None

    def api_tools(self) -> list[dict[str, Any]]:
        """The `tools[]` to send: function tools, then the browser toolset when it is on."""
        tools = self.registry.api_tools()
        if self.browser is not None:
            tools.append(self.browser.api_tool())
        return tools

    async def _run_tools(
        self, session_id: int, tool_uses: list[dict[str, Any]], emit: Emit
    ) -> None:
        """Run each call in order; commit all results as one user message, even when stopped."""
        results: list[dict[str, Any]] = []
        browser_failed = False
        outcomes: dict[str, str] = {}  # how each call ended, kept so a reopened card says so too

        def noting(event: AgentEvent) -> None:
            if isinstance(event, ToolFinished):
                outcomes[event.tool_use_id] = event.outcome
            emit(event)

        try:
            for use in tool_uses:
                if self.browser is None or not BrowserCalls.handles(use):
                    results.append(await self._run_tool(session_id, use, noting))
                elif browser_failed:
                    # The model planned these as a sequence; after a failure the rest rarely make sense.
                    results.append(self._not_executed(session_id, use, noting))
                else:
                    block = await self._run_browser_tool(session_id, use, noting)
                    browser_failed = bool(block.get("is_error"))
                    results.append(block)
        finally:
            # On Stop, the calls that never ran (or were cut off) are answered too.
            answered = {r["tool_use_id"] for r in results}
            for use in tool_uses:
                if use["id"] not in answered:
                    results.append(
                        {
                            "type": "tool_result",
                            "tool_use_id": use["id"],
                            "content": STOPPED_TOOL,
                            "is_error": True,
                        }
                    )
                    noting(
                        ToolFinished(
                            session_id=session_id,
                            tool_use_id=use["id"],
                            is_error=True,
                            summary=STOPPED_TOOL,
                            outcome="stopped",
                        )
                    )
            for block in results:
                if outcome := outcomes.get(block["tool_use_id"]):
                    block[OUTCOME_KEY] = outcome
            message_id = self.store.add_message(session_id, "user", results)
            emit(
                MessageCommitted(
                    session_id=session_id, message_id=message_id, role="user", status="complete"
                )
            )

    async def _run_browser_tool(
        self, session_id: int, use: dict[str, Any], emit: Emit
    ) -> dict[str, Any]:
        assert self.browser is not None
        tool_use_id = use["id"]
        self._browser_started(session_id, use, emit)
        call = await self.browser.run(
            session_id,
            use,
            lambda line: emit(
                ToolProgress(session_id=session_id, tool_use_id=tool_use_id, line=line)
            ),
        )
        image_blocks = await self._save_images(session_id, call.as_result())
        emit(
            ToolFinished(
                session_id=session_id,
                tool_use_id=tool_use_id,
                is_error=call.is_error,
                summary=call.text()[:300],
                outcome=call.outcome,
                images=[block["deskhand_image"]["path"] for block in image_blocks],
            )
        )
        # Keep the SDK's rendering (text, browser state) but put screenshots on disk.
        stored = iter(image_blocks)
        content = call.block.get("content")
        if isinstance(content, list):
            content = [
                next(stored)
                if isinstance(item, dict) and item.get("type") == "image"
                else dict(item)
                for item in content
            ]
        return {**call.block, "content": content or "Done."}  # keeps toolset_name and is_error

    @staticmethod
    def _browser_started(session_id: int, use: dict[str, Any], emit: Emit) -> None:
        label, summary = BrowserCalls.label(use)
        emit(
            ToolStarted(
                session_id=session_id,
                tool_use_id=use["id"],
                name=f"browser.{use.get('name')}",
                label=label,
                summary=summary,
                input=use.get("input") or {},
            )
        )

    def _not_executed(self, session_id: int, use: dict[str, Any], emit: Emit) -> dict[str, Any]:
        self._browser_started(session_id, use, emit)
        emit(
            ToolFinished(
                session_id=session_id,
                tool_use_id=use["id"],
                is_error=True,
                summary=NOT_EXECUTED,
                outcome="error",
            )
        )
        return {
            "type": "tool_result",
            "tool_use_id": use["id"],
            "content": NOT_EXECUTED,
            "is_error": True,
        }

    async def _run_tool(self, session_id: int, use: dict[str, Any], emit: Emit) -> dict[str, Any]:
        raw_input = use.get("input") or {}
        parsed = self.registry.parse(use["name"], raw_input)
        outcome: OutcomeKind = "error"
        if isinstance(parsed, ToolResult):
            result = parsed
            emit(
                ToolStarted(
                    session_id=session_id,
                    tool_use_id=use["id"],
                    name=use["name"],
                    label=use["name"],
                    input=raw_input,
                )
            )
        else:
            tool, call = parsed
            if (prepare := getattr(tool, "prepare", None)) is not None:
                call = await prepare(call)  # e.g. the titles of the tabs a close would affect
            risk, reason = tool.risk(call)
            request = ToolCall(
                session_id=session_id,
                tool_use_id=use["id"],
                tool=tool.name,
                action=tool.action(call),
                input=raw_input,
                risk=risk,
                reason=reason,
                summary=tool.summary(call),
                target=tool.target(call),
            )
            emit(
                ToolStarted(
                    session_id=session_id,
                    tool_use_id=use["id"],
                    name=tool.name,
                    label=tool_label(tool.title, request.action),
                    summary=request.summary,
                    input=raw_input,
                )
            )
            decision, audit_id = await self.gate.check(request)
            if decision.verdict == "allow":
                started = time.monotonic()
                result = await self._execute(session_id, use["id"], tool, call, emit)
                self.gate.finished(audit_id, ok=not result.is_error, started=started)
                outcome = "error" if result.is_error else "ok"
            else:
                result = ToolResult.failure(denial_text(decision))
                outcome = "blocked" if decision.by == "rule" else "denied"
        image_blocks = await self._save_images(session_id, result)
        emit(
            ToolFinished(
                session_id=session_id,
                tool_use_id=use["id"],
                is_error=result.is_error,
                summary=result.text[:300],
                outcome=outcome,
                images=[block["deskhand_image"]["path"] for block in image_blocks],
            )
        )
        return _tool_result_block(use["id"], result, image_blocks)

    async def _execute(
        self, session_id: int, tool_use_id: str, tool: Tool[Any], call: BaseModel, emit: Emit
    ) -> ToolResult:
        ctx = RunContext(
            session_id=session_id,
            attachments_dir=self.attachments_dir,
            progress=lambda line: emit(
                ToolProgress(session_id=session_id, tool_use_id=tool_use_id, line=line)
            ),
        )
        try:
            return await tool.run(call, ctx)
        except asyncio.CancelledError:
            ctx.cancelled.set()
            raise
        except Exception:
            log.exception("tool %s failed", tool.name)
            return ToolResult.failure(TOOL_FAILED)

    async def _save_images(self, session_id: int, result: ToolResult) -> list[dict[str, Any]]:
        """Write each image to disk (original + a bounded copy for the model); returns stored blocks."""
        blocks = []
        folder = self.attachments_dir / str(session_id)
        for image in result.images:
            folder.mkdir(parents=True, exist_ok=True)
            stem = f"{int(time.time())}-{uuid.uuid4().hex[:8]}"
            path = folder / f"{stem}{mimetypes.guess_extension(image.media_type) or '.png'}"
            path.write_bytes(image.data)
            data, media_type, width, height = await asyncio.to_thread(
                images.bound, image.data, image.media_type
            )
            model_path = path
            if data is not image.data:
                model_path = (
                    folder / f"{stem}.model{mimetypes.guess_extension(media_type) or '.png'}"
                )
                model_path.write_bytes(data)
            self.store.add_attachment(session_id, path, image.media_type, image.width, image.height)
            blocks.append(images.stored_image(path, model_path, media_type, width, height))
        return blocks


def _tool_result_block(
    tool_use_id: str, result: ToolResult, image_blocks: list[dict[str, Any]]
) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if result.text:
        content.append({"type": "text", "text": result.text})
    content.extend(image_blocks)
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": content or "Done.",
    }
    if result.is_error:
        block["is_error"] = True
    return block

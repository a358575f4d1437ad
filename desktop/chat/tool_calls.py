"""`ToolCalls`: the tool calls of one chat reply, through their sources, the gate and the store.

For each `tool_use` of a reply, in order, it

- describes the call once (its source's `describe`): the card starts with that description,
  and the gate and the approval sheet see the same one (`gated.run_gated`),
- saves images (the original on disk, a bounded copy for the model),
- maps how a call ended (ok, error, denied, blocked, stopped) and answers calls that never
  ran, echoing `toolset_name` on every result a toolset call gets,
- stores the card (label, where the call comes from, summary, how it ended and what it really
  did) beside the `tool_result`, so a reopened chat shows exactly what the live one did.
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.calls.contract import (
    RESULT_PREVIEW,
    STOPPED_TOOL,
    CallCard,
    CallResult,
    CallSource,
    Ending,
    ToolSource,
    ToolUse,
    input_line,
    result_block,
)
from desktop.calls.gate import Gate
from desktop.calls.gated import outcome_of, run_gated
from desktop.calls.permissions import Decision, ToolCall
from desktop.chat import images
from desktop.chat.commit import commit
from desktop.chat.events import (
    AgentEvent,
    ToolFinished,
    ToolProgress,
    ToolStarted,
)
from desktop.system.store import Store
from tools.base import BAD_INPUT, NOT_AN_OBJECT, TOOL_FAILED, UNKNOWN_TOOL, InvalidInput, ToolImage
from tools.outcome import Outcome
from tools.risk import Risk

# What a call that never ran, or was cut off, really did.
NOT_RUN = Outcome(kind="refused", note="Not run: the reply was stopped before it.")
SKIPPED = Outcome(kind="refused", note="Not run: an earlier step in this reply failed.")
CUT_OFF = Outcome(kind="unconfirmed", note="Not confirmed: it was stopped while it ran.")

log = logging.getLogger(__name__)

Emit = Callable[[AgentEvent], None]


class ToolCalls:
    """Runs the tool calls of one reply through their sources, the gate, the store."""

    def __init__(
        self,
        sources: Callable[[], list[ToolSource]],
        *,
        gate: Gate,
        store: Store,
        attachments_dir: Path,
    ) -> None:
        self._sources = sources
        self.gate = gate
        self.store = store
        self.attachments_dir = attachments_dir

    def api_tools(self) -> list[dict[str, Any]]:
        """Every source's `tools[]` entries, in source order."""
        return [tool for source in self._sources() for tool in source.api_tools()]

    def source_for(self, use: ToolUse) -> ToolSource | None:
        return next((s for s in self._sources() if s.handles(use)), None)

    def card_for(self, use: ToolUse) -> CallCard:
        """The card of a call that was never described (stored without a card, or cut off
        before): its label, and its input in one line."""
        source = self.source_for(use)
        label = source.label(use) if source is not None else use.name or "tool"
        return _card(use, source, label, input_line(use.arguments))

    async def run_all(self, session_id: int, blocks: list[dict[str, Any]], emit: Emit) -> None:
        """Answer every tool_use of one reply in order, and commit the answers as one message.

        On Stop (the task cancelled) the calls that never ran, or were cut off, are answered
        too, so the stored conversation stays valid to send.
        """
        uses = [ToolUse.of(block) for block in blocks]
        results: dict[str, dict[str, Any]] = {}
        cards: dict[str, CallCard] = {}
        acting: set[str] = set()  # calls that were described as acting (not reads)
        failed: set[str] = set()
        try:
            for use in uses:
                source = self.source_for(use)
                if source is not None and source.not_executed and source.name in failed:
                    card = cards[use.id] = self._start(session_id, use, self.card_for(use), emit)
                    skipped = CallResult.failure(source.not_executed).model_copy(
                        update={"outcome": SKIPPED}
                    )
                    results[use.id] = self._finish(session_id, use, card, skipped, None, [], emit)
                    continue
                results[use.id] = await self._run_one(session_id, use, source, cards, acting, emit)
                if source is not None and results[use.id].get("is_error"):
                    failed.add(source.name)
        finally:
            for use in uses:
                if use.id not in results:
                    cut_off = CUT_OFF if use.id in acting else None
                    if use.id not in cards:  # never started: its card starts, as it reopens
                        cards[use.id] = self._start(session_id, use, self.card_for(use), emit)
                        cut_off = NOT_RUN
                    card = cards[use.id]  # its target stays, as the card showed it
                    stopped = CallResult.failure(STOPPED_TOOL).model_copy(
                        update={"outcome": cut_off}
                    )
                    results[use.id] = self._finish(
                        session_id, use, card, stopped, None, [], emit, outcome="stopped"
                    )
            commit(self.store, emit, session_id, "user", [results[use.id] for use in uses])

    def _start(self, session_id: int, use: ToolUse, card: CallCard, emit: Emit) -> CallCard:
        emit(ToolStarted.of(session_id, use, card))
        return card

    async def _run_one(
        self,
        session_id: int,
        use: ToolUse,
        source: ToolSource | None,
        cards: dict[str, CallCard],
        acting: set[str],
        emit: Emit,
    ) -> dict[str, Any]:
        described = await self._describe(session_id, use, source)
        if isinstance(described, CallResult):  # nothing to run
            card = self.card_for(use) if source is None else _card(use, source, source.label(use))
            cards[use.id] = self._start(session_id, use, card, emit)
            return self._finish(session_id, use, card, described, None, [], emit)
        assert source is not None
        call = described
        card = _card(use, source, call.label or source.label(use), call.summary)
        card = card.model_copy(update={"meaning": call.meaning})
        cards[use.id] = self._start(session_id, use, card, emit)
        if call.risk is not Risk.READ:
            acting.add(use.id)
        settled = await run_gated(
            use,
            call,
            source,
            gate=self.gate,
            session_id=session_id,
            attachments_dir=self.attachments_dir,
            progress=lambda line: emit(
                ToolProgress(session_id=session_id, tool_use_id=use.id, line=line)
            ),
        )
        stored = await self._save_images(session_id, settled.result)
        return self._finish(session_id, use, card, settled.result, settled.decision, stored, emit)

    @staticmethod
    async def _describe(
        session_id: int, use: ToolUse, source: ToolSource | None
    ) -> ToolCall | CallResult:
        """The call's one description, or why it cannot run at all."""
        if source is None:
            return CallResult.failure(UNKNOWN_TOOL)
        if not isinstance(use.input, dict):
            return CallResult.failure(NOT_AN_OBJECT)
        try:
            return await source.describe(use, session_id)
        except InvalidInput:
            return CallResult.failure(BAD_INPUT)
        except asyncio.CancelledError:
            raise
        except Exception:  # a source that cannot say what the call is: nothing runs
            log.exception("%s could not describe %s", source.name, use.name)
            return CallResult.failure(TOOL_FAILED)

    def _finish(
        self,
        session_id: int,
        use: ToolUse,
        card: CallCard,
        result: CallResult,
        decision: Decision | None,
        stored_images: list[dict[str, Any]],
        emit: Emit,
        *,
        outcome: Ending | None = None,
    ) -> dict[str, Any]:
        effect = result.outcome
        if effect is None and outcome != "stopped":  # it never reached the pipeline: `failed`
            effect = outcome_of(result, decision, None)
        card = card.model_copy(
            update={
                "outcome": outcome or _outcome(result, decision),
                "result": result.text()[:RESULT_PREVIEW],
                "notices": result.notices,
                "offers": result.offers,
                "effect": effect,
            }
        )
        emit(
            ToolFinished(
                session_id=session_id,
                tool_use_id=use.id,
                is_error=result.is_error,
                summary=card.result,
                outcome=card.outcome,
                images=[block["deskhand_image"]["path"] for block in stored_images],
                notices=card.notices,
                offers=card.offers,
                effect=card.effect,
            )
        )
        return result_block(use, result, stored_images, card)

    async def _save_images(self, session_id: int, result: CallResult) -> list[dict[str, Any]]:
        """Each image to disk (original + a bounded copy for the model), in place in the result."""
        stored: list[dict[str, Any]] = []
        folder = self.attachments_dir / str(session_id)
        for index, item in enumerate(result.content):
            if not isinstance(item, ToolImage):
                continue
            folder.mkdir(parents=True, exist_ok=True)
            stem = f"{int(time.time())}-{uuid.uuid4().hex[:8]}"
            path = folder / f"{stem}{mimetypes.guess_extension(item.media_type) or '.png'}"
            path.write_bytes(item.data)
            data, media_type, width, height = await asyncio.to_thread(
                images.bound, item.data, item.media_type
            )
            model_path = path
            if data is not item.data:
                suffix = mimetypes.guess_extension(media_type) or ".png"
                model_path = folder / f"{stem}.model{suffix}"
                model_path.write_bytes(data)
            self.store.add_attachment(session_id, path, item.media_type, width, height)
            block = images.stored_image(path, model_path, media_type, width, height)
            result.content[index] = block
            stored.append(block)
        return stored


def _card(use: ToolUse, source: ToolSource | None, label: str, summary: str = "") -> CallCard:
    """A card that says where the call comes from; a call nothing knows is named as labelled."""
    where = source.call_source(use) if source is not None else CallSource(title=label)
    return CallCard(label=label, summary=summary, source=where.name, source_title=where.title)


def _outcome(result: CallResult, decision: Decision | None) -> Ending:
    if decision is not None and decision.verdict == "deny":
        return "blocked" if decision.by == "rule" else "denied"
    return "error" if result.is_error else "ok"

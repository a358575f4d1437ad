"""The one tool pipeline: every `tool_use`, whatever its kind, takes the same path.

A `ToolSource` (function tools, generated dictionary commands among them, an SDK toolset, MCP)
offers `tools[]` entries and answers for the calls it handles: it describes a call
(label, summary, target, action, risk and its reason) and runs it with a `CallContext`.
`run_gated` is the only place that runs a described call, whoever sent it (a chat's reply
through `ToolCalls`, `deskhand ui`, `deskhand mcp`, `deskhand apps call`). It

- calls the gate (`CallContext.approve`, which sources call right before any effect; a
  Never rule is settled before the source does any work at all), and asks again when a
  source reports that what a call acts on changed after its approval (`CallResult.changed`:
  refused, nothing done): the call runs again, described anew, at most `MAX_ASKED_AGAIN` times,
- opens and finishes the audit row.

`ToolCalls`, for a chat's replies,

- saves images (the original on disk, a bounded copy for the model),
- maps how a call ended (ok, error, denied, blocked, stopped) and answers calls that never
  ran, echoing `toolset_name` on every result a toolset call gets,
- stores the card (label, summary, outcome) beside the `tool_result`, so a reopened chat
  shows exactly what the live one did.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import mimetypes
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from desktop.calls.gate import Gate, denial_text
from desktop.calls.permissions import Decision, ToolCall, never_rule
from desktop.chat import images
from desktop.chat.commit import commit
from desktop.chat.events import (
    AgentEvent,
    ToolFinished,
    ToolProgress,
    ToolStarted,
)
from desktop.system.store import Store
from tools.base import (
    BAD_INPUT,
    NOT_AN_OBJECT,
    TOOL_FAILED,
    UNKNOWN_TOOL,
    ActionInfo,
    InvalidInput,
    ToolImage,
    ToolResult,
)

log = logging.getLogger(__name__)

Emit = Callable[[AgentEvent], None]
Outcome = Literal["ok", "error", "denied", "blocked", "stopped"]

# Kept on each stored tool_result for the thread; never sent to the API (see model.py).
CARD_KEY = "deskhand_card"
STOPPED_TOOL = "Stopped by the person before this action finished."
# A call whose target keeps changing after each approval is refused after this many new asks.
MAX_ASKED_AGAIN = 2
ASKING_AGAIN = "What this acts on changed after the approval; asking again."
CHANGED_NOTE = "what it acts on changed after the approval"
RESULT_PREVIEW = 300
INPUT_PREVIEW = 160


class ToolUse(BaseModel):
    """A `tool_use` block as the model sent it; `input` is whatever JSON arrived."""

    id: str
    name: str
    input: Any = None
    toolset_name: str | None = None

    @classmethod
    def of(cls, block: dict[str, Any]) -> ToolUse:
        return cls(
            id=str(block.get("id", "")),
            name=str(block.get("name", "")),
            input=block.get("input"),
            toolset_name=block.get("toolset_name"),
        )

    @property
    def arguments(self) -> dict[str, Any]:
        """The input when it is an object (what every schema asks for), else empty."""
        return self.input if isinstance(self.input, dict) else {}

    def block(self) -> dict[str, Any]:
        block: dict[str, Any] = {
            "type": "tool_use",
            "id": self.id,
            "name": self.name,
            "input": self.input,
        }
        if self.toolset_name:
            block["toolset_name"] = self.toolset_name
        return block


class ActionGroup(BaseModel):
    """One tool's actions for the Permissions page: rules are keyed `tool.action`."""

    tool: str
    title: str
    actions: list[ActionInfo]


class CallResult(BaseModel):
    """What a source hands back: API content blocks (text...) and images, in order."""

    content: list[dict[str, Any] | ToolImage] = Field(default_factory=list)
    is_error: bool = False
    notices: list[str] = Field(default_factory=list)  # for the person: the card and the audit
    offers: list[str] = Field(default_factory=list)  # hosts the person may let through
    # Refused with nothing done: what the call acts on changed after it was approved. The
    # pipeline runs it again, so the source describes it anew and the gate decides anew.
    changed: bool = False

    @classmethod
    def of(cls, result: ToolResult) -> CallResult:
        content: list[dict[str, Any] | ToolImage] = []
        if result.text:
            content.append({"type": "text", "text": result.text})
        content.extend(result.images)
        return cls(content=content, is_error=result.is_error)

    @classmethod
    def failure(cls, phrase: str) -> CallResult:
        return cls.of(ToolResult.failure(phrase))

    @classmethod
    def of_block(cls, block: dict[str, Any]) -> CallResult:
        """From a rendered `tool_result` block (an SDK toolset's): base64 images become images."""
        raw = block.get("content")
        items = [{"type": "text", "text": raw}] if isinstance(raw, str) else list(raw or [])
        content: list[dict[str, Any] | ToolImage] = []
        for item in items:
            if isinstance(item, dict) and item.get("type") == "image":
                source = item.get("source")
                source = source if isinstance(source, dict) else {}
                content.append(
                    ToolImage(
                        data=base64.b64decode(source.get("data", "")),
                        media_type=source.get("media_type", "image/png"),
                        width=0,
                        height=0,
                    )
                )
            elif isinstance(item, dict):
                content.append(dict(item))
        return cls(content=content, is_error=bool(block.get("is_error")))

    def text(self) -> str:
        return "\n".join(
            str(item.get("text", ""))
            for item in self.content
            if isinstance(item, dict) and item.get("type") == "text"
        )


@dataclass
class CallContext:
    """What a source gets for one call: the gate, progress, cancellation, attachments."""

    session_id: int
    attachments_dir: Path
    approve: Callable[[ToolCall], Awaitable[Decision]]
    progress: Callable[[str], None] = lambda _line: None
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)


class ToolSource(Protocol):
    """Where tool calls of one kind go. `Toolbox` owns the sources and their lifecycle."""

    name: str
    # After a failed call, the rest of the same reply's calls to this source are not run:
    # the model planned them as a sequence (a browser's clicks), and they rarely make sense.
    stop_after_failure: bool
    not_executed: str  # what the calls skipped after a failure read

    def api_tools(self) -> list[dict[str, Any]]:
        """The `tools[]` entries this source offers now."""
        ...

    def handles(self, use: ToolUse) -> bool: ...

    def label(self, use: ToolUse) -> str:
        """The card's label ("Browser: left click"), even when the input is unusable."""
        ...

    def describe(self, use: ToolUse, session_id: int) -> ToolCall:
        """The call as the gate and the person see it, before any work; raises InvalidInput."""
        ...

    async def run(self, use: ToolUse, call: ToolCall, ctx: CallContext) -> CallResult:
        """Run the call; `await ctx.approve(call)` right before any effect, and obey its answer.

        A source that finds, right before acting, that what the call acts on changed since
        the approval does nothing and answers `changed=True`: the call is run again."""
        ...

    def action_groups(self) -> list[ActionGroup]: ...

    async def start(self) -> None: ...

    async def close_session(self, session_id: int) -> None: ...

    async def close(self) -> None: ...


def input_line(arguments: dict[str, Any]) -> str:
    """A call's input as one short line of JSON."""
    if not arguments:
        return ""
    text = json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= INPUT_PREVIEW else text[: INPUT_PREVIEW - 1] + "…"


def tool_label(title: str, action: str) -> str:
    """The card's label: "Browser: navigate", "macOS: calendar today"."""
    return f"{title}: {action.replace('_', ' ')}"


class CallCard(BaseModel):
    """What a tool card shows, stored beside the tool_result so a reopened chat shows the same."""

    label: str
    summary: str = ""
    outcome: Outcome = "ok"
    result: str = ""
    notices: list[str] = Field(default_factory=list)
    offers: list[str] = Field(default_factory=list)


@dataclass
class _Verdict:
    """The gate's answer for a call that reached it, and its audit row."""

    decision: Decision
    audit_id: int
    call: ToolCall | None = None  # what was decided on, when the source asked
    at: float = field(default_factory=time.monotonic)
    # Superseded: the run it allowed found its target changed and did nothing (audited so).
    spent: bool = False


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

    def card_for(self, use: ToolUse, session_id: int) -> CallCard:
        """The card a call starts with (label and summary), also for calls stored without one."""
        source = self.source_for(use)
        if source is None:  # no tool of that name (any more): what the model tried to send
            return CallCard(label=use.name or "tool", summary=input_line(use.arguments))
        try:
            call = source.describe(use, session_id)
        except Exception:  # unusable input: the label alone
            return CallCard(label=source.label(use))
        return CallCard(label=call.label or source.label(use), summary=call.summary)

    async def run_all(self, session_id: int, blocks: list[dict[str, Any]], emit: Emit) -> None:
        """Answer every tool_use of one reply in order, and commit the answers as one message.

        On Stop (the task cancelled) the calls that never ran, or were cut off, are answered
        too, so the stored conversation stays valid to send.
        """
        uses = [ToolUse.of(block) for block in blocks]
        results: dict[str, dict[str, Any]] = {}
        failed: set[str] = set()
        try:
            for use in uses:
                source = self.source_for(use)
                if source is not None and source.stop_after_failure and source.name in failed:
                    card = self._start(session_id, use, emit)
                    skipped = CallResult.failure(source.not_executed)
                    results[use.id] = self._finish(
                        session_id, use, card, skipped, "error", [], emit
                    )
                    continue
                results[use.id] = await self._run_one(session_id, use, source, emit)
                if source is not None and results[use.id].get("is_error"):
                    failed.add(source.name)
        finally:
            for use in uses:
                if use.id not in results:
                    card = CallCard(label=self.card_for(use, session_id).label)
                    stopped = CallResult.failure(STOPPED_TOOL)
                    results[use.id] = self._finish(
                        session_id, use, card, stopped, "stopped", [], emit
                    )
            commit(self.store, emit, session_id, "user", [results[use.id] for use in uses])

    def _start(self, session_id: int, use: ToolUse, emit: Emit) -> CallCard:
        card = self.card_for(use, session_id)
        emit(
            ToolStarted(
                session_id=session_id,
                tool_use_id=use.id,
                name=use.name,
                label=card.label,
                summary=card.summary,
                input=use.arguments,
            )
        )
        return card

    async def _run_one(
        self, session_id: int, use: ToolUse, source: ToolSource | None, emit: Emit
    ) -> dict[str, Any]:
        card = self._start(session_id, use, emit)
        if source is None:
            return self._finish(
                session_id, use, card, CallResult.failure(UNKNOWN_TOOL), "error", [], emit
            )
        if not isinstance(use.input, dict):
            return self._finish(
                session_id, use, card, CallResult.failure(NOT_AN_OBJECT), "error", [], emit
            )
        try:
            call = source.describe(use, session_id)
        except InvalidInput:
            return self._finish(
                session_id, use, card, CallResult.failure(BAD_INPUT), "error", [], emit
            )
        except (
            Exception
        ):  # a source that cannot say what the call is: nothing runs, the turn goes on
            log.exception("%s could not describe %s", source.name, use.name)
            return self._finish(
                session_id, use, card, CallResult.failure(TOOL_FAILED), "error", [], emit
            )
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
        result = settled.result
        outcome = _outcome(result, settled.decision)
        stored = await self._save_images(session_id, result)
        return self._finish(session_id, use, card, result, outcome, stored, emit)

    def _finish(
        self,
        session_id: int,
        use: ToolUse,
        card: CallCard,
        result: CallResult,
        outcome: Outcome,
        stored_images: list[dict[str, Any]],
        emit: Emit,
    ) -> dict[str, Any]:
        card = card.model_copy(
            update={
                "outcome": outcome,
                "result": result.text()[:RESULT_PREVIEW],
                "notices": result.notices,
                "offers": result.offers,
            }
        )
        emit(
            ToolFinished(
                session_id=session_id,
                tool_use_id=use.id,
                is_error=result.is_error,
                summary=card.result,
                outcome=outcome,
                images=[block["deskhand_image"]["path"] for block in stored_images],
                notices=card.notices,
                offers=card.offers,
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


Check = Callable[[ToolCall, ToolCall | None], Awaitable[tuple[Decision, int]]]


@dataclass
class Settled:
    """How one call ended: what it returned, and the gate's decision that stands (None: it
    never reached the gate)."""

    result: CallResult
    decision: Decision | None


async def run_gated(
    use: ToolUse,
    call: ToolCall,
    source: ToolSource,
    *,
    gate: Gate,
    session_id: int,
    attachments_dir: Path,
    progress: Callable[[str], None] = lambda _line: None,
    check: Check | None = None,
) -> Settled:
    """One described call, from the gate to its audited end: how every entry point runs a call
    (a chat's reply, `deskhand ui`, `deskhand mcp`, `deskhand apps call`).

    A Never rule refuses it before the source does any work. The source asks the gate right
    before its effect, through `check` (by default `gate.check`, told what the person last
    allowed for this use). A run refused because what it acts on changed after its approval
    runs again, described anew, at most `MAX_ASKED_AGAIN` times. The allowed run's audit row
    is finished.
    """
    never = refused_by_never(call, gate)
    if never is not None:
        return never
    verdicts: list[_Verdict] = []

    async def approve(asked: ToolCall) -> Decision:
        approved = _allowed_by_person(verdicts)
        if check is None:
            decision, audit_id = await gate.check(asked, approved=approved)
        else:
            decision, audit_id = await check(asked, approved)
        verdicts.append(_Verdict(decision, audit_id, asked))
        return decision

    ctx = CallContext(
        session_id=session_id, attachments_dir=attachments_dir, approve=approve, progress=progress
    )
    result = await _run_until_settled(use, call, source, ctx, gate, verdicts)
    current = verdicts[-1] if verdicts and not verdicts[-1].spent else None
    if current is not None and current.decision.verdict == "allow":
        gate.finished(
            current.audit_id, ok=not result.is_error, started=current.at, notes=result.notices
        )
    elif current is None and not result.is_error:
        # A source that ran without asking the gate is a bug: say so loudly in the log.
        log.error("%s ran %s without the gate", source.name, use.name)
    return Settled(result, verdicts[-1].decision if verdicts else None)


def refused_by_never(call: ToolCall, gate: Gate) -> Settled | None:
    """The refusal of a call a Never rule covers, audited; None when none does."""
    if never_rule(call, gate.settings().rules) is None:
        return None
    never = Decision(verdict="deny", by="rule", reason="set to Never")
    gate.record(call, never)
    return Settled(CallResult.failure(denial_text(never)), never)


async def _run_until_settled(
    use: ToolUse,
    call: ToolCall,
    source: ToolSource,
    ctx: CallContext,
    gate: Gate,
    verdicts: list[_Verdict],
) -> CallResult:
    # Notices and offers of runs that were refused for a change, kept for the card.
    notices: list[str] = []
    offers: list[str] = []
    asked_again = 0
    while True:
        result = await _run_once(use, call, source, ctx)
        last = verdicts[-1] if verdicts and not verdicts[-1].spent else None
        if (
            not result.changed
            or last is None  # this run never reached the gate: nothing to ask again about
            or last.decision.verdict != "allow"
            or asked_again == MAX_ASKED_AGAIN
        ):
            break
        # Nothing was done, and what was approved is no longer what the call would act on:
        # the call runs again, so the source describes it on what is there now and the
        # gate decides again (a rule may settle it; else the person sees the new target).
        gate.not_run(last.audit_id, CHANGED_NOTE)
        last.spent = True
        notices += result.notices
        offers += result.offers
        asked_again += 1
        ctx.progress(ASKING_AGAIN)
    if not notices and not offers:
        return result
    return result.model_copy(
        update={
            "notices": _unique(notices + result.notices),
            "offers": _unique(offers + result.offers),
        }
    )


async def _run_once(
    use: ToolUse, call: ToolCall, source: ToolSource, ctx: CallContext
) -> CallResult:
    try:
        return await source.run(use, call, ctx)
    except asyncio.CancelledError:
        ctx.cancelled.set()
        raise
    except Exception:
        log.exception("%s failed in %s", use.name, source.name)
        return CallResult.failure(TOOL_FAILED)


def _allowed_by_person(verdicts: list[_Verdict]) -> ToolCall | None:
    """The call as the person last allowed it, if that is the latest decision on this use."""
    if not verdicts:
        return None
    last = verdicts[-1]
    allowed = last.decision.verdict == "allow" and last.decision.by == "person"
    return last.call if allowed else None


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _outcome(result: CallResult, decision: Decision | None) -> Outcome:
    if decision is not None and decision.verdict == "deny":
        return "blocked" if decision.by == "rule" else "denied"
    return "error" if result.is_error else "ok"


def result_block(
    use: ToolUse,
    result: CallResult,
    stored_images: list[dict[str, Any]] | None = None,
    card: CallCard | None = None,
) -> dict[str, Any]:
    """The stored `tool_result`: content, is_error, the echoed `toolset_name`, and the card."""
    content = [item for item in result.content if isinstance(item, dict)]
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": use.id,
        "content": content or "Done.",
    }
    if result.is_error:
        block["is_error"] = True
    if use.toolset_name:
        block["toolset_name"] = use.toolset_name  # the API requires it on every toolset result
    if card is not None:
        block[CARD_KEY] = card.model_dump()
    return block

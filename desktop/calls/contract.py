"""The call pipeline's contract: a `tool_use` as it arrived, what a source hands back, and the
one way to write a tool source.

A `ToolSource` (the function tools, an SDK toolset, the MCP servers) offers `tools[]` entries
and answers for the calls it handles. It describes a call once (label, summary, target,
action, risk and its reason: what the card, the gate and the approval sheet all show), and
runs it with a `CallContext`, asking the gate right before any effect. Sources refuse with
a `CallResult`, never an exception; an input that does not fit raises `InvalidInput` while
describing, before anything runs.
"""

from __future__ import annotations

import asyncio
import base64
import json
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from desktop.calls.permissions import Decision, ToolCall
from tools.base import ActionInfo, ToolImage, ToolResult
from tools.data import Data
from tools.meaning import TargetMeaning
from tools.outcome import Outcome

# How a call ended (kept on its card under the key "outcome" since the first release); what it
# really did is its `Outcome` (tools/outcome.py).
Ending = Literal["ok", "error", "denied", "blocked", "stopped"]

# Kept on each stored tool_result for the thread; never sent to the API (see
# desktop/chat/request.py, PRIVATE_KEYS).
CARD_KEY = "deskhand_card"
OUTCOME_KEY = "deskhand_outcome"
STOPPED_TOOL = "Stopped by the person before this action finished."
RESULT_PREVIEW = 300
INPUT_PREVIEW = 160


class ToolUse(Data):
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


class ActionGroup(Data):
    """One tool's actions for the Permissions page: rules are keyed `tool.action`."""

    tool: str
    title: str
    actions: list[ActionInfo]


class CallResult(Data):
    """What a source hands back: API content blocks (text...) and images, in order."""

    content: list[dict[str, Any] | ToolImage] = Field(default_factory=list)
    is_error: bool = False
    notices: list[str] = Field(default_factory=list)  # for the person: the card and the audit
    offers: list[str] = Field(default_factory=list)  # hosts the person may let through
    # Refused with nothing done: what the call acts on changed after it was described and
    # approved. The pipeline runs it again: described anew, decided anew.
    changed: bool = False
    # What the call really did, as its source saw it afterwards (tools/outcome.py); None when
    # the source cannot look (an MCP server's word) or the call only read.
    outcome: Outcome | None = None

    @classmethod
    def of(cls, result: ToolResult) -> CallResult:
        content: list[dict[str, Any] | ToolImage] = []
        if result.text:
            content.append({"type": "text", "text": result.text})
        content.extend(result.images)
        return cls(content=content, is_error=result.is_error, outcome=result.outcome)

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


class ToolSource(ABC):
    """Where tool calls of one kind go. `Toolbox` owns the sources and their lifecycle."""

    name: str
    # What the rest of a reply's calls to this source read after one of them failed: they are
    # not run, since the model planned them as a sequence (a browser's clicks) and they rarely
    # make sense alone. None: each call runs on its own.
    not_executed: str | None = None

    @abstractmethod
    def api_tools(self) -> list[dict[str, Any]]:
        """The `tools[]` entries this source offers now."""

    @abstractmethod
    def handles(self, use: ToolUse) -> bool:
        """Whether this source answers the call (also one for a tool it no longer offers)."""

    @abstractmethod
    def label(self, use: ToolUse) -> str:
        """The card's label ("Browser: left click"), even when the input is unusable."""

    @abstractmethod
    def call_source(self, use: ToolUse) -> CallSource:
        """Where the call comes from, as its card carries it (the label's words aside)."""

    @abstractmethod
    async def describe(self, use: ToolUse, session_id: int) -> ToolCall:
        """The call as the card, the gate and the person see it, before it runs: the one
        description it gets (it may read what the call acts on, never change it). Raises
        `InvalidInput` when the input does not fit."""

    @abstractmethod
    async def run(self, use: ToolUse, call: ToolCall, ctx: CallContext) -> CallResult:
        """Run the described call; `await ctx.approve(call)` right before any effect, and obey
        its answer. A source that finds, right before acting, that what the call acts on
        changed since it was described does nothing and answers `changed=True`."""

    def action_groups(self) -> list[ActionGroup]:
        """Its actions with their usual risk, for Settings → Permissions."""
        return []

    async def start(self) -> None:
        """Work before the first call, behind the window."""
        return None

    async def close_session(self, session_id: int) -> None:
        """A chat was deleted: drop what was kept for it."""
        return None

    async def close(self) -> None:
        """The app quits."""
        return None


def input_line(arguments: dict[str, Any]) -> str:
    """A call's input as one short line of JSON."""
    if not arguments:
        return ""
    text = json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= INPUT_PREVIEW else text[: INPUT_PREVIEW - 1] + "…"


def tool_label(title: str, action: str) -> str:
    """The card's label: "Browser: navigate", "macOS: calendar today"."""
    return f"{title}: {action.replace('_', ' ')}"


class CallSource(Data):
    """Where a call comes from. The window picks a card's icon (and offers the browser's Take
    over) by `name`, and lists `title` for a run of calls, so it never reads the label for it."""

    # What answers the call, by a name that does not change: a toolset's ("browser",
    # "computer"), a function tool's ("macos", "tabs"), or "mcp" for any MCP server's tool;
    # "" when nothing knows the tool.
    name: str = ""
    title: str = ""  # the cards' words for it: "Browser", "macOS", "Mac apps", an MCP server


class CallCard(Data):
    """What a tool card shows, stored beside the tool_result so a reopened chat shows the same."""

    label: str
    # Where the call comes from (`CallSource`); empty on cards stored before it was kept.
    source: str = ""
    source_title: str = ""
    summary: str = ""
    outcome: Ending = "ok"
    result: str = ""
    notices: list[str] = Field(default_factory=list)
    offers: list[str] = Field(default_factory=list)
    # What the call really did (tools/outcome.py): kept under its own key, since "outcome" has
    # held how it ended since the first release; None on older cards and for reads.
    effect: Outcome | None = None
    # What it acted on, by meaning (tools/meaning.py): what a routine finds again; None for
    # calls whose source resolves no element (and on older cards).
    meaning: TargetMeaning | None = None


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

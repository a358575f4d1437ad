"""Typed events the agent emits while a turn runs; the window renders them.

The agent knows nothing about Qt: it calls `emit(event)` and whoever listens draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError

from desktop.calls.contract import Ending
from desktop.chat.attachments import Attachment
from desktop.model_stream.errors import ProblemWords
from desktop.system.usage import Usage
from tools.data import Data
from tools.outcome import Outcome

if TYPE_CHECKING:  # only the constructor's signature names them
    from desktop.calls.contract import CallCard, ToolUse


class SessionEvent(Data):
    """Something that happened in one chat's thread; `kind` tells the events apart."""

    kind: str
    session_id: int


class TurnStarted(SessionEvent):
    kind: Literal["turn_started"] = "turn_started"


class PromptAdded(SessionEvent):
    """The person's message joined the thread (sent now, or replayed from history)."""

    kind: Literal["prompt_added"] = "prompt_added"
    text: str
    message_id: int | None = None  # what Edit replaces
    attachments: list[Attachment] = Field(default_factory=list)


class ReplyContinued(SessionEvent):
    """The person asked Claude to go on with a reply that was stopped or cut off."""

    kind: Literal["reply_continued"] = "reply_continued"


class EarlierVersion(Data):
    """A prompt and its answer as they were before Edit or Regenerate replaced them."""

    message_id: int  # its prompt's: what choosing this version again names
    prompt: str
    attachments: list[Attachment] = Field(default_factory=list)
    reply: str
    steps: int = 0  # tool calls it made


class EarlierVersions(SessionEvent):
    """The versions the next prompt replaced, the most recently current first (shown folded
    above it). Versions are numbered in the order they were written, by message id."""

    kind: Literal["earlier_versions"] = "earlier_versions"
    versions: list[EarlierVersion]
    current_prompt: str = ""  # the message that replaced them, as it reads now
    current_id: int = 0  # that message's id

    def order(self) -> list[int]:
        """Every version's prompt id, the current one's included, oldest first: a version's
        number is its place here, whichever version is current."""
        return sorted([self.current_id, *(version.message_id for version in self.versions)])

    def number_of(self, message_id: int) -> int:
        return self.order().index(message_id) + 1


class MessageStarted(SessionEvent):
    """The model began a new assistant message (text deltas that follow belong to it)."""

    kind: Literal["message_started"] = "message_started"


class TextDelta(SessionEvent):
    kind: Literal["text_delta"] = "text_delta"
    text: str


class ToolStarted(SessionEvent):
    kind: Literal["tool_started"] = "tool_started"
    tool_use_id: str
    name: str
    label: str  # "Browser: navigate"
    # Where the call comes from (desktop.calls.contract.CallSource): the window picks the
    # card's icon and the browser's Take over by `source`, and a run lists `source_title`.
    source: str  # "browser", "computer", "macos", "mcp"; "" when nothing knows the tool
    source_title: str  # "Browser", "macOS", "Mac apps", an MCP server's name
    summary: str = ""  # "Open https://example.com"
    input: dict[str, object] = Field(default_factory=dict)

    @classmethod
    def of(cls, session_id: int, use: ToolUse, card: CallCard) -> ToolStarted:
        """The start of `use` as its card shows it: live and replayed calls start alike."""
        return cls(
            session_id=session_id,
            tool_use_id=use.id,
            name=use.name,
            label=card.label,
            source=card.source,
            source_title=card.source_title,
            summary=card.summary,
            input=use.arguments,
        )


class ToolProgress(SessionEvent):
    kind: Literal["tool_progress"] = "tool_progress"
    tool_use_id: str
    line: str


class ToolFinished(SessionEvent):
    kind: Literal["tool_finished"] = "tool_finished"
    tool_use_id: str
    is_error: bool
    summary: str
    outcome: Ending = "ok"  # how the call ended (what it really did: `effect`, below)
    images: list[str] = Field(default_factory=list)  # attachment paths
    # What the person should know beyond the result ("Blocked 3 requests to local addresses"),
    # and hosts they may let through (the card offers it; the model never can).
    notices: list[str] = Field(default_factory=list)
    offers: list[str] = Field(default_factory=list)
    # What the call really did, as its source saw it (the card says it in words); None for a
    # read, and on cards stored before it was kept.
    effect: Outcome | None = None


class MessageCommitted(SessionEvent):
    """A message reached the store; `status` says whether it is complete or was cut short."""

    kind: Literal["message_committed"] = "message_committed"
    message_id: int
    role: Literal["user", "assistant"]
    status: str


class TurnFinished(SessionEvent):
    """The turn ended. `notice` is a visible outcome when it ended other than normally."""

    kind: Literal["turn_finished"] = "turn_finished"
    stop_reason: str
    notice: str | None = None
    usage: Usage = Field(default_factory=Usage)
    model: str = ""


class TurnFailed(ProblemWords, SessionEvent):
    """The turn stopped on an error the person should see, with what to do about it."""

    kind: Literal["turn_failed"] = "turn_failed"
    error_kind: str


class TurnStopped(SessionEvent):
    """The person stopped the turn; what arrived before stays."""

    kind: Literal["turn_stopped"] = "turn_stopped"


AgentEvent = Annotated[
    TurnStarted
    | PromptAdded
    | ReplyContinued
    | EarlierVersions
    | MessageStarted
    | TextDelta
    | ToolStarted
    | ToolProgress
    | ToolFinished
    | MessageCommitted
    | TurnFinished
    | TurnFailed
    | TurnStopped,
    Field(discriminator="kind"),
]

_TURN_END: TypeAdapter[TurnFailed | TurnStopped] = TypeAdapter(
    Annotated[TurnFailed | TurnStopped, Field(discriminator="kind")],
    config=ConfigDict(defer_build=True),  # built on first use, like the models (Data)
)


def stored_turn_end(event_json: str) -> TurnFailed | TurnStopped | None:
    """How a turn ended, as the store kept it; None when a newer Deskhand wrote it."""
    try:
        return _TURN_END.validate_json(event_json)
    except ValidationError:
        return None

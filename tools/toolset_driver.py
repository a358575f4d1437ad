"""What the two SDK toolset drivers (the browser's and the screen's) share.

Both implement the members of an SDK toolset and leave validation, policies, `confirm` and
rendering to the SDK. Around that, each does the same few things, written once here:

- `ToolsetDriver.judge(context)`: the call as the gate will see it (risk, reason, summary,
  the page it acts on), judged from what it will really affect, before it runs. The app
  judges each call once, on the confirm context the SDK would build for it (`context_of`),
  and shows that one judgement on the card and the approval sheet; `confirm` then only asks
  the gate about it.
- `ToolsetDriver.run(tool_use, progress=...)`: the finished `tool_result` block, and whether the
  call was refused, nothing done, because what it acts on changed after it was described
  (`ToolsetRun.changed`: the app then describes it again and asks again).
- progress lines as each member starts (`progress_scope`, or the driver's `progress`);
- `refusal(phrase)`: the SDK's `ToolError` carrying one of our fixed phrases;
- `person_answered()`: told when the person (not a rule) allowed the call being confirmed;
- the member names both families have, grouped as their risk tables use them;
- the model's image limits, and fitting a screenshot inside them;
- the grammar of key names the model writes ("ctrl+a Return", "ctrl++"), each driver
  mapping single names to its own keys.
"""

from __future__ import annotations

import base64
import contextlib
import io
import logging
import math
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import pydantic
from pydantic import Field

from tools.data import Data
from tools.meaning import Found, TargetMeaning
from tools.outcome import Outcome
from tools.risk import Risk

if TYPE_CHECKING:
    from anthropic.tools import ToolError
    from anthropic.types.beta import BetaToolUseBlock
    from PIL import Image

log = logging.getLogger(__name__)

__all__ = [
    "BUTTON_MEMBERS",
    "CLICK_MEMBERS",
    "KEYBOARD_MEMBERS",
    "LOOK_MEMBERS",
    "MAX_BASE64",
    "MAX_EDGE",
    "MAX_PIXELS",
    "Judged",
    "Progress",
    "ToolsetDriver",
    "ToolsetRun",
    "UnknownKey",
    "base64_image",
    "call_record",
    "fit_factor",
    "key_chord",
    "key_sequence",
    "progress_scope",
    "refusal",
]

Progress = Callable[[str], None]

# Members both toolsets have, by what they do.
CLICK_MEMBERS = frozenset(
    {"left_click", "right_click", "middle_click", "double_click", "triple_click"}
)
BUTTON_MEMBERS = frozenset({"left_click_drag", "left_mouse_down", "left_mouse_up"})
KEYBOARD_MEMBERS = frozenset({"type", "key", "hold_key"})
LOOK_MEMBERS = frozenset({"screenshot", "zoom", "wait"})

# The model's image limits (DESIGN.md): long edge, pixels, and the base64 of one image.
MAX_EDGE = 1568
MAX_PIXELS = 1_150_000
MAX_BASE64 = 5 * 1024 * 1024


class UnknownKey(ValueError):
    """A key name the driver does not know (the model reads a fixed phrase, not a guess)."""


def key_chord(chord: str, key: Callable[[str], str]) -> list[str]:
    """One chord ("ctrl+shift+p"; "+" alone and "ctrl++" name the plus key), each name mapped
    by `key` (which raises `UnknownKey`)."""
    if chord == "+":
        return [key("+")]
    if chord.endswith("++"):
        return [*key_chord(chord[:-2], key), key("+")]
    parts = chord.split("+")
    if any(part == "" for part in parts):
        raise UnknownKey(chord)
    return [key(part) for part in parts]


def key_sequence(text: str, key: Callable[[str], str]) -> list[list[str]]:
    """Space-separated chords, each a list of keys pressed together (in order)."""
    chords = [chunk for chunk in text.split(" ") if chunk]
    if not chords:
        raise UnknownKey(text)
    return [key_chord(chunk, key) for chunk in chords]


def fit_factor(width: float, height: float, *, upscale: float = 1.0) -> float:
    """The largest factor <= `upscale` at which a `width`x`height` image fits the limits."""
    by_edge = MAX_EDGE / max(width, height, 1)
    by_area = math.sqrt(MAX_PIXELS / max(width * height, 1))
    return min(upscale, by_edge, by_area)


def base64_image(
    image: Image.Image, *, png: bytes | None = None, **png_options: Any
) -> tuple[str, str]:
    """`(base64 data, media type)` of `image` (CPU work: call it in a thread): PNG, which keeps
    text sharp (`png`: already encoded), or JPEG when a PNG would exceed the request limit."""
    if png is None:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", **png_options)
        png = buffer.getvalue()
    data = base64.b64encode(png).decode("ascii")
    if len(data) <= MAX_BASE64:
        return data, "image/png"
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="JPEG", quality=80)
    return base64.b64encode(buffer.getvalue()).decode("ascii"), "image/jpeg"


class Judged(Data):
    """One call as the gate and the person see it, from what it will really affect."""

    risk: Risk
    reason: str
    summary: str
    page: str | None = None  # the page it acts on (the browser's), for where it lands
    # Where else its effect lands (a link's target, a form's action, a navigation's
    # destination): a chat's plan holds these to its sites.
    lands: list[str] = Field(default_factory=list)
    # The element it acts on, by meaning (tools/meaning.py), when one was resolved.
    meaning: TargetMeaning | None = None


class ToolsetRun(Data):
    """How one member call ended: the SDK's `tool_result` block, and whether it was refused,
    nothing done, because what it acts on changed after it was described."""

    block: dict[str, Any] = Field(default_factory=dict)
    changed: bool = False
    outcome: Outcome | None = None  # what the member saw it really did (`report_outcome`)


class _Running:
    """The call being run in this task: where its progress goes, and what became of it."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        self.changed = False
        self.outcome: Outcome | None = None


_running: ContextVar[_Running | None] = ContextVar("deskhand_toolset_call", default=None)


@contextlib.contextmanager
def progress_scope(callback: Progress | None) -> Iterator[None]:
    """Send the progress lines of the toolset calls awaited inside this block to `callback`."""
    token = _running.set(_Running(callback))
    try:
        yield
    finally:
        _running.reset(token)


@contextlib.contextmanager
def call_record() -> Iterator[_Running]:
    """The record of the toolset call running in this task, cleared for it: `run`'s, or a new
    one for the block (a call made straight through `tool_result`), so a driver can read back
    the outcome its member reported (`report_outcome`) and put it in the result."""
    running = _running.get()
    if running is not None:
        running.outcome = None
        yield running
        return
    made = _Running(None)
    token = _running.set(made)
    try:
        yield made
    finally:
        _running.reset(token)


def refusal(phrase: str) -> ToolError:
    """The `ToolError` the model reads for `phrase` (one of the drivers' fixed phrases)."""
    from anthropic.tools import ToolError

    return ToolError(phrase)


class ToolsetDriver:
    """Mixed into each driver, beside the SDK's abstract toolset class it implements."""

    # The SDK's union of this family's tool_use blocks (it parses a member's input), and the
    # context its `confirm` receives.
    tool_use_union: Any = None
    confirm_context: Any = None
    title = ""  # the progress lines' prefix ("Browser")
    progress: Progress | None = None  # progress lines outside any `progress_scope`

    async def judge(self, context: Any) -> Judged:
        """The call in a confirm context (`confirm_context`) as the gate will see it, judged from
        what it will really affect, before it runs (each driver judges its own)."""
        raise NotImplementedError

    async def find_again(self, meaning: TargetMeaning, *, within: float) -> Found:
        """The element `meaning` names, in the page or window as it is now, waiting up to
        `within` seconds for it to appear (as a replayed step does); drivers that cannot look
        for one say so."""
        return Found(why="This tool cannot find an element by what it is.")

    def context_of(self, tool_use: BetaToolUseBlock) -> Any:
        """The confirm context the SDK builds for `tool_use` before it asks `confirm`, built
        ahead so the call can be judged before it runs; None when its input does not parse
        (the SDK then refuses it, with what to fix, before anyone is asked)."""
        parsed = self._parse(tool_use)
        if parsed is None:
            return None
        values: dict[str, Any] = {"tool_use": tool_use, "member": tool_use.name, "input": parsed}
        if "tab_id" in self.confirm_context.model_fields:
            values["tab_id"] = getattr(parsed, "tab_id", None)
        # Pydantic's raw constructor, as the SDK builds its own contexts: nothing is coerced.
        # tests/tools/test_toolset_driver.py holds this to the context the SDK really builds.
        return pydantic.BaseModel.model_construct.__func__(  # type: ignore[attr-defined]
            self.confirm_context, **values
        )

    def _parse(self, tool_use: BetaToolUseBlock) -> Any:
        try:
            block = pydantic.TypeAdapter(self.tool_use_union).validate_python(
                tool_use.model_dump(exclude_none=True)
            )
        except pydantic.ValidationError:
            return None
        return block.input

    async def run(self, tool_use: BetaToolUseBlock, *, progress: Progress | None) -> ToolsetRun:
        """Run one member call through the SDK (policies, `confirm`, the member, rendering)."""
        running = _Running(progress)
        token = _running.set(running)
        try:
            block = await self.tool_result(tool_use)  # type: ignore[attr-defined]
        finally:
            _running.reset(token)
        return ToolsetRun(block=dict(block), changed=running.changed, outcome=running.outcome)

    def person_answered(self) -> None:
        """The person (not a rule or a mode) allowed the call being confirmed."""
        return None

    @staticmethod
    def mark_changed() -> None:
        """The running call is refused, nothing done: what it acts on changed since `judge`."""
        running = _running.get()
        if running is not None:
            running.changed = True

    @staticmethod
    def report_outcome(outcome: Outcome) -> None:
        """What the running member saw it really did (its `Effect:` lines go in its result)."""
        running = _running.get()
        if running is not None:
            running.outcome = outcome

    @staticmethod
    def changed_now() -> bool:
        """Whether the running call was refused for a change (it will run again)."""
        running = _running.get()
        return running is not None and running.changed

    def report_progress(self, line: Callable[[], str]) -> None:
        """One progress line for the member starting now (built only when someone listens)."""
        running = _running.get()
        callback = (running.progress if running is not None else None) or self.progress
        if callback is None:
            return
        try:
            callback(f"{self.title}: {line()}")
        except Exception:
            log.exception("The %s progress callback failed", self.title.lower())


def input_of(context: Any) -> Mapping[str, Any]:
    """A confirm context's parsed input as a plain dict."""
    value: Any = getattr(context, "input", None)
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else {}

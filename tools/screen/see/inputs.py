"""What the model writes to the `screen` tool: its actions, their input, and a row per action
with its usual risk (the element it lands on is judged in `tool.py` and `acting.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import ConfigDict, Field

from tools.base import Risk
from tools.data import Data
from tools.screen.see.targets import Target

Action = Literal[
    "screens", "windows", "see", "screenshot", "wait", "click", "set_value", "scroll_to"
]
READS = frozenset({"screens", "windows", "see", "screenshot", "wait"})
WAIT_DEFAULT = 5.0
WAIT_MAX = 30.0
LAST_SEEN = 30  # element lines a failed wait reports
FIRST_LOOK = "Let Claude see your screen in this chat?"
FIRST_LOOK_REASON = "The first look at your screen in this chat"

DESCRIPTION = """\
See and use other apps' windows through their accessibility elements, with ids.
- windows: the open windows, front to back, with ids. screens: the displays.
- see: a snapshot of a window: an id and a line per element, e.g. `T1 text field "Name" (412,230 \
200×28)`. Ids: B button, T text field, L link, C checkbox, R radio, S slider, M menu item, \
I image, G group, X other. Bounds are pixels of a screenshot of the window's display (the \
computer tool's coordinates). annotate: true adds that screenshot with the ids drawn on it.
- click, set_value (with value), scroll_to: act on an element by its id from the latest see \
(or from `snapshot`). If the window changed since, you are asked to see again. The result's `Effect:` lines say what changed in the window (`~ checkbox "Remember me": checked`, `+ dialog "Save changes?"`), or `Effect: none` when nothing readable did.
- wait: until an element with that role and/or label appears (gone: true, disappears), \
up to timeout seconds (default 5, at most 30).
- screenshot: the pixels of a window or display.
Target (see, wait, screenshot): nothing for the front-most window; app (its name or class), \
with window_index (0 = its front-most window) or title; title alone (text in the window title); \
window_id (from windows); display (an index: all of it). Password fields are never filled."""


class ScreenInput(Data):
    model_config = ConfigDict(extra="forbid")

    action: Action
    app: str | None = Field(default=None, max_length=200)
    title: str | None = Field(default=None, max_length=200)
    window_index: int | None = Field(default=None, ge=0, le=1000)
    window_id: int | None = Field(default=None, ge=0)
    display: int | None = Field(default=None, ge=0, le=64)
    annotate: bool = False
    id: str | None = Field(default=None, pattern=r"^[BTLCRSMIGX][0-9]{1,4}$")
    snapshot: str | None = Field(default=None, pattern=r"^s[0-9]{1,9}$")
    value: str | None = Field(default=None, max_length=10_000)
    role: str | None = Field(default=None, max_length=60)
    label: str | None = Field(default=None, max_length=200)
    gone: bool = False
    timeout: float = Field(default=WAIT_DEFAULT, gt=0, le=WAIT_MAX)

    def target(self) -> Target:
        return Target.model_validate(self.model_dump(include=set(Target.model_fields)))


@dataclass(frozen=True)
class ScreenCall:
    """One call: its input and the chat it is made in."""

    input: ScreenInput
    session_id: int = 0


@dataclass(frozen=True)
class _Row:
    """One action: its usual risk (before the element is known) and what it is for."""

    risk: Risk
    description: str
    member: str = ""  # the computer member it is judged like ("left_click", "type", "scroll")


ROWS: dict[str, _Row] = {
    "screens": _Row(Risk.READ, "Lists the displays"),
    "windows": _Row(Risk.READ, "Lists the open windows"),
    "see": _Row(Risk.READ, "Reads a window's elements (names, values, where they are)"),
    "screenshot": _Row(Risk.READ, "Takes a screenshot of a window or display"),
    "wait": _Row(Risk.READ, "Waits for an element to appear or disappear"),
    "click": _Row(Risk.CHANGE, "Presses an element; judged by the element", "left_click"),
    "set_value": _Row(Risk.CHANGE, "Puts text in a field; judged by the field", "type"),
    "scroll_to": _Row(Risk.READ, "Scrolls an element into view", "scroll"),
}

"""What acting on an element affects, as data: the `Effect` the gate judges (see `target.py`).

Plain data, apart from the module that finds elements in a page (which needs Playwright), so
that what describes elements another way (the person's own browser, through scripting) and
the judgement in `risk` load neither Playwright nor the SDK.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from pydantic import ConfigDict, ValidationError

from tools.data import Data

log = logging.getLogger(__name__)

__all__ = ["Action", "Effect", "Mode", "effect_from_facts"]

Mode = Literal["click", "fill", "enter", "space", "type"]
Action = Literal["activate", "fill", "type"]
_PLACE = {"near"}  # where an element sits, which no re-check compares


class Effect(Data):
    """The element an action lands on, as far as judging the action goes."""

    model_config = ConfigDict(frozen=True)

    action: Action  # activating it (click, Return, Space), filling it, or typing into it
    tag: str
    role: str
    name: str  # its accessible name (or the nearest thing to it)
    words: str = ""  # further text on it: its content, title, a button's value
    input_type: str = ""
    href: str | None = None
    form_method: str | None = None  # set when acting on it submits a form
    form_action: str | None = None
    submits: bool = False
    editable: bool = False
    password: bool = False  # it is a password field, or hands the action on to one
    activates: bool = False  # a control that does something when activated
    interactive: bool = False  # a control at all (not just text or a picture)
    frame_url: str = ""
    node: int | None = None  # the exact element (CDP backend node id) when found over CDP
    # Where it sits ('heading "Install"', 'navigation "Docs"'): what a routine finds it again
    # by, not what acting on it does, so no comparison below holds a call to it.
    near: str = ""

    @property
    def label(self) -> str:
        """How a person would name it: its name, else its role."""
        return self.name or self.role or self.tag

    def same_target(self, other: Effect) -> bool:
        """Whether `other` is the same element, doing the same thing."""
        return self.model_dump(exclude=_PLACE) == other.model_dump(exclude=_PLACE)

    def same_field(self, other: Effect) -> bool:
        """Whether `other` is the same field, whatever text it holds by now (typing into it
        changes its content, nothing else)."""
        if self.node is not None and other.node is not None:
            return self.node == other.node and self.frame_url == other.frame_url
        return self.model_dump(exclude={"words", *_PLACE}) == other.model_dump(
            exclude={"words", *_PLACE}
        )


def effect_from_facts(facts: Any, mode: Mode) -> Effect | None:
    """An effect from a description made elsewhere (the person's own browser, through
    scripting), judged by the same rules as the driver's own."""
    return _effect(facts, mode)


def _effect(facts: Any, mode: Mode, node: int | None = None) -> Effect | None:
    if not isinstance(facts, dict):
        return None
    activates = bool(facts.get("activates"))
    if mode == "fill":
        action: Action = "fill"
    elif mode == "click" or (mode in ("enter", "space") and (activates or facts.get("submits"))):
        action = "activate"
    else:
        action = "type"
    try:
        return Effect.model_validate({**facts, "action": action, "node": node})
    except ValidationError:
        log.info("The page described an element in an unexpected shape")
        return None

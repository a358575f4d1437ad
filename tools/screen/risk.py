"""How risky a screen call is, and the one line a person reads about it. Pure functions.

A call is judged by the element it affects (DESIGN: the effect, however it is addressed): the
element under the point for the pointer, the focused element for the keyboard, as an
`Inspector` reports them. Where no accessibility information is available the effect cannot be
established, so the call counts as consequential.

- READ: screenshot, zoom, cursor_position, wait; a mouse move with no button held; a scroll
  over an element that only scrolls.
- CHANGE: a click, a key or typing whose element is known and ordinary; a scroll where it is
  not known what is under the pointer (sliders and spin boxes change value when scrolled).
- CONSEQUENTIAL: a click, drag, key or typing on an unknown element; a control named like a
  purchase, a message sent or a deletion; typing or keys into a terminal, where text runs.

Typing into a secure text field is not a risk level: the driver refuses it outright.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from tools.base import Risk
from tools.screen.a11y.elements import Element
from tools.toolset_driver import BUTTON_MEMBERS, CLICK_MEMBERS, KEYBOARD_MEMBERS, LOOK_MEMBERS
from tools.weighty import VERBS, weighty

__all__ = ["READ_MEMBERS", "quote", "screen_action", "screen_risk", "screen_summary"]

READ_MEMBERS = LOOK_MEMBERS | {"cursor_position"}
POINTER_MEMBERS = CLICK_MEMBERS | BUTTON_MEMBERS | {"mouse_move", "scroll"}

# Words on a control that usually mean money, a message, or something hard to undo.
# Beyond the words any control may carry (tools/weighty.py): what only a desktop offers.
_DESKTOP_WEIGHTY = re.compile(
    r"\b(empty trash|format|uninstall|sign out|log out|shut down|restart)\b", re.IGNORECASE
)
# Roles where text typed runs as a command.
_COMMAND_ROLES = frozenset({"terminal", "console", "command line"})
# Roles whose value a scroll wheel changes.
_VALUE_ROLES = frozenset({"slider", "spin button", "scroll bar", "combo box", "dial"})

READ_REASON = "Only looks at the screen"
UNKNOWN_POINTER = "What is at that point is not known (no accessibility information), so its effect cannot be told"
UNKNOWN_FOCUS = "What has the keyboard focus is not known (no accessibility information), so where the keys go cannot be told"


def quote(text: str, limit: int = 60) -> str:
    """`text` for a one-line summary: invisible and control characters escaped, cut to `limit`."""
    escaped = json.dumps(text, ensure_ascii=False)[1:-1]
    escaped = re.sub(
        r"[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]",
        lambda m: f"\\u{ord(m[0]):04x}",
        escaped,
    )
    return escaped if len(escaped) <= limit else escaped[: limit - 1] + "…"


def _named(element: Element) -> str:
    name = f"'{quote(element.name)}'" if element.name else "an unnamed element"
    details = ", ".join(part for part in (element.role, quote(element.app, 30)) if part)
    return f"{name} ({details})" if details else name


def screen_risk(
    member: str,
    input: Mapping[str, Any],
    *,
    element: Element | None = None,
    button_held: bool = False,
) -> tuple[Risk, str]:
    """(risk, reason) for one computer member call; `element` is what it affects, if known."""
    if member in READ_MEMBERS:
        return Risk.READ, READ_REASON
    if member == "mouse_move" and not button_held:
        return Risk.READ, "Only moves the pointer"
    if member == "scroll":
        if element is None:
            return Risk.CHANGE, "Scrolls; some controls change their value when scrolled"
        if element.role in _VALUE_ROLES:
            return Risk.CHANGE, f"Scrolls over {_named(element)}, which changes its value"
        return Risk.READ, "Only scrolls the view"
    if member in KEYBOARD_MEMBERS:
        if element is None:
            return Risk.CONSEQUENTIAL, UNKNOWN_FOCUS
        if element.secure:
            return Risk.CONSEQUENTIAL, "The focused field is a password field"
        if element.role in _COMMAND_ROLES:
            return (
                Risk.CONSEQUENTIAL,
                f"Types into {_named(element)}, where text can run as a command",
            )
        return Risk.CHANGE, f"Types into {_named(element)}"
    if member in POINTER_MEMBERS:
        if element is None:
            return Risk.CONSEQUENTIAL, UNKNOWN_POINTER
        kind = weighty(element.name) if element.name else None
        if kind is not None:
            return Risk.CONSEQUENTIAL, f"Acts on {_named(element)}, which may {VERBS[kind]}"
        if element.name and _DESKTOP_WEIGHTY.search(element.name):
            return Risk.CONSEQUENTIAL, f"Acts on {_named(element)}, which is hard to undo"
        return Risk.CHANGE, f"Acts on {_named(element)}"
    return Risk.CONSEQUENTIAL, "Unknown screen action"


def _point(value: object) -> str | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        return f"({value[0]}, {value[1]})"
    return None


def screen_action(
    member: str,
    input: Mapping[str, Any],
    *,
    element: Element | None = None,
    display: int | None = None,
) -> str:
    """What the call does, lower-case: "click 'Send' (push button, Mail) at (640, 360)"."""
    at = _point(input.get("coordinate"))
    where = f"at {at}" if at else "at the pointer"
    if element is not None:
        where = f"{_named(element)} {where}"
    on = f" on display {display}" if display is not None else ""
    held = input.get("text") if member in POINTER_MEMBERS else None
    prefix = f"{quote(str(held), 30)}+" if held else ""
    text = str(input.get("text", ""))
    match member:
        case "left_click":
            return f"{prefix}click {where}{on}"
        case "right_click":
            return f"{prefix}right-click {where}{on}"
        case "middle_click":
            return f"{prefix}middle-click {where}{on}"
        case "double_click":
            return f"{prefix}double-click {where}{on}"
        case "triple_click":
            return f"{prefix}triple-click {where}{on}"
        case "mouse_move":
            return f"move the pointer to {at or 'a point'}{on}"
        case "left_mouse_down":
            return f"press the left mouse button {where}{on}"
        case "left_mouse_up":
            return f"release the left mouse button {where}{on}"
        case "left_click_drag":
            start = _point(input.get("start_coordinate")) or "a point"
            subject = f" {_named(element)}" if element is not None else ""
            return f"{prefix}drag{subject} from {start} to {at or 'a point'}{on}"
        case "scroll":
            amount = input.get("scroll_amount")
            over = "over " if element is not None else ""
            direction = input.get("scroll_direction", "down")
            return f"{prefix}scroll {direction} {amount} {over}{where}{on}"
        case "type":
            into = f" into {_named(element)}" if element is not None else ""
            return f"type '{quote(text)}'{into}"
        case "key":
            repeat = input.get("repeat")
            times = f" {repeat} times" if isinstance(repeat, int) and repeat > 1 else ""
            into = f" in {_named(element)}" if element is not None else ""
            return f"press {quote(text, 40)}{times}{into}"
        case "hold_key":
            return f"hold {quote(text, 40)} for {input.get('duration')} s"
        case "screenshot":
            return f"take a screenshot{on}"
        case "zoom":
            region = input.get("region")
            if isinstance(region, list | tuple) and len(region) == 4:
                x0, y0, x1, y1 = region
                return f"zoom into ({x0}, {y0})–({x1}, {y1}){on}"
            return f"zoom into part of the screen{on}"
        case "cursor_position":
            return "read where the pointer is"
        case "wait":
            return f"wait {input.get('duration')} s"
    return quote(member)


def screen_summary(
    member: str,
    input: Mapping[str, Any],
    *,
    element: Element | None = None,
    display: int | None = None,
) -> str:
    """One line for the approval sheet: "Click 'Send' (push button, Mail) at (640, 360)"."""
    action = screen_action(member, input, element=element, display=display)
    return action[:1].upper() + action[1:]

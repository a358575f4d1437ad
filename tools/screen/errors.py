"""Every sentence the screen driver says to the model when it refuses or fails, and its own errors.

The model never reads exception text, window titles or paths from an error: only these fixed
phrases (a display index is the one value some of them carry). `refusal(phrase)` builds the SDK's
`ToolError`, which the model reads as an `is_error` result.
"""

from __future__ import annotations

from anthropic.tools import ToolError

__all__ = ["BackendError", "NoKeycode", "ScreenError", "refusal"]


class ScreenError(Exception):
    """Base of the driver's own errors that reach the app (not the model)."""


class BackendError(ScreenError):
    """A backend could not do what was asked (a lost display connection, a failed capture)."""


class NoKeycode(BackendError):
    """The layout has no key for a character and no key code is free to map it to."""


OUTSIDE_SCREENSHOT = (
    "That point is outside the screenshot. Use a point inside the latest screenshot, "
    "or take a new one."
)
OWN_WINDOW = (
    "Refused: that point is on Deskhand's own window, and Deskhand never controls itself. "
    "Act on another window."
)
OWN_WINDOW_FOCUSED = (
    "Refused: Deskhand's own window has the keyboard focus, so the keys would go to it. "
    "Click the window you mean first."
)
SECURE_FIELD = (
    "Refused: the focused field is a password field. Deskhand never types passwords; "
    "ask the person to enter it themselves."
)
UNKNOWN_KEY = (
    "That key name is not known. Use names like Return, Tab, Escape, BackSpace, Delete, Up, "
    "Page_Down, F5, a single character, or chords like ctrl+s."
)
NOT_MODIFIERS = (
    "Only modifier keys can be held during this action: ctrl, shift, alt, super (cmd), "
    "or a combination like ctrl+shift."
)
DURATION = "The duration must be between 0 and 30 seconds."
REPEAT = "repeat must be between 1 and 100."
SCROLL_AMOUNT = "scroll_amount must be between 1 and 30."
BAD_REGION = (
    "The zoom region must be [x0, y0, x1, y1] inside the screenshot, with x0 < x1 and y0 < y1."
)
CONTROL_CHARACTERS = (
    "The text holds control characters that cannot be typed; only line breaks and tabs can."
)
TEXT_TOO_LONG = "The text is too long to type at once (at most 10,000 characters)."
NO_KEYCODE = "A character in the text cannot be typed on this keyboard layout."
DISPLAY_CHANGED = (
    "The display in the screenshots changed size or was disconnected. Take a new screenshot."
)
CURSOR_ON_OTHER_DISPLAY = (
    "The pointer is on display {index}, not on the display in the screenshots."
)
CURSOR_OFF_DISPLAYS = "The pointer is not on any display."
UNKNOWN_DISPLAY = "There is no display with that index. The displays are listed in the context."
UNAVAILABLE = (
    "The screen cannot be used on this computer right now (a permission or the display is "
    "missing). Do not try the screen again in this chat: retrying cannot work until the person "
    "fixes it. Tell them; Settings → Screen shows why and what to do."
)
UNEXPECTED = "The screen action failed unexpectedly."


def refusal(phrase: str) -> ToolError:
    """The `ToolError` the model reads for `phrase`."""
    return ToolError(phrase)

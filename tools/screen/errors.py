"""Every sentence the screen driver says to the model when it refuses or fails, and its own errors.

The model never reads exception text, window titles or paths from an error: only these fixed
phrases (a display index is the one value some of them carry). `refusal(phrase)` builds the SDK's
`ToolError`, which the model reads as an `is_error` result.
"""

from __future__ import annotations

from tools.toolset_driver import refusal

__all__ = ["AccessibilityDenied", "BackendError", "NoKeycode", "ScreenError", "refusal"]


class ScreenError(Exception):
    """Base of the driver's own errors that reach the app (not the model)."""


class BackendError(ScreenError):
    """A backend could not do what was asked (a lost display connection, a failed capture)."""


class NoKeycode(BackendError):
    """The layout has no key for a character and no key code is free to map it to."""


class AccessibilityDenied(ScreenError):
    """The system refuses to let Deskhand read other apps' elements (macOS: the Accessibility
    permission is off)."""


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


# --- the element tool (`screen`: see, wait, click by id) ---------------------------------------

NO_ACCESSIBILITY = (
    "Other apps' elements cannot be read on this computer now (the accessibility service does "
    "not answer). Use the computer tool's screenshots instead; the person can see why in "
    "Settings."
)
ACCESSIBILITY_DENIED = (
    "macOS does not let Deskhand read other apps' elements now (its Accessibility permission "
    "is off). Use the computer tool's screenshots instead, and tell the person: they can turn "
    "Deskhand on in System Settings → Privacy & Security → Accessibility, then restart it."
)
NO_WINDOW_LIST = "The windows cannot be listed on this computer."
NO_SNAPSHOT = (
    "There is no recent snapshot with that id (snapshots expire after 10 minutes). Use the "
    "see action again, then act on an id it lists."
)
NO_SUCH_ID = "That snapshot has no element with that id. Use an id it lists, or see again."
STALE = (
    "The window changed since that snapshot (it moved, closed, or the element is gone). "
    "Use the see action again, then act on an id it lists."
)
OWN_ELEMENT = (
    "Refused: that element is in Deskhand's own window, and Deskhand never controls itself."
)
SECURE_VALUE = (
    "Refused: that is a password field. Deskhand never types or fills in passwords; ask the "
    "person to enter it themselves."
)
NEEDS_ID = "This action needs the id of an element from a snapshot (for example B1 or T2)."
NEEDS_VALUE = "set_value needs the value to put in the field."
NEEDS_WHAT = "wait needs a role or a label (or both) to wait for."
NOT_EDITABLE = "That element does not take text. Use set_value on a text field."
NOT_PRESSED = (
    "That element has no action of its own and is not on screen to be clicked. "
    "Use scroll_to first, or see again."
)
NOT_REACHABLE = (
    "That field cannot be set directly and its centre is covered or off screen, so nothing was "
    "typed. Use scroll_to first, or see again."
)
NOT_TYPEABLE = (
    "That field can only be typed into, and the text holds line breaks, tabs or other control "
    "characters, which would be key presses. Set it without them, or use the computer tool."
)
NOT_FOCUSED = (
    "Clicking the field did not give it the keyboard focus, so nothing was typed. See again, "
    "or click it and type with the computer tool."
)
FOCUS_LEFT = (
    "The field lost the keyboard focus while it was being typed into, so typing stopped; part "
    "of the text may be in it. See again before trying again."
)
TYPING_STOPPED = "Stopped while typing: part of the text may be in the field."
NOT_SCROLLED = "That element could not be scrolled into view."
NO_APP_ELEMENTS = "This window's app shares no accessibility information; use a screenshot."

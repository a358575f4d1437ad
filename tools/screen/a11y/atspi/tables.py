"""AT-SPI's numbers in words: roles, states, and the kind letter each role gets in a snapshot.

Roles are read as numbers (`GetRole`), not as the names a toolkit reports (`GetRoleName`): Qt
names a password field "text" but numbers it `ATSPI_ROLE_PASSWORD_TEXT`. The names below are
AT-SPI's own (`atspi_role_get_name`), in the order of the `AtspiRole` enumeration.
"""

from __future__ import annotations

__all__ = [
    "KIND_NAMES",
    "ROLE_NAMES",
    "State",
    "has_state",
    "kind_of",
    "role_name",
]

ROLE_NAMES: tuple[str, ...] = (
    "invalid", "accelerator label", "alert", "animation", "arrow", "calendar", "canvas",
    "check box", "check menu item", "color chooser", "column header", "combo box", "date editor",
    "desktop icon", "desktop frame", "dial", "dialog", "directory pane", "drawing area",
    "file chooser", "filler", "focus traversable", "font chooser", "frame", "glass pane",
    "html container", "icon", "image", "internal frame", "label", "layered pane", "list",
    "list item", "menu", "menu bar", "menu item", "option pane", "page tab", "page tab list",
    "panel", "password text", "popup menu", "progress bar", "push button", "radio button",
    "radio menu item", "root pane", "row header", "scroll bar", "scroll pane", "separator",
    "slider", "spin button", "split pane", "status bar", "table", "table cell",
    "table column header", "table row header", "tearoff menu item", "terminal", "text",
    "toggle button", "tool bar", "tool tip", "tree", "tree table", "unknown", "viewport",
    "window", "extended", "header", "footer", "paragraph", "ruler", "application",
    "autocomplete", "editbar", "embedded", "entry", "chart", "caption", "document frame",
    "heading", "page", "section", "redundant object", "form", "link", "input method window",
    "table row", "tree item", "document spreadsheet", "document presentation", "document text",
    "document web", "document email", "comment", "list box", "grouping", "image map",
    "notification", "info bar", "level bar", "title bar", "block quote", "audio", "video",
    "definition", "article", "landmark", "log", "marquee", "math", "rating", "timer", "static",
    "math fraction", "math root", "subscript", "superscript", "description list",
    "description term", "description value", "footnote", "content deletion",
    "content insertion", "mark", "suggestion", "push button menu", "switch",
)  # fmt: skip


def role_name(number: int) -> str:
    return ROLE_NAMES[number] if 0 <= number < len(ROLE_NAMES) else "unknown"


class State:
    """Bit numbers of `AtspiStateType` used here (a state set is two 32-bit words)."""

    ACTIVE = 1
    CHECKED = 4
    EDITABLE = 7
    ENABLED = 8
    EXPANDED = 10
    FOCUSABLE = 11
    FOCUSED = 12
    SELECTED = 23
    SENSITIVE = 24
    SHOWING = 25
    VISIBLE = 30


def has_state(words: tuple[int, ...] | list[int], bit: int) -> bool:
    word = bit // 32
    return word < len(words) and bool((words[word] >> (bit % 32)) & 1)


# The letter of each kind, and the words a `wait` may use for it.
KIND_NAMES: dict[str, str] = {
    "B": "button",
    "T": "text field",
    "L": "link",
    "C": "checkbox",
    "R": "radio",
    "S": "slider",
    "M": "menu item",
    "I": "image",
    "G": "group",
    "X": "other",
}

_KINDS: dict[str, str] = {
    **dict.fromkeys(
        ("push button", "toggle button", "push button menu", "button", "combo box"), "B"
    ),
    **dict.fromkeys(
        (
            "text",
            "entry",
            "password text",
            "spin button",
            "editbar",
            "terminal",
            "date editor",
            "autocomplete",
        ),
        "T",
    ),
    "link": "L",
    **dict.fromkeys(("check box", "switch"), "C"),
    "radio button": "R",
    **dict.fromkeys(("slider", "scroll bar", "dial"), "S"),
    **dict.fromkeys(
        ("menu item", "menu", "check menu item", "radio menu item", "tearoff menu item"), "M"
    ),
    **dict.fromkeys(("image", "icon"), "I"),
    **dict.fromkeys(
        (
            "panel",
            "filler",
            "grouping",
            "section",
            "form",
            "tool bar",
            "menu bar",
            "page tab list",
            "list",
            "list box",
            "table",
            "tree",
            "tree table",
            "scroll pane",
            "viewport",
            "split pane",
            "layered pane",
            "root pane",
            "option pane",
            "frame",
            "dialog",
            "window",
            "document frame",
            "document web",
            "landmark",
            "article",
        ),
        "G",
    ),
}


def kind_of(role: str) -> str:
    """The snapshot letter of a role: B button, T text field, ... X other."""
    return _KINDS.get(role, "X")

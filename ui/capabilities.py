"""What Deskhand does today, a line each: the first-run welcome and Help → About Deskhand name
the same things, so neither falls behind the other."""

from __future__ import annotations

import sys
from html import escape

QUICK_KEYS = "⌃⌥Space" if sys.platform == "darwin" else "Ctrl+Alt+Space"

# (what, how it reads): plain words, shown as a list.
CAPABILITIES = [
    (
        "The browser",
        "opens, reads and fills in web pages in a browser you can watch and take over.",
    ),
    ("Mac apps", "Calendar, Reminders, Notes, Mail, Finder and other apps that take scripts."),
    ("The screen", "sees the screen and uses other apps' windows, once you turn it on."),
    ("Connectors", "tools from MCP servers you add in Settings → Connectors."),
    ("Plans", "you approve a task's sites and apps once; inside them, steps run without asking."),
    ("Quick entry", f"{QUICK_KEYS} asks Claude from anywhere, without opening the window."),
    (
        "Routines",
        "save a finished task and do it again without Claude, through the same approvals.",
    ),
]


def capability_list() -> str:
    """The capabilities as a compact rich-text list (the words are Deskhand's own)."""
    rows = "".join(f"<li><b>{what}</b>: {escape(how)}</li>" for what, how in CAPABILITIES)
    return f"<ul style='margin: 0; -qt-list-indent: 1;'>{rows}</ul>"

"""How risky a browser call is, and the one line a person reads about it. Pure functions.

The app's permission gate maps the plain strings to its own `Risk` enum:

- "read": looks without changing anything (screenshot, read_page, find, get_page_text,
  list_tabs, scroll, hover, wait, new_tab, switch_tab, read_console, read_network).
- "change": acts on the page (clicks, typing, keys, form_input, drags) or moves it
  (navigate incl. back/forward/reload: a GET can still trigger things; close_tab: it can
  lose unsaved input).
- "consequential": javascript_exec and file_upload always; a click, Enter or form_input
  whose target is named like a purchase, a message sent, or a deletion.

`ref_label(ref)` (optional) names the element a ref points to, from the driver's last
read of the page; it lets the summary say "Click 'Sign in'" instead of "Click ref_4".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import PurePath
from typing import Any
from urllib.parse import urlsplit

__all__ = ["browser_action", "browser_risk", "browser_summary"]

RefLabel = Callable[[str], str | None]

READ_MEMBERS = frozenset(
    {
        "screenshot",
        "zoom",
        "read_page",
        "find",
        "get_page_text",
        "list_tabs",
        "new_tab",
        "switch_tab",
        "scroll",
        "scroll_to",
        "hover",
        "mouse_move",
        "wait",
        "read_console",
        "read_network",
    }
)
CHANGE_MEMBERS = frozenset(
    {
        "navigate",
        "close_tab",
        "left_click",
        "right_click",
        "middle_click",
        "double_click",
        "triple_click",
        "left_click_drag",
        "left_mouse_down",
        "left_mouse_up",
        "type",
        "key",
        "hold_key",
        "form_input",
    }
)
CONSEQUENTIAL_MEMBERS = frozenset({"javascript_exec", "file_upload"})
CLICKS = frozenset({"left_click", "double_click", "triple_click", "middle_click", "right_click"})

# Words on a button that usually mean money, a message, or something hard to undo.
_WEIGHTY = re.compile(
    r"\b(buy|purchase|pay|checkout|check out|order|place order|subscribe|donate|transfer|send|"
    r"submit|post|publish|delete|remove|destroy|erase|cancel (my )?(account|subscription)|"
    r"unsubscribe|confirm|accept|agree|book|reserve)\b",
    re.IGNORECASE,
)

READ_REASON = "Only looks at the browser"
REASONS = {
    "navigate": "Opens a page; loading it can trigger actions on that site",
    "close_tab": "Closes a tab; unsaved input in it is lost",
    "type": "Types into the page",
    "key": "Presses keys in the page",
    "hold_key": "Holds a key down in the page",
    "form_input": "Changes a form field",
    "left_click_drag": "Drags on the page",
    "left_mouse_down": "Presses the mouse button on the page",
    "left_mouse_up": "Releases the mouse button on the page",
    "javascript_exec": "Runs JavaScript in the page, with its cookies and signed-in sessions",
    "file_upload": "Gives the page files from this computer",
}


def _target_ref(params: Mapping[str, Any]) -> str | None:
    target = params.get("target")
    if isinstance(target, Mapping) and target.get("type") == "ref":
        ref = target.get("ref")
        return ref if isinstance(ref, str) else None
    return None


def _label(params: Mapping[str, Any], ref_label: RefLabel | None) -> str | None:
    ref = _target_ref(params)
    if ref is None or ref_label is None:
        return None
    return ref_label(ref)


def browser_risk(
    member: str, input: Mapping[str, Any], *, ref_label: RefLabel | None = None
) -> tuple[str, str]:
    """("read" | "change" | "consequential", reason) for one browser member call."""
    if member in CONSEQUENTIAL_MEMBERS:
        return "consequential", REASONS[member]
    if member in READ_MEMBERS:
        return "read", READ_REASON
    if member not in CHANGE_MEMBERS:
        return "consequential", "Unknown browser action"
    label = _label(input, ref_label)
    if member in CLICKS or member == "form_input":
        if label and _WEIGHTY.search(label):
            return "consequential", f"Acts on '{_quote(label)}', which may buy, send or delete"
        return "change", REASONS.get(member, "Clicks on the page")
    if member == "key" and re.search(r"(^|[\s+])(return|enter)$", str(input.get("text", "")), re.I):
        return "change", "Presses Enter, which may submit a form"
    return "change", REASONS.get(member, "Acts on the page")


def _quote(text: str, limit: int = 60) -> str:
    """`text` for a one-line summary: invisible characters escaped, cut to `limit`."""
    escaped = json.dumps(text, ensure_ascii=False)[1:-1]
    escaped = re.sub(
        r"[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]", lambda m: f"\\u{ord(m[0]):04x}", escaped
    )
    return escaped if len(escaped) <= limit else escaped[: limit - 1] + "…"


def _where(params: Mapping[str, Any], label: str | None) -> str:
    if label:
        return f"'{_quote(label)}'"
    target = params.get("target")
    if isinstance(target, Mapping):
        if target.get("type") == "coordinate":
            return f"at ({target.get('x')}, {target.get('y')})"
        if target.get("type") == "ref":
            return f"element {_quote(str(target.get('ref')))}"
    return "the page"


def browser_action(
    member: str, input: Mapping[str, Any], *, ref_label: RefLabel | None = None
) -> str:
    """What the call does, lower-case, without the site: "click 'Sign in'", "open example.com"."""
    label = _label(input, ref_label)
    where = _where(input, label)
    text = str(input.get("text", ""))
    match member:
        case "navigate":
            url = str(input.get("url", ""))
            word = url.strip().lower()
            if word in ("back", "forward", "reload"):
                return {"back": "go back", "forward": "go forward", "reload": "reload the page"}[
                    word
                ]
            return f"open {_quote(url, 80)}"
        case "left_click":
            return f"click {where}"
        case "right_click":
            return f"right-click {where}"
        case "middle_click":
            return f"middle-click {where}"
        case "double_click":
            return f"double-click {where}"
        case "triple_click":
            return f"triple-click {where}"
        case "hover":
            return f"hover over {where}"
        case "mouse_move":
            return f"move the mouse {where}"
        case "left_mouse_down":
            return f"press the mouse button {where}"
        case "left_mouse_up":
            return f"release the mouse button {where}"
        case "left_click_drag":
            start = input.get("from") or {}
            return f"drag from ({start.get('x')}, {start.get('y')}) to {where.removeprefix('at ')}"
        case "scroll":
            return f"scroll {input.get('scroll_direction', 'down')}"
        case "scroll_to":
            return f"scroll to {where}"
        case "type":
            return f"type '{_quote(text)}'"
        case "key":
            return f"press {_quote(text, 40)}"
        case "hold_key":
            return f"hold {_quote(text, 40)} for {input.get('duration')} s"
        case "form_input":
            value = input.get("value")
            if isinstance(value, bool):
                return f"{'check' if value else 'uncheck'} {where}"
            return f"set {where} to '{_quote(str(value))}'"
        case "screenshot":
            return "take a screenshot"
        case "zoom":
            return "zoom into part of the page"
        case "read_page":
            return "read the page"
        case "find":
            return f"find '{_quote(str(input.get('query', '')))}'"
        case "get_page_text":
            return "read the page text"
        case "wait":
            return f"wait {input.get('duration')} s"
        case "new_tab":
            return "open a new tab"
        case "list_tabs":
            return "list the tabs"
        case "switch_tab":
            return f"switch to tab {_quote(str(input.get('tab_id', '')))}"
        case "close_tab":
            return f"close tab {_quote(str(input.get('tab_id', '')))}"
        case "read_console":
            return "read the console messages"
        case "read_network":
            return "read the network requests"
        case "javascript_exec":
            return "run JavaScript"
        case "file_upload":
            paths = input.get("paths") or []
            names = ", ".join(_quote(PurePath(str(p)).name, 40) for p in paths[:3]) or "files"
            more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
            return f"upload {names}{more} to {where}"
    return _quote(member)


def _site(url: str | None) -> str | None:
    if not url:
        return None
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host or None


def browser_summary(
    member: str,
    input: Mapping[str, Any],
    url: str | None = None,
    *,
    ref_label: RefLabel | None = None,
) -> str:
    """One line for the approval sheet: "Click 'Sign in' on example.com"."""
    action = browser_action(member, input, ref_label=ref_label)
    line = action[:1].upper() + action[1:]
    site = _site(url)
    if site and member not in ("navigate", "new_tab", "list_tabs", "switch_tab", "wait"):
        line += f" on {site}"
    return line

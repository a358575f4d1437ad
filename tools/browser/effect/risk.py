"""How risky a browser call is, and the one line a person reads about it. Pure functions.

On the one scale (`tools.risk.Risk`):

- READ: looks without changing anything (screenshot, read_page, find, get_page_text,
  list_tabs, scroll, hover, wait, new_tab, switch_tab, read_console, read_network).
- CHANGE: acts on the page (clicks, typing, keys, form_input, drags) or moves it
  (navigate incl. back/forward/reload: a GET can still trigger things; close_tab: it can
  lose unsaved input).
- CONSEQUENTIAL: javascript_exec and file_upload always; an action whose effect (see
  `model.Effect`: the element it will really act on, however it is addressed) buys, pays,
  sends, deletes, transfers, subscribes or confirms, by the control's words in several
  languages (`weighty`) or the form it submits; and any action whose effect cannot be
  established.

Two entry points: `judge_effects` for the gate (the effects resolved on the live page, right
before the decision), and `browser_risk` / `browser_summary` for the tool card before a call
runs, from the element names of the model's last read (`ref_label(ref)`), without the page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tools.risk import Risk
from tools.toolset_driver import BUTTON_MEMBERS, CLICK_MEMBERS, KEYBOARD_MEMBERS, LOOK_MEMBERS
from tools.weighty import VERBS, weighty

if TYPE_CHECKING:  # judging needs only its fields; the module that finds it needs Playwright
    from tools.browser.effect.model import Effect

__all__ = [
    "UNKNOWN_REASON",
    "browser_action",
    "browser_risk",
    "browser_summary",
    "effect_action",
    "effect_summary",
    "judge",
    "judge_effects",
]

RefLabel = Callable[[str], str | None]

UNKNOWN_REASON = "Can't tell what this will affect"

READ_MEMBERS = LOOK_MEMBERS | {
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
    "read_console",
    "read_network",
}
CHANGE_MEMBERS = (
    frozenset({"navigate", "close_tab", "form_input"})
    | CLICK_MEMBERS
    | BUTTON_MEMBERS
    | KEYBOARD_MEMBERS
)
CONSEQUENTIAL_MEMBERS = frozenset({"javascript_exec", "file_upload"})
# Members whose risk comes from the element they act on.
EFFECT_MEMBERS = CLICK_MEMBERS | BUTTON_MEMBERS | KEYBOARD_MEMBERS | {"form_input"}
# Controls whose words matter when form_input sets them: toggling "Subscribe" subscribes.
_TOGGLES = frozenset({"checkbox", "radio", "switch", "combobox", "listbox", "option"})
SHORT_TEXT = 80  # a plain element with more text than this is content, not a control

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


def _weighty_effect(effect: Effect) -> str | None:
    # A plain element (a div with a click handler) counts by its words only while they are
    # short enough to be a control's, not a paragraph that happens to mention paying.
    if not effect.interactive and len(effect.name) + len(effect.words) > SHORT_TEXT * 2:
        return None
    kind = weighty(effect.name, effect.words)
    if kind is None and effect.submits and effect.form_method == "post" and effect.form_action:
        # A post to ".../checkout/place-order" is an order, whatever the button says.
        path = urlsplit(effect.form_action).path
        kind = weighty(" ".join(part for part in re.split(r"[/_\-.]+", path) if part))
    return kind


def judge(effect: Effect | None) -> tuple[Risk, str]:
    """(risk, reason) of acting on one element, as `effect` describes it."""
    if effect is None:
        return Risk.CONSEQUENTIAL, UNKNOWN_REASON
    where = describe_target(effect)
    if effect.password and effect.action != "activate":
        return Risk.CHANGE, f"Would type into {where}; Deskhand refuses that"
    if effect.action == "type":
        return Risk.CHANGE, f"Types into {where}"
    if effect.action == "fill" and effect.role not in _TOGGLES:
        return Risk.CHANGE, f"Changes {where}"
    kind = _weighty_effect(effect)
    if kind is not None:
        return Risk.CONSEQUENTIAL, f"Acts on {where}, which may {VERBS[kind]}"
    if effect.submits:
        how = "sends" if effect.form_method == "post" else "submits"
        return Risk.CHANGE, f"Acts on {where}, which {how} a form to the site"
    if effect.action == "fill":
        return Risk.CHANGE, f"Changes {where}"
    return Risk.CHANGE, f"Acts on {where}"


def _fixed_risk(member: str) -> tuple[Risk, str] | None:
    """(risk, reason) of a member whose risk does not depend on what it acts on; None for a
    change member, which may weigh more by its target."""
    if member in CONSEQUENTIAL_MEMBERS:
        return Risk.CONSEQUENTIAL, REASONS[member]
    if member in READ_MEMBERS:
        return Risk.READ, READ_REASON
    if member not in CHANGE_MEMBERS:
        return Risk.CONSEQUENTIAL, "Unknown browser action"
    return None


def judge_effects(member: str, effects: Sequence[Effect | None]) -> tuple[Risk, str]:
    """(risk, reason) of a call from the effects it was resolved to: the riskiest one counts."""
    fixed = _fixed_risk(member)
    if fixed is not None:
        return fixed
    if member not in EFFECT_MEMBERS or not effects:
        return Risk.CHANGE, REASONS.get(member, "Acts on the page")
    risk, reason = Risk.READ, READ_REASON
    for effect in effects:
        level, why = judge(effect)
        if level.above(risk):
            risk, reason = level, why
    return risk, reason


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
) -> tuple[Risk, str]:
    """(risk, reason) for the card, before the page is consulted.

    Only the names of the model's last read are known here; the gate's decision comes from
    `judge_effects` on the live page."""
    fixed = _fixed_risk(member)
    if fixed is not None:
        return fixed
    label = _label(input, ref_label)
    if member in CLICK_MEMBERS or member == "form_input":
        kind = weighty(label) if label else None
        if kind is not None:
            return Risk.CONSEQUENTIAL, f"Acts on '{_quote(label or '')}', which may {VERBS[kind]}"
        return Risk.CHANGE, REASONS.get(member, "Clicks on the page")
    if member == "key" and re.search(r"(^|[\s+])(return|enter)$", str(input.get("text", "")), re.I):
        return Risk.CHANGE, "Presses Enter, which may submit a form"
    return Risk.CHANGE, REASONS.get(member, "Acts on the page")


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


def describe_target(effect: Effect) -> str:
    """The element as the sheet names it: "'Buy now' (button)"."""
    if effect.tag in ("body", "html") and not effect.name:
        return "the page"
    kind = effect.role if effect.role and effect.role != "generic" else effect.tag
    if effect.password and effect.tag == "input":
        kind = "password field"
    if not effect.name:
        return f"a {_quote(kind, 30)}"
    return f"'{_quote(effect.name)}' ({_quote(kind, 30)})"


def _activated(effects: Mapping[int, Effect | None]) -> Effect | None:
    """The riskiest element a key sequence activates (the first of equals), if any."""
    found: Effect | None = None
    for effect in effects.values():
        if effect is None or effect.action != "activate":
            continue
        if found is None or judge(effect)[0].above(judge(found)[0]):
            found = effect
    return found


def effect_action(
    member: str,
    input: Mapping[str, Any],
    effects: Mapping[int, Effect | None],
    *,
    ref_label: RefLabel | None = None,
) -> str:
    """Like `browser_action`, naming the elements the call was resolved to act on."""
    first = effects.get(0)
    if member not in EFFECT_MEMBERS:
        return browser_action(member, input, ref_label=ref_label)
    text = str(input.get("text", ""))
    if member in ("key", "hold_key") or member == "type":
        if member == "type":
            into = f" into {describe_target(first)}" if first is not None else ""
            line = f"type '{_quote(text)}'{into}"
        else:
            line = browser_action(member, input, ref_label=ref_label)
        activated = _activated(effects if member != "type" else {1: effects.get(1)})
        if activated is not None:
            line += f", which activates {describe_target(activated)}"
        return line
    if member == "left_click_drag":
        start, end = effects.get(0), effects.get(1)
        if start is not None and end is not None:
            return f"drag from {describe_target(start)} to {describe_target(end)}"
        return browser_action(member, input, ref_label=ref_label)
    if first is None:
        return browser_action(member, input, ref_label=ref_label)
    where = describe_target(first)
    verbs = {
        "left_click": "click",
        "right_click": "right-click",
        "middle_click": "middle-click",
        "double_click": "double-click",
        "triple_click": "triple-click",
        "left_mouse_down": "press the mouse button on",
        "left_mouse_up": "release the mouse button on",
    }
    if member in verbs:
        return f"{verbs[member]} {where}"
    value = input.get("value")
    if isinstance(value, bool):
        return f"{'check' if value else 'uncheck'} {where}"
    return f"set {where} to '{_quote(str(value))}'"


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
    """One line for the card: "Click 'Sign in' on example.com"."""
    return _sentence(member, browser_action(member, input, ref_label=ref_label), url)


def effect_summary(
    member: str,
    input: Mapping[str, Any],
    url: str | None,
    effects: Mapping[int, Effect | None],
    *,
    ref_label: RefLabel | None = None,
) -> str:
    """One line for the approval sheet, naming what will be affected:
    "Click 'Buy now' (button) on shop.example"."""
    action = effect_action(member, input, effects, ref_label=ref_label)
    return _sentence(member, action, url)


def _sentence(member: str, action: str, url: str | None) -> str:
    line = action[:1].upper() + action[1:]
    site = _site(url)
    if site and member not in ("navigate", "new_tab", "list_tabs", "switch_tab", "wait"):
        line += f" on {site}"
    return line

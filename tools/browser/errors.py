"""Every sentence the browser driver says to the model when something goes wrong.

The model never reads exception text, URLs or paths from an error: only these fixed
phrases. `refusal(phrase)` builds the SDK's `ToolError` (the model reads it as an
`is_error` result); `from_playwright(exc)` turns a Playwright failure into the phrase
that fits it, reading nothing but the network error code Chromium put in the message.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

# The phrases are read by what only needs the words (the cards' plain-language table) before
# the SDK and Playwright have loaded: they load with the first error built here.
if TYPE_CHECKING:
    from anthropic.tools import ToolError

from tools.toolset_driver import refusal

log = logging.getLogger(__name__)


class BrowserError(Exception):
    """Base of the driver's own errors that reach the app (not the model): launching, setup."""


class BrowserNotFound(BrowserError):
    """No Chromium-family browser could be found; `hint` is the exact command that fixes it."""

    def __init__(self, hint: str) -> None:
        super().__init__(f"No browser found. Install one with: {hint}")
        self.hint = hint


STALE_REF = (
    "That element reference is stale or unknown (the page changed or it came from another tab). "
    "Call read_page or find again and use a fresh reference."
)
AMBIGUOUS_REF = "That element reference matches more than one element. Call read_page again."
PASSWORD_FIELD = (
    "Refused: that is a password field. Deskhand never types or fills passwords; "
    "ask the person to enter it themselves."
)
# A browser action the turn skipped because one before it failed.
NOT_EXECUTED = "Not executed: an earlier action in this turn failed."
PAGE_CHANGED = "The page changed after the approval; nothing was done. Look at the page again."
PAGE_CHANGED_MIDWAY = (
    "The page changed while the action ran, so it stopped partway (the earlier keys or text "
    "went in). Look at the page again."
)


class PageChanged(Exception):
    """What an approval covered (the page, the element) changed before the call acted on it.

    Nothing was done unless `partly_done` (earlier steps of the call already acted). The model
    reads `PAGE_CHANGED` (or `PAGE_CHANGED_MIDWAY`); a call that did nothing says so in its
    run's result (`ToolsetRun.changed`), so an app that can ask again does so instead."""

    def __init__(self, *, partly_done: bool = False) -> None:
        super().__init__("changed since described")
        self.partly_done = partly_done


FOCUS_UNKNOWN = (
    "Could not tell which element has the keyboard focus, so nothing was typed. "
    "Click the field first, then try again."
)
TARGET_UNKNOWN = (
    "Could not tell which element is at that point, so nothing was done. "
    "Take a screenshot and try again."
)
NOT_A_FORM_FIELD = "That element is not a form field that form_input can set."
USE_FILE_UPLOAD = "That is a file input: use file_upload for it."
NOT_A_FILE_INPUT = "That element is not a file input."
BAD_OPTION = "None of that select's options matches the value. Read the page to see the options."
BAD_CHECK_VALUE = "A checkbox or radio button takes true or false."
NOT_CLICKABLE = (
    "The element could not be acted on (it may be hidden, disabled or covered). "
    "Take a screenshot or read the page again."
)
# An element that failed one of the checks before acting (see `page.actionable`), by check;
# {cover} is what would get the {noun} ("click", "pointer", "action") instead.
DETACHED = (
    "Not done: the element is detached (the page removed or replaced it). "
    "Call read_page or find again and use a fresh reference."
)
NOT_ACTIONABLE: dict[str, str] = {
    "detached": DETACHED,
    "hidden": (
        "Not done: the element is hidden (not visible on the page), so nothing was done. "
        "Take a screenshot or read the page again."
    ),
    "disabled": (
        "Refused: the element is not enabled (it is disabled), so nothing was done. "
        "Look at the page for what it is waiting for."
    ),
    "readonly": "Refused: the field is not editable (it is read-only), so nothing was typed.",
    "moving": (
        "Not done: the element was still moving (animating) when the time ran out. "
        "Take a screenshot and try again."
    ),
    "covered": (
        "Refused: the element is covered by {cover}, which would receive the {noun} instead; "
        "nothing was done. Deal with that first, or take a screenshot."
    ),
    "ok": (
        "Not done: the element did not become ready to act on in time. "
        "Take a screenshot or read the page again."
    ),
}
NAVIGATED_MEANWHILE = (
    "The page navigated while this ran, so it was not finished. Look at the page again."
)
TIMEOUT = "The page did not respond in time."
TAB_CLOSED = "The tab was closed while the action ran."
NO_TAB = "No tab is open. Use navigate or new_tab first."
NO_HISTORY_BACK = "There is no earlier page in this tab's history."
NO_HISTORY_FORWARD = "There is no later page in this tab's history."
DOWNLOAD_INSTEAD = (
    "The address started a download instead of opening a page; see the browser state."
)
NAV_REFUSED = "The browser refused that address: it is not allowed by the URL policy."
UNKNOWN_KEY = (
    "That key name is not known. Use names like Enter, Tab, Escape, Backspace, ArrowDown, "
    "PageDown, F5, or chords like ctrl+a."
)
DURATION_TOO_LONG = "The duration must be between 0 and 30 seconds."
BAD_REGION = (
    "The zoom region must be [x0, y0, x1, y1] inside the viewport, with x0 < x1 and y0 < y1."
)
OUTSIDE_VIEWPORT = "That point is outside the viewport. Take a screenshot to see the page."
SCRIPT_TIMEOUT = "The script did not finish within 30 seconds."
SCRIPT_THREW = "The script threw an exception"  # followed by the JS error's name, if it has one
DOCUMENTS_UNSUPPORTED = "Uploading staged documents is not supported here; use a file path."
LAUNCH_FAILED = "The browser could not be started. Check Settings → Browser."
UNEXPECTED = "The browser action failed unexpectedly."

# Chromium's network error codes, and what the model reads for each. Anything else is GENERIC_NET.
NET_PHRASES: dict[str, str] = {
    "ERR_NAME_NOT_RESOLVED": "The site's address could not be found (DNS lookup failed).",
    "ERR_NAME_RESOLUTION_FAILED": "The site's address could not be found (DNS lookup failed).",
    "ERR_CONNECTION_REFUSED": "The site refused the connection.",
    "ERR_CONNECTION_RESET": "The connection to the site was reset.",
    "ERR_CONNECTION_CLOSED": "The site closed the connection.",
    "ERR_CONNECTION_TIMED_OUT": "The connection to the site timed out.",
    "ERR_TIMED_OUT": "The connection to the site timed out.",
    "ERR_INTERNET_DISCONNECTED": "The computer is not connected to the internet.",
    "ERR_ADDRESS_UNREACHABLE": "The site could not be reached.",
    "ERR_NETWORK_ACCESS_DENIED": "The network refused access to the site.",
    "ERR_CERT_AUTHORITY_INVALID": "The site's security certificate is not trusted.",
    "ERR_CERT_COMMON_NAME_INVALID": "The site's security certificate is for another site.",
    "ERR_CERT_DATE_INVALID": "The site's security certificate has expired or is not yet valid.",
    "ERR_SSL_PROTOCOL_ERROR": "A secure connection to the site could not be made.",
    "ERR_TOO_MANY_REDIRECTS": "The site redirected too many times.",
    "ERR_BLOCKED_BY_CLIENT": NAV_REFUSED,
    "ERR_BLOCKED_BY_RESPONSE": "The site does not allow itself to be shown here.",
    "ERR_ABORTED": "The navigation was interrupted (the page may have navigated elsewhere).",
    "ERR_EMPTY_RESPONSE": "The site sent an empty response.",
    "ERR_INVALID_URL": "That is not a valid web address.",
    "ERR_UNSAFE_PORT": "The browser does not open that port.",
    "ERR_TUNNEL_CONNECTION_FAILED": (
        "The site could not be reached: it did not answer, its name did not resolve, "
        "or its address is not allowed."
    ),
    "ERR_INVALID_HTTP_RESPONSE": "The site sent a response the browser could not read.",
}
GENERIC_NET = "The page could not be loaded."
_NET_CODE = re.compile(r"net::(ERR_[A-Z_]+)")


def not_actionable(check: str, *, noun: str = "click", cover: str = "") -> str:
    """The phrase for an element that failed `check` (a `page.actionable.Check`); `cover` names
    what would receive the `noun` ("click", "pointer", "action") instead: `dialog "Cookies"`."""
    template = NOT_ACTIONABLE.get(check, NOT_ACTIONABLE["ok"])
    return template.format(cover=cover or "another element", noun=noun)


def net_error_code(exc: BaseException) -> str | None:
    """The `ERR_...` code Chromium put in a navigation error, if any."""
    match = _NET_CODE.search(str(exc))
    return match.group(1) if match else None


def from_playwright(exc: BaseException, *, navigating: bool = False) -> ToolError:
    """The fixed phrase for a Playwright failure: never its text, which can hold URLs and page data."""
    from anthropic.tools import ToolError
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeoutError

    if isinstance(exc, ToolError):
        return exc
    if isinstance(exc, PlaywrightTimeoutError):
        return refusal("The page took too long to load." if navigating else TIMEOUT)
    if isinstance(exc, PlaywrightError):
        code = net_error_code(exc)
        if code is not None:
            return refusal(NET_PHRASES.get(code, GENERIC_NET))
        if "has been closed" in str(exc) or type(exc).__name__ == "TargetClosedError":
            return refusal(TAB_CLOSED)
        if navigating:
            return refusal(GENERIC_NET)
        if "Execution context was destroyed" in str(exc):
            return refusal(NAVIGATED_MEANWHILE)  # a read that met the page's own navigation
        log.info("Playwright error mapped to a generic phrase: %s", type(exc).__name__)
        return refusal(NOT_CLICKABLE)
    log.exception("Unexpected error in a browser member", exc_info=exc)
    return refusal(UNEXPECTED)

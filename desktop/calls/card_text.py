"""What a tool card says, in a person's words: where the call acted, and how it ended.

The model reads fixed phrases written for it ("The person denied this action. Do not try it
again…"); they stay as they are. The card says what happened to the person instead ("You
denied this"), with a way forward where there is one. The words come from the call's
outcome and, for errors, from the fixed phrase the model read: one table, here. Internal
ids the model works with ("element ref_3") never reach the card.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from desktop.calls.contract import STOPPED_TOOL
from desktop.calls.permissions import DENIED_BY_PERSON, DENIED_BY_RULE, NO_APPROVER
from tools.base import BAD_INPUT, NOT_AN_OBJECT, TOOL_FAILED, UNKNOWN_TOOL
from tools.browser import errors
from tools.browser.network.url_policy import PHRASES, Refusal

State = Literal["done", "failed", "denied", "blocked", "stopped", "skipped"]


@dataclass(frozen=True)
class CardOutcome:
    """What a card shows about the end of a call."""

    state: State  # how it is drawn: done, failed, denied, blocked, stopped, skipped
    status: str  # a few words on the card's line: "Done", "You denied this"
    detail: str = ""  # a sentence for the expanded card, with what the person can do
    show_result: bool = False  # whether the tool's own text is worth reading on the card


DONE = CardOutcome("done", "Done", show_result=True)
FAILED = CardOutcome("failed", "Failed", show_result=True)  # an error the phrase itself explains

_BROWSER_ALLOW = (
    "To let Claude open it, add the site under Settings → Browser → Always allowed sites."
)

_PAGE_CHANGED = CardOutcome(
    "failed", "Page changed", "The page changed before Claude could act; it will look again."
)
_UNUSABLE_INPUT = CardOutcome(
    "failed", "Failed", "Claude sent input this tool cannot use; it was told so."
)


def _blocked(what: str, detail: str) -> CardOutcome:
    """A refusal Deskhand's own rules made: "Blocked: <what>", and why or what to do."""
    return CardOutcome("blocked", f"Blocked: {what}", detail)


def _not_an_address(detail: str) -> CardOutcome:
    return CardOutcome("failed", "Not a web address", detail)


# Errors the model reads as fixed phrases, and what the person reads instead.
_PHRASES: dict[str, CardOutcome] = {
    PHRASES[Refusal.PRIVATE]: _blocked(
        "this address is on your computer",
        "It points to this computer or your private network. " + _BROWSER_ALLOW,
    ),
    PHRASES[Refusal.METADATA]: _blocked(
        "a cloud metadata address",
        "Deskhand never opens cloud metadata services: they can hold keys and passwords.",
    ),
    PHRASES[Refusal.BLOCKED]: _blocked(
        "you blocked this site", "It is on your blocked sites in Settings → Browser."
    ),
    PHRASES[Refusal.NOT_ALLOWED]: _blocked(
        "not one of your allowed sites",
        "Only the sites under Settings → Browser → Always allowed sites can be opened.",
    ),
    PHRASES[Refusal.CREDENTIALS]: _blocked(
        "a password in the address",
        "Addresses with a user name or password in them are never opened.",
    ),
    PHRASES[Refusal.CHARACTERS]: _not_an_address(
        "The address had spaces or hidden characters in it."
    ),
    PHRASES[Refusal.SCHEME]: _not_an_address("Only http and https addresses can be opened."),
    PHRASES[Refusal.MALFORMED]: _not_an_address("Claude was told, and may try a correct one."),
    errors.NAV_REFUSED: _blocked(
        "this address is not allowed", "Settings → Browser lists the sites you allow and block."
    ),
    errors.PASSWORD_FIELD: _blocked(
        "a password field",
        "Deskhand never types or fills passwords. Type it yourself in the browser window.",
    ),
    errors.STALE_REF: _PAGE_CHANGED,
    errors.DETACHED: _PAGE_CHANGED,  # what a stale ref said when its element had gone
    errors.AMBIGUOUS_REF: _PAGE_CHANGED,
    errors.NOT_EXECUTED: CardOutcome(
        "skipped", "Skipped", "Not run, because an earlier step in this reply failed."
    ),
    TOOL_FAILED: CardOutcome(
        "failed", "Failed", "The tool failed unexpectedly. Deskhand's log has the details."
    ),
    UNKNOWN_TOOL: CardOutcome(
        "failed", "No such tool", "Claude asked for a tool that is not available here."
    ),
    BAD_INPUT: _UNUSABLE_INPUT,
    NOT_AN_OBJECT: _UNUSABLE_INPUT,
    STOPPED_TOOL: CardOutcome("stopped", "Stopped", "You stopped the reply before this finished."),
}

_REASON = " Their reason: "
_REF = re.compile(r"\b(?:element )?ref_\w+")


def card_target(label: str, summary: str) -> str:
    """The short target on a card's line: the summary, less what the label already says and
    less the page's internal element ids ("Click element ref_3" reads "Click an element")."""
    text = " ".join(summary.split())
    if label and text.lower().startswith(label.lower()):
        text = text[len(label) :].lstrip(" :·-—")
    return _REF.sub("an element", text)


def card_outcome(outcome: str, result: str) -> CardOutcome:
    """What the card says for a call that ended with `outcome` after the model read `result`."""
    text = result.strip()
    if outcome == "ok":
        return DONE
    if outcome == "denied":
        if text == NO_APPROVER:
            return CardOutcome(
                "denied",
                "Not run: it needed your OK",
                "No one was there to approve it. Ask Claude again when you are here.",
            )
        reason = text.partition(_REASON)[2] if text.startswith(DENIED_BY_PERSON) else ""
        detail = "Claude was told not to try it again. Ask it if you change your mind."
        if reason:
            detail = f"Your reason: {reason}\n{detail}"
        return CardOutcome("denied", "You denied this", detail)
    if outcome == "blocked" or text == DENIED_BY_RULE:
        return CardOutcome(
            "blocked",
            "Blocked by your rule",
            "A “Never” rule in Settings → Permissions blocks this action. Change it there "
            "to let Claude do it.",
        )
    if outcome == "stopped":
        return _PHRASES[STOPPED_TOOL]
    known = _PHRASES.get(text)
    if known is not None:
        return known
    return FAILED

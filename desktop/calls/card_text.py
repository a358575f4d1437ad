"""What a tool card says, in a person's words: where the call acted, how it ended, and what it
really did.

The model reads fixed phrases written for it ("The person denied this action. Do not try it
again…"); they stay as they are. The card says what happened to the person instead ("You
denied this"), with a way forward where there is one. The words come from how the call ended
and, for errors, from the fixed phrase the model read: one table, here. What the call really
did (its `Outcome`, tools/outcome.py) is said from its `Effect:` lines: "Typed: the field
holds "AB"", "No change on the page", "Not confirmed". An MCP server's tool is the server's
word: "Done, reported by *server*". Internal ids the model works with ("element ref_3")
never reach the card.
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

# Re-exported: the window's cards take it, and ui never imports tools.
from tools.outcome import Outcome as Outcome

State = Literal[
    "done",
    "failed",
    "denied",
    "blocked",
    "stopped",
    "skipped",
    "no_effect",
    "differs",
    "unconfirmed",
]


@dataclass(frozen=True)
class CardWords:
    """What a card shows about the end of a call."""

    state: State  # how it is drawn: done, failed, denied, blocked, stopped, skipped, …
    status: str  # a few words on the card's line: "Done", "You denied this"
    detail: str = ""  # a sentence for the expanded card, with what the person can do
    show_result: bool = False  # whether the tool's own text is worth reading on the card


DONE = CardWords("done", "Done", show_result=True)
FAILED = CardWords("failed", "Failed", show_result=True)  # an error the phrase itself explains
MCP_SOURCE = "mcp"  # `CallSource.name` of every MCP server's tool
SERVERS_WORD = (
    "Deskhand cannot look at what an MCP server's tool did: this is the server's own word."
)
STATUS_LIMIT = 48  # characters of a change's words on the card's line

_BROWSER_ALLOW = (
    "To let Claude open it, add the site under Settings → Browser → Always allowed sites."
)

_PAGE_CHANGED = CardWords(
    "failed", "Page changed", "The page changed before Claude could act; it will look again."
)
_UNUSABLE_INPUT = CardWords(
    "failed", "Failed", "Claude sent input this tool cannot use; it was told so."
)


def _blocked(what: str, detail: str) -> CardWords:
    """A refusal Deskhand's own rules made: "Blocked: <what>", and why or what to do."""
    return CardWords("blocked", f"Blocked: {what}", detail)


def _not_an_address(detail: str) -> CardWords:
    return CardWords("failed", "Not a web address", detail)


# Errors the model reads as fixed phrases, and what the person reads instead.
_PHRASES: dict[str, CardWords] = {
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
    errors.NOT_EXECUTED: CardWords(
        "skipped", "Skipped", "Not run, because an earlier step in this reply failed."
    ),
    TOOL_FAILED: CardWords(
        "failed", "Failed", "The tool failed unexpectedly. Deskhand's log has the details."
    ),
    UNKNOWN_TOOL: CardWords(
        "failed", "No such tool", "Claude asked for a tool that is not available here."
    ),
    BAD_INPUT: _UNUSABLE_INPUT,
    NOT_AN_OBJECT: _UNUSABLE_INPUT,
    STOPPED_TOOL: CardWords("stopped", "Stopped", "You stopped the reply before this finished."),
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


def card_words(
    outcome: str,
    result: str,
    effect: Outcome | None = None,
    *,
    source: str = "",
    source_title: str = "",
) -> CardWords:
    """What the card says for a call that ended with `outcome` (`Ending`) after the model read
    `result`, having really done `effect`; `source` and `source_title` say where it came from
    (an MCP server's tool is that server's word)."""
    text = result.strip()
    if outcome == "ok" and source == MCP_SOURCE:
        return CardWords("unconfirmed", f"Done, reported by {source_title}", SERVERS_WORD, True)
    said = _effect_words(effect) if effect is not None and outcome in ("ok", "error") else None
    if outcome == "ok":
        return said or DONE
    if outcome == "denied":
        if text == NO_APPROVER:
            return CardWords(
                "denied",
                "Not run: it needed your OK",
                "No one was there to approve it. Ask Claude again when you are here.",
            )
        reason = text.partition(_REASON)[2] if text.startswith(DENIED_BY_PERSON) else ""
        detail = "Claude was told not to try it again. Ask it if you change your mind."
        if reason:
            detail = f"Your reason: {reason}\n{detail}"
        return CardWords("denied", "You denied this", detail)
    if outcome == "blocked" or text == DENIED_BY_RULE:
        return CardWords(
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
    return said or FAILED


# What an `Effect:` line says, in words: `+ alert "…"`, `- dialog "…"`, `~ checkbox "…": checked`,
# `~ textbox "Name": "" → "AB"`, `→ navigated to …`.
_VALUE = re.compile(r'^~ (?P<what>.+?): (?P<old>"(?:[^"\\]|\\.)*"|\(hidden\)) → (?P<new>.+)$')
_STATE = re.compile(r"^~ (?P<what>.+): (?P<state>[^\"→]+)$")
_FIELD_HOLDS = re.compile(r"^The field holds (?P<value>.+), not the text typed\.$")
_NOTHING = re.compile(r"^nothing (?P<where>.+) changed\.?$")
_TEXT_ROLES = ("textbox", "searchbox", "text field", "text", "entry", "combobox", "spin")


def change_words(line: str) -> str:
    """One `Effect:` line as a person reads it: "alert "Email is invalid" appeared"."""
    if line.startswith("+ "):
        return f"{line[2:]} appeared"
    if line.startswith("- "):
        return f"{line[2:]} went away"
    value = _VALUE.match(line)
    if value is not None:
        return f"{value['what']} now holds {value['new']}"
    state = _STATE.match(line)
    if state is not None:
        return f"{state['what']} is now {state['state'].strip()}"
    if line.startswith("→ navigated to "):
        return f"went to {line.removeprefix('→ navigated to ')}"
    return line.removeprefix("→ ").removeprefix("~ ")


def _first_words(line: str) -> str:
    """The first change on the card's line: a field's new value as "Typed: the field holds…"."""
    value = _VALUE.match(line)
    if value is not None and value["what"].lower().startswith(_TEXT_ROLES):
        return f"Typed: the field holds {value['new']}"
    return _capital(change_words(line))


def _capital(words: str) -> str:
    return words[:1].upper() + words[1:]


def _bounded(words: str) -> str:
    return words if len(words) <= STATUS_LIMIT else words[: STATUS_LIMIT - 1] + "…"


def _effect_words(effect: Outcome) -> CardWords | None:
    """The card's words for what the call really did; None where how it ended says it all.
    The tool's own text is left off where the words say what it did (it holds the same
    `Effect:` lines), and kept where they cannot (not confirmed: it is all there is)."""
    changes = "\n".join(_capital(change_words(line)) for line in effect.changes)
    detail = "\n".join(part for part in (changes, effect.note) if part)
    if effect.kind == "done":
        if not effect.changes:
            return CardWords("done", "Done", effect.note, True)
        status = _first_words(effect.changes[0])
        more = f" (+{len(effect.changes) - 1})" if len(effect.changes) > 1 else ""
        return CardWords("done", _bounded(status) + more, detail)
    if effect.kind == "no_effect":
        nothing = _NOTHING.match(effect.nothing.strip())
        status = f"No change {nothing['where']}" if nothing else "No change"
        return CardWords(
            "no_effect", status, effect.note or "It ran, and nothing Claude can read changed."
        )
    if effect.kind == "differs":
        holds = _FIELD_HOLDS.match(effect.note.strip())
        status = f"Typed: the field holds {holds['value']}" if holds else "Not as asked"
        return CardWords("differs", _bounded(status), detail)
    if effect.kind == "unconfirmed":
        why = effect.note.removeprefix("Not confirmed:").strip()
        return CardWords("unconfirmed", "Not confirmed", _capital(why), True)
    if effect.kind == "refused" and effect.note:
        return CardWords("failed", "Not done", detail)
    return None

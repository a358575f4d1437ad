"""How risky a command from a scripting dictionary is, judged from its name before it runs.

The command's name sets the level (get/list/count/exists read; make/set/move/duplicate/open/
save/select change; everything else, known or not, is consequential), and per-app overrides
cover known cases. The dictionary refines it elsewhere: setting a read-only property is
refused before anything runs.
"""

from __future__ import annotations

from tools.mac.sdef.model import term_key
from tools.risk import Risk

READ_COMMANDS = frozenset({"get", "list", "count", "exists"})
CHANGE_COMMANDS = frozenset({"make", "set", "move", "duplicate", "open", "save", "select"})
CONSEQUENTIAL_COMMANDS = frozenset(
    {"delete", "quit", "close", "send", "empty", "erase", "restart", "shutdown", "logout"}
)

# (app bundle id or name, command) -> level and why. Keys are `term_key`s.
OVERRIDES: dict[tuple[str, str], tuple[Risk, str]] = {
    ("comapplemail", "send"): (Risk.CONSEQUENTIAL, "Sends email from the person's account"),
    ("mail", "send"): (Risk.CONSEQUENTIAL, "Sends email from the person's account"),
    ("comapplefinder", "empty"): (Risk.CONSEQUENTIAL, "Empties the Trash for good"),
    ("finder", "empty"): (Risk.CONSEQUENTIAL, "Empties the Trash for good"),
    # Opening a file from Finder or Terminal can start a program or run a script.
    ("comapplefinder", "open"): (Risk.CONSEQUENTIAL, "Opening a file can run a program"),
    ("finder", "open"): (Risk.CONSEQUENTIAL, "Opening a file can run a program"),
    ("comappleterminal", "open"): (Risk.CONSEQUENTIAL, "Opening a file can run a program"),
    ("terminal", "open"): (Risk.CONSEQUENTIAL, "Opening a file can run a program"),
}


def command_risk(command: str, *, app: str, bundle_id: str | None = None) -> tuple[Risk, str]:
    """The level of running `command` in `app`, and the reason shown to the person."""
    key = term_key(command)
    for owner in (bundle_id, app):
        if owner and (term_key(owner), key) in OVERRIDES:
            return OVERRIDES[(term_key(owner), key)]
    if key in READ_COMMANDS:
        return Risk.READ, f"Reads from {app}"
    if key in CHANGE_COMMANDS:
        return Risk.CHANGE, f"Changes something in {app}"
    if key in CONSEQUENTIAL_COMMANDS:
        return Risk.CONSEQUENTIAL, f"May delete, send, close or quit something in {app}"
    return Risk.CONSEQUENTIAL, f"A command of {app} whose effects Deskhand does not know"

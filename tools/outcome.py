"""What an action really did: one vocabulary for every source, and the `Effect:` section.

An acting call's source looks again at what it acted on (the page's accessibility tree, the
window's, the Mac object read back by its id) and says what appeared, went or changed. The
tool's own word ("Clicked.") is never the outcome:

- `done`: the effect was seen;
- `no_effect`: the action ran and nothing readable changed;
- `differs`: something changed, but not what was asked (a field holds other text);
- `refused`: it was not done, and the reason is known (covered, disabled, hidden...);
- `failed`: it was tried and went wrong;
- `unconfirmed`: it ran, and nothing could be read back to confirm it (say why).

`Outcome.effect_text()` is the section the model reads, and the card, the audit, the command
line's `--json` and `deskhand mcp` show the same outcome.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tools.data import Data

OutcomeKind = Literal["done", "no_effect", "differs", "refused", "failed", "unconfirmed"]
OUTCOME_KINDS: tuple[OutcomeKind, ...] = (
    "done",
    "no_effect",
    "differs",
    "refused",
    "failed",
    "unconfirmed",
)
MAX_LINES = 20  # changes the section lists, at most
MAX_CHARS = 1500  # characters of the section, at most
NOTHING_ON_PAGE = "nothing on the page changed."


class Outcome(Data, frozen=True):
    """One call's verified outcome: its kind, what changed (one line each: `+ alert "…"`,
    `- dialog "…"`, `~ checkbox "…": checked`, `→ navigated to …`), and a sentence beside them
    (`The field holds "AB", not the text typed.`, `Not confirmed: …`)."""

    kind: OutcomeKind
    changes: list[str] = Field(default_factory=list)
    note: str = ""
    nothing: str = NOTHING_ON_PAGE  # what "Effect: none" says of this source's world
    unknown: str = ""  # for `unconfirmed`: what could not be read ("nothing could be read back…")

    def effect_text(self) -> str:
        """The `Effect:` section the model reads: at most MAX_LINES lines and MAX_CHARS
        characters, the overflow counted rather than dropped silently."""
        if not self.changes:
            # Nothing seen is "none" only when it was looked at: unconfirmed says it was not.
            if self.kind != "unconfirmed":
                text = f"Effect: none: {self.nothing}"
            else:
                text = f"Effect: unknown: {self.unknown}" if self.unknown else "Effect: unknown."
            return f"{text}\n{self.note}" if self.note else text
        return bounded_section(self.changes, self.note)


def bounded_section(changes: list[str], note: str = "") -> str:
    """`Effect:` and one change per line, the whole section within MAX_LINES lines and MAX_CHARS
    characters; when changes are left out, the last change line says how many."""
    head = ["Effect:"]
    tail = [note] if note else []
    room_lines = MAX_LINES - len(head) - len(tail)
    room_chars = MAX_CHARS - sum(len(line) + 1 for line in head + tail)
    lines: list[str] = []
    for index, change in enumerate(changes):
        line = change if len(change) <= 200 else change[:199] + "…"
        left_after = len(changes) - index - 1
        more = f"… and {left_after} more" if left_after else ""
        # This line fits only if the "… and N more" line still fits after it when needed.
        needs = len(line) + 1 + (len(more) + 1 if more else 0)
        fits_lines = len(lines) + 1 + (1 if more else 0) <= room_lines
        if not fits_lines or needs > room_chars:
            lines.append(f"… and {len(changes) - index} more")
            break
        lines.append(line)
        room_chars -= len(line) + 1
    return "\n".join(head + lines + tail)

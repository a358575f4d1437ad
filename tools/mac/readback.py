"""What a Mac action really left behind: the object read back by its id, in `Effect:` lines.

Every Mac action that creates or changes something (a reminder, a note, a sent mail, the
clipboard, a window, a tab, an object made by a dictionary command) has its script read the
object back by its id after acting, and the tool compares what is really there with what was
asked (tools/outcome.py):

- `done`: read back and as asked: `~ reminder "Call Ana": created in list "Inbox", due …`;
- `differs`: read back, but something is not as asked; the line says what is there and the
  note names each difference (`Differs from what was asked: due is none, not 2024-05-03.`);
- `unconfirmed`: nothing could be read back; the note says `Not confirmed: …` and why.

What an app holds is data from the app: shown quoted, clipped, invisible characters escaped.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from datetime import datetime

from tools.base import ToolResult
from tools.outcome import Outcome

SHOWN = 80  # characters of an app's text an effect line shows at most
_HIDDEN = ("Cc", "Cf", "Zl", "Zp", "Cs")


def shown(text: object, limit: int = SHOWN) -> str:
    """An app's text for an effect line: double-quoted, clipped, invisible characters escaped."""
    value = text if isinstance(text, str) else ""
    short = value if len(value) <= limit else value[: limit - 1] + "…"
    plain = short.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(
        f"\\u{ord(char):04x}" if unicodedata.category(char) in _HIDDEN else char for char in plain
    )
    return f'"{escaped}"'


def characters(count: int) -> str:
    return f"{count} character{'' if count == 1 else 's'}"


def minute(moment: datetime) -> str:
    """A local date and time the way effect lines show it: 2024-05-03 09:30."""
    return moment.strftime("%Y-%m-%d %H:%M")


def differences(pairs: Sequence[tuple[str, str, str]]) -> list[str]:
    """`what is found, not asked` for each (what, found, asked) that differs."""
    return [f"{what} is {found}, not {asked}" for what, found, asked in pairs if found != asked]


def read_back(change: str, differ: Sequence[str] = (), *, more: Sequence[str] = ()) -> Outcome:
    """The outcome of an object read back: its line (what is really there), and `differs` with
    each difference named when it is not what was asked."""
    changes = [change, *more]
    if not differ:
        return Outcome(kind="done", changes=changes)
    return Outcome(
        kind="differs",
        changes=changes,
        note=f"Differs from what was asked: {'; '.join(differ)}.",
    )


def not_confirmed(app: str, why: str, *, changes: Sequence[str] = ()) -> Outcome:
    """Nothing (or not enough) could be read back from `app`: `Not confirmed: why`."""
    return Outcome(
        kind="unconfirmed",
        changes=list(changes),
        note=f"Not confirmed: {why}",
        unknown=f"nothing could be read back from {app}.",
    )


def with_effect(result: ToolResult, outcome: Outcome) -> ToolResult:
    """`result` with the outcome attached and its `Effect:` section after the text."""
    text = f"{result.text}\n{outcome.effect_text()}" if result.text else outcome.effect_text()
    return result.model_copy(update={"text": text, "outcome": outcome})

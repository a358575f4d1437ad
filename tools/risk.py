"""How much an action can change: the one scale every tool, rule and approval uses. Apart from
the function-tool contract (tools/base.py), so that what only rates actions loads neither
asyncio nor the contract."""

from __future__ import annotations

from enum import StrEnum


class Risk(StrEnum):
    READ = "read"  # no side effects
    CHANGE = "change"  # creates or edits something, undoable
    CONSEQUENTIAL = "consequential"  # sends, deletes, quits, pays, runs code

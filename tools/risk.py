"""How much an action can change: the one scale every tool, rule and approval uses. Apart from
the function-tool contract (tools/base.py), so that what only rates actions loads neither
asyncio nor the contract.

The members are declared from the least to the most risky, and that order is the scale:
`rank`, `above` and `highest` are the only comparisons of risks in Deskhand (the values are
strings, whose own order is the alphabet's, not the scale's)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Risk(StrEnum):
    READ = "read"  # no side effects
    CHANGE = "change"  # creates or edits something, undoable
    CONSEQUENTIAL = "consequential"  # sends, deletes, quits, pays, runs code

    @property
    def rank(self) -> int:
        """Its place on the scale: 0 for READ, up to CONSEQUENTIAL."""
        return _RANKS[self]

    def above(self, other: Risk) -> bool:
        """Whether this risk is higher on the scale than `other`."""
        return self.rank > other.rank

    @staticmethod
    def highest(risks: Iterable[Risk]) -> Risk:
        """The highest of `risks` (the first of equals); READ when there are none."""
        found = Risk.READ
        for risk in risks:
            if risk.above(found):
                found = risk
        return found


_RANKS = {risk: index for index, risk in enumerate(Risk)}

"""Element references the model uses (`ref_12`), mapped to Playwright's and checked for staleness.

Playwright numbers elements per document (`e5`, and `f1e2` inside a frame) and starts
again at `e1` after a navigation, so its refs alone could point a late click at some
other element. The model sees our own names instead: numbered once per browser session
(never reused, never shared between tabs) and bound to the document generation they
were read in. A ref from an older generation, or from another tab, resolves to nothing,
and the driver answers with a fixed phrase instead of clicking.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import count

__all__ = ["RefCounter", "RefEntry", "RefTable"]


class RefCounter:
    """Hands out `ref_N` numbers for one browser session, shared by its tabs."""

    def __init__(self) -> None:
        self._numbers = count(1)

    def next(self) -> str:
        return f"ref_{next(self._numbers)}"


@dataclass(frozen=True)
class RefEntry:
    """What a model ref stands for: Playwright's ref in a given document generation."""

    ref: str
    pw_ref: str
    generation: tuple[int, int]
    role: str
    name: str

    @property
    def label(self) -> str:
        """How a person would name the element: its accessible name, else its role."""
        return self.name or self.role


class RefTable:
    """One tab's refs. `generation` is (main document, sub-frame documents) navigations seen."""

    def __init__(self, counter: RefCounter) -> None:
        self._counter = counter
        self.main_generation = 0
        self.frame_generation = 0
        self._by_ref: dict[str, RefEntry] = {}
        self._by_key: dict[tuple[tuple[int, int], str], str] = {}

    def _generation_for(self, pw_ref: str) -> tuple[int, int]:
        # A frame's refs also go stale when any sub-frame navigates: Playwright restarts their
        # numbering in the new frame document, and we cannot tell frames apart by prefix alone.
        return (self.main_generation, self.frame_generation if pw_ref.startswith("f") else 0)

    def main_navigated(self) -> None:
        self.main_generation += 1
        self._by_ref.clear()
        self._by_key.clear()

    def frame_navigated(self) -> None:
        self.frame_generation += 1

    def ref_for(self, pw_ref: str, role: str, name: str) -> str:
        """The model ref for Playwright's `pw_ref` in the current document; stable across reads."""
        key = (self._generation_for(pw_ref), pw_ref)
        known = self._by_key.get(key)
        if known is not None and self._by_ref[known].role == role:
            return known
        ref = self._counter.next()
        self._by_key[key] = ref
        self._by_ref[ref] = RefEntry(
            ref=ref, pw_ref=pw_ref, generation=key[0], role=role, name=name
        )
        return ref

    def resolve(self, ref: str) -> RefEntry | None:
        """The entry for `ref` if it belongs to this tab's current documents, else None."""
        entry = self._by_ref.get(ref)
        if entry is None or entry.generation != self._generation_for(entry.pw_ref):
            return None
        return entry

    def label(self, ref: str) -> str | None:
        entry = self._by_ref.get(ref)
        return entry.label if entry is not None else None

"""Snapshots: the elements one `see` found, each with a short id, kept per chat for a while.

Ids are a letter for the kind (B button, T text field, L link, C checkbox, R radio, S slider,
M menu item, I image, G group, X other) and a number in reading order: `B1`, `B2`, `T1`. A line
per element says what the model needs to act on it:

    T1 text field "Name" = "Ada" (412,230 200×28), focused
    T2 password field "Password" (secret) (412,270 200×28)
    X7 list item "Row 55" (off-screen)

Bounds are pixels of a screenshot of the display the window is on, the coordinates the computer
tool clicks with. A secure field's value is never read, so it can never be shown.

`SnapshotStore` keeps the last few snapshots of each chat for `TTL` seconds; an action names an
id of one of them (the latest by default). A snapshot another process saw can be put back
(`restore`, from `saved.py`): its elements are marked `restored`.
Names and values are screen content: untrusted data.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from tools.screen.a11y.accessible import Node
from tools.screen.a11y.atspi.tables import KIND_NAMES
from tools.screen.geometry import Point, Rect
from tools.screen.risk import quote
from tools.screen.scaling import ImageFrame
from tools.screen.windows import Window

__all__ = ["Item", "Snapshot", "SnapshotStore", "element_line", "shown_rect"]

TTL = 600.0  # seconds a snapshot's ids stay usable
KEEP = 5  # snapshots kept per chat
MAX_TEXT = 16_000  # characters of element lines sent at once
NAME_LIMIT = 80

_WORDS = {
    "push button": "button",
    "text": "text field",
    "entry": "text field",
    "password text": "password field",
    "check box": "checkbox",
    "radio button": "radio",
    "slider": "slider",
    "menu item": "menu item",
    "image": "image",
    "icon": "image",
    "link": "link",
}


def role_word(node: Node) -> str:
    return _WORDS.get(node.role, node.role)


@dataclass(frozen=True)
class Item:
    """One element of a snapshot: its id, what was read, and where it was."""

    id: str
    node: Node
    app: str
    pid: int | None
    window: Window | None
    restored: bool = False  # from a snapshot another process saw (`saved.py`)


@dataclass
class Snapshot:
    id: str
    session_id: int
    frame: ImageFrame  # the screenshot geometry of the display the bounds are given in
    items: dict[str, Item]
    subject: str  # what was looked at: 'window 4194311 "Inbox" (Mail)', 'display 0'
    cut: bool = False  # a limit cut the read short
    taken: float = field(default_factory=time.monotonic)

    def lines(self) -> str:
        """The snapshot as the model reads it (bounded: `MAX_TEXT`)."""
        frame = self.frame
        head = (
            f"Snapshot {self.id} of {self.subject}: {len(self.items)} elements. Bounds are "
            f"(x,y width×height) in pixels of a screenshot of display {frame.display} at "
            f"{frame.width}×{frame.height}, the computer tool's coordinates; act on an element "
            "by its id."
        )
        out = [head]
        size = len(head)
        for item in self.items.values():
            line = element_line(item, frame)
            if size + len(line) + 1 > MAX_TEXT:
                out.append("(more elements not shown: the text limit was reached)")
                break
            out.append(line)
            size += len(line) + 1
        if self.cut:
            out.append("(the window holds more elements than one look reads)")
        return "\n".join(out)


def shown_rect(bounds: Rect, frame: ImageFrame) -> Rect | None:
    """`bounds` (global) as a screenshot rectangle, clipped to the screenshot; None if off it."""
    visible = bounds.intersection(frame.region)
    if visible is None:
        return None
    top_left = frame.to_image(Point(visible.x, visible.y))
    bottom_right = frame.to_image(Point(visible.right - 1, visible.bottom - 1))
    return Rect(
        top_left.x,
        top_left.y,
        bottom_right.x - top_left.x + 1,
        bottom_right.y - top_left.y + 1,
    )


def element_line(item: Item, frame: ImageFrame) -> str:
    node = item.node
    parts = [f"{item.id} {role_word(node)}"]
    if node.name:
        parts.append(f'"{quote(node.name, NAME_LIMIT)}"')
    if node.secure:
        parts.append("(secret: its value is never shown)")
    elif node.value:
        parts.append(f'= "{quote(node.value, NAME_LIMIT)}"')
    shown = shown_rect(node.bounds, frame) if node.bounds is not None else None
    if not node.showing or shown is None:
        parts.append("(off-screen)")
    else:
        parts.append(f"({shown.x},{shown.y} {shown.width}×{shown.height})")
    flags = []
    if node.kind in ("C", "R") or node.role in ("toggle button", "check menu item"):
        flags.append("checked" if node.checked else "not checked")
    if not node.enabled:
        flags.append("disabled")
    if node.focused:
        flags.append("focused")
    return " ".join(parts) + (", " + ", ".join(flags) if flags else "")


def number_items(
    nodes: Sequence[tuple[Node, str, int | None, Window | None]],
) -> dict[str, Item]:
    """Ids by kind, numbered in reading order: (node, app, pid, window) → `B1`, `T1`, `B2`…"""
    counters: dict[str, itertools.count[int]] = {kind: itertools.count(1) for kind in KIND_NAMES}
    items: dict[str, Item] = {}
    for node, app, pid, window in nodes:
        item_id = f"{node.kind}{next(counters[node.kind])}"
        items[item_id] = Item(id=item_id, node=node, app=app, pid=pid, window=window)
    return items


def _number(snapshot_id: str) -> int:
    digits = snapshot_id[1:]
    return int(digits) if digits.isdigit() else 0


class SnapshotStore:
    """The recent snapshots of each chat; ids `s1`, `s2`… are unique across chats."""

    def __init__(
        self, *, ttl: float = TTL, keep: int = KEEP, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.keep = keep
        self._clock = clock
        self._last = 0  # the number of the latest snapshot id given
        self._chats: dict[int, list[Snapshot]] = {}

    def add(
        self,
        session_id: int,
        frame: ImageFrame,
        items: dict[str, Item],
        subject: str,
        *,
        cut: bool = False,
    ) -> Snapshot:
        self._last += 1
        snapshot = Snapshot(
            id=f"s{self._last}",
            session_id=session_id,
            frame=frame,
            items=items,
            subject=subject,
            cut=cut,
            taken=self._clock(),
        )
        self._keep(snapshot)
        return snapshot

    def _keep(self, snapshot: Snapshot) -> None:
        self._chats[snapshot.session_id] = [*self.kept(snapshot.session_id), snapshot][-self.keep :]

    def restore(self, snapshot: Snapshot, age: float) -> None:
        """Keep a snapshot another process saw `age` seconds ago, under its own id (new ids are
        numbered after it); one too old for `ttl` is dropped."""
        if not 0 <= age <= self.ttl:
            return
        self._last = max(self._last, _number(snapshot.id))
        items = {key: replace(item, restored=True) for key, item in snapshot.items.items()}
        restored = replace(snapshot, items=items, taken=self._clock() - age)
        others = [s for s in self.kept(snapshot.session_id) if s.id != snapshot.id]
        ordered = sorted([*others, restored], key=lambda s: _number(s.id))
        self._chats[snapshot.session_id] = ordered[-self.keep :]

    def kept(self, session_id: int) -> list[Snapshot]:
        """The chat's fresh snapshots, oldest first."""
        kept = [s for s in self._chats.get(session_id, []) if self._fresh(s)]
        self._chats[session_id] = kept
        return list(kept)

    def age(self, snapshot: Snapshot) -> float:
        return self._clock() - snapshot.taken

    def _fresh(self, snapshot: Snapshot) -> bool:
        return self._clock() - snapshot.taken <= self.ttl

    def get(self, session_id: int, snapshot_id: str | None = None) -> Snapshot | None:
        """The chat's snapshot with that id (its latest without one), if it is still fresh."""
        kept = self.kept(session_id)
        if snapshot_id is None:
            return kept[-1] if kept else None
        return next((s for s in kept if s.id == snapshot_id), None)

    def latest_item(self, session_id: int, snapshot_id: str | None, item_id: str) -> Item | None:
        snapshot = self.get(session_id, snapshot_id)
        return snapshot.items.get(item_id) if snapshot is not None else None

    def refresh(self, session_id: int, snapshot_id: str, item: Item) -> None:
        """Keep what an element was last read as (the gate judges the element as it is now)."""
        snapshot = self.get(session_id, snapshot_id)
        if snapshot is not None and item.id in snapshot.items:
            snapshot.items[item.id] = item

    def forget(self, session_id: int) -> None:
        self._chats.pop(session_id, None)

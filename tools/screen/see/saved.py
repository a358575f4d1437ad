"""Snapshots as plain data, so element ids outlive the process that saw them.

`deskhand ui see` run on its own keeps its snapshot in a file, and a later `deskhand ui click B2`
puts it back (`SnapshotStore.restore`). What is kept is what finds each element again and what
the person is shown before it is read again: per snapshot its id, what was looked at, the
screenshot geometry and when it was taken (wall-clock seconds: another process's monotonic
clock means nothing); per id the element's role, name, bounds, its app and process, its window,
and the backend's handle where that is plain data (AT-SPI's bus name and object path, valid in
any process while the target app lives). Values (a field's text) are never kept.

A backend whose handles are live objects (macOS AX) cannot be kept: `dump` then says so
(`portable=False`) and keeps no element. Everything loaded is validated; a handle that is not a
well-formed bus name and path is refused. The ids read back stay a claim to check: the `screen`
tool reads each element again before acting (same role, same name, same window, or "see again").
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, ValidationError

from tools.data import Data
from tools.screen.a11y.accessible import Node
from tools.screen.geometry import Rect
from tools.screen.scaling import ImageFrame
from tools.screen.see.snapshot import Item, Snapshot, SnapshotStore
from tools.screen.windows import Window

__all__ = ["SavedSnapshots", "UnreadableSnapshots", "dump", "load", "restore"]

BusName = Annotated[str, StringConstraints(pattern=r"^:?[A-Za-z0-9_.\-]{1,255}$")]
ObjectPath = Annotated[str, StringConstraints(pattern=r"^/[A-Za-z0-9_/]{0,1000}$")]
PlainRef = tuple[BusName, ObjectPath]
Text = Annotated[str, StringConstraints(max_length=2000)]


class UnreadableSnapshots(ValueError):
    """The saved snapshots are not what `dump` writes (damaged, or written by something else)."""


class _Model(Data):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SavedItem(_Model):
    id: Annotated[str, StringConstraints(pattern=r"^[BTLCRSMIGX][0-9]{1,4}$")]
    role: Text
    name: Text = ""
    kind: Annotated[str, StringConstraints(pattern=r"^[BTLCRSMIGX]$")]
    bounds: Rect | None = None
    showing: bool = False
    enabled: bool = False
    app: Text = ""
    pid: int | None = None
    window: Window | None = None
    ref: PlainRef
    parent: PlainRef | None = None  # where an unnamed field's label is looked for again
    path: tuple[int, ...] = Field(default=(), max_length=64)


class SavedSnapshot(_Model):
    id: Annotated[str, StringConstraints(pattern=r"^s[0-9]{1,9}$")]
    subject: Text
    frame: ImageFrame
    taken: float  # seconds since the epoch
    cut: bool = False
    items: list[SavedItem] = Field(max_length=5000)


class SavedSnapshots(_Model):
    """The file: the latest snapshots of the command line, or that its ids cannot be kept."""

    version: Literal[1] = 1
    portable: bool = True  # False: this computer's elements cannot be found by another process
    snapshots: list[SavedSnapshot] = Field(default_factory=list, max_length=50)


def _plain(ref: object) -> tuple[str, str] | None:
    if isinstance(ref, tuple) and len(ref) == 2 and all(isinstance(part, str) for part in ref):
        return ref[0], ref[1]
    return None


def _saved_item(item: Item) -> SavedItem | None:
    node = item.node
    ref = _plain(node.ref)
    parent = _plain(node.parent) if node.parent is not None else None
    if ref is None or (node.parent is not None and parent is None):
        return None
    return SavedItem(
        id=item.id,
        role=node.role,
        name=node.name,
        kind=node.kind,
        bounds=node.bounds,
        showing=node.showing,
        enabled=node.enabled,
        app=item.app,
        pid=item.pid,
        window=item.window,
        ref=ref,
        parent=parent,
        path=node.path,
    )


def dump(snapshots: Sequence[Snapshot], ages: Sequence[float]) -> SavedSnapshots:
    """The snapshots (each `ages[i]` seconds old) as plain data; not `portable`, and empty, when
    an element's handle is a live object of this process."""
    now = time.time()
    saved = []
    for snapshot, age in zip(snapshots, ages, strict=True):
        items = [_saved_item(item) for item in snapshot.items.values()]
        kept = [item for item in items if item is not None]
        if len(kept) != len(items):
            return SavedSnapshots(portable=False)
        saved.append(
            SavedSnapshot(
                id=snapshot.id,
                subject=snapshot.subject,
                frame=snapshot.frame,
                taken=now - age,
                cut=snapshot.cut,
                items=kept,
            )
        )
    return SavedSnapshots(snapshots=saved)


def load(text: str | bytes) -> SavedSnapshots:
    """The file's content, validated; raises `UnreadableSnapshots`."""
    try:
        return SavedSnapshots.model_validate_json(text)
    except ValidationError as exc:
        raise UnreadableSnapshots("not saved snapshots") from exc


def restore(saved: SavedSnapshots, store: SnapshotStore, session_id: int) -> None:
    """Put the saved snapshots back into `store` for a chat (those too old are dropped; one
    taken in the future counts as too old)."""
    now = time.time()
    for snapshot in saved.snapshots:
        items = {
            item.id: Item(
                id=item.id,
                node=Node(
                    ref=item.ref,
                    role=item.role,
                    name=item.name,
                    kind=item.kind,
                    bounds=item.bounds,
                    showing=item.showing,
                    enabled=item.enabled,
                    parent=item.parent,
                    path=item.path,
                ),
                app=item.app,
                pid=item.pid,
                window=item.window,
            )
            for item in snapshot.items
        }
        restored = Snapshot(
            id=snapshot.id,
            session_id=session_id,
            frame=snapshot.frame,
            items=items,
            subject=snapshot.subject,
            cut=snapshot.cut,
        )
        store.restore(restored, now - snapshot.taken)

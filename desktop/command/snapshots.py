"""The command line's snapshots between two `deskhand ui` commands run without the app.

A `see` (or `wait`) run on its own leaves its snapshots in `DATA/ui/snapshot.json` (mode 0600, in
the folder only the person can open), as `tools/screen/see/saved.py` writes them; the next command
that names an id puts them back first, so `deskhand ui see` then `deskhand ui click B2` works
without Deskhand running. Where this computer's elements cannot be found by another process
(macOS), the file says only that, and a command naming an id says ids need the app.

The file is replaced whole (written beside it, then renamed), so a command reading it while
another writes never sees half of it. One that cannot be read is reported, never trusted.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from desktop.command.protocol import folder, write_private
from tools.screen.see.saved import SavedSnapshots, UnreadableSnapshots, dump, load, restore
from tools.screen.see.snapshot import SnapshotStore

log = logging.getLogger(__name__)

__all__ = ["IDS_NEED_APP", "UNREADABLE", "keep_snapshots", "put_back", "snapshots_path"]

FILE = "snapshot.json"
MAX_SIZE = 4 << 20  # bytes: far more than five snapshots of 400 elements take
UNREADABLE = (
    "The element ids of the last `deskhand ui see` could not be read back. See again, then act "
    "on an id it lists."
)
IDS_NEED_APP = (
    "On this computer element ids last only while Deskhand runs: start Deskhand, then see "
    "again and act on an id it lists."
)


def snapshots_path(root: Path) -> Path:
    return folder(root) / FILE


def put_back(root: Path, store: SnapshotStore, session_id: int) -> str | None:
    """Put the saved snapshots back into `store`; an error for the person when that cannot be
    done (a damaged file, or ids that cannot outlive the app here). No file: nothing to do.
    Blocks briefly (one small file)."""
    path = snapshots_path(root)
    try:
        with path.open("rb") as file:
            text = file.read(MAX_SIZE + 1)
    except FileNotFoundError:
        return None
    except OSError:
        log.info("the saved element ids could not be opened", exc_info=True)
        return UNREADABLE
    if len(text) > MAX_SIZE:
        return UNREADABLE
    try:
        saved = load(text)
    except UnreadableSnapshots:
        log.info("the saved element ids are damaged")
        return UNREADABLE
    if not saved.portable:
        return IDS_NEED_APP
    restore(saved, store, session_id)
    return None


def keep_snapshots(root: Path, store: SnapshotStore, session_id: int) -> bool:
    """Save the chat's fresh snapshots for the next command; False when this computer's ids
    cannot outlive this process (the file then says so). Blocks briefly."""
    kept = store.kept(session_id)
    saved: SavedSnapshots = dump(kept, [store.age(snapshot) for snapshot in kept])
    path = snapshots_path(root)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_name(f".{FILE}.{os.getpid()}")
    write_private(partial, saved.model_dump_json())
    os.replace(partial, path)
    return saved.portable

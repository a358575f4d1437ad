"""The command line's snapshot file on a real disk: private, replaced whole, and refused with
"see again" (or "needs the app") when it cannot be used. Acting on it: test_ui_cli.py."""

from __future__ import annotations

import stat
from pathlib import Path

from desktop.command.snapshots import (
    IDS_NEED_APP,
    UNREADABLE,
    keep_snapshots,
    put_back,
    snapshots_path,
)
from tools.screen.a11y.accessible import Node
from tools.screen.geometry import Rect
from tools.screen.scaling import ImageFrame
from tools.screen.see.snapshot import SnapshotStore, number_items

FRAME = ImageFrame.for_region(0, Rect(0, 0, 800, 600))


def store_with(ref: object) -> SnapshotStore:
    store = SnapshotStore()
    node = Node(ref=ref, role="push button", name="Save", bounds=Rect(1, 2, 3, 4))
    store.add(-1, FRAME, number_items([(node, "form", 9, None)]), "display 0")
    return store


def test_the_file_is_the_owners_only_and_comes_back(tmp_path: Path) -> None:
    path = snapshots_path(tmp_path)
    path.parent.mkdir(mode=0o755)
    path.write_text("old")
    path.chmod(0o644)
    assert keep_snapshots(tmp_path, store_with((":1.3", "/b")), -1) is True
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["snapshot.json"]  # no partial file left
    later = SnapshotStore()
    assert put_back(tmp_path, later, -1) is None
    item = later.latest_item(-1, None, "B1")
    assert item is not None and item.node.name == "Save" and item.restored


def test_no_file_is_nothing_to_put_back(tmp_path: Path) -> None:
    store = SnapshotStore()
    assert put_back(tmp_path, store, -1) is None and store.get(-1) is None


def test_a_damaged_file_says_see_again(tmp_path: Path) -> None:
    path = snapshots_path(tmp_path)
    path.parent.mkdir()
    for damaged in (b"\x00\x01", b'{"version": 1, "snapshots": "s1"}', b" " * (5 << 20)):
        path.write_bytes(damaged)
        store = SnapshotStore()
        assert put_back(tmp_path, store, -1) == UNREADABLE and store.get(-1) is None


def test_where_elements_are_live_objects_ids_need_the_app(tmp_path: Path) -> None:
    assert keep_snapshots(tmp_path, store_with(object()), -1) is False
    assert put_back(tmp_path, SnapshotStore(), -1) == IDS_NEED_APP

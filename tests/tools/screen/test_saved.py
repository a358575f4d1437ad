"""Snapshots kept as plain data between two processes (no X server needed): what a file keeps,
what it refuses, and how old a put-back snapshot may be.

Acting on a put-back snapshot against real windows is in tests/desktop/command/test_cli.py.
"""

from __future__ import annotations

import json
import time

import pytest

from tools.screen.a11y.accessible import Node
from tools.screen.geometry import Rect
from tools.screen.scaling import ImageFrame
from tools.screen.see.saved import UnreadableSnapshots, dump, load, restore
from tools.screen.see.snapshot import TTL, SnapshotStore, number_items
from tools.screen.windows import Window

FRAME = ImageFrame.for_region(0, Rect(0, 0, 1600, 900))
FORM = Window(id=4194311, title="Form", app="form", pid=812, rect=Rect(20, 20, 620, 440))


def nodes(refs: list[object]) -> list[tuple[Node, str, int | None, Window | None]]:
    roles = ["push button", "text", "password text"]
    names = ["Save", "Name", "Password"]
    return [
        (
            Node(
                ref=ref,
                role=roles[n],
                name=names[n],
                value="Ada" if n == 1 else None,
                enabled=True,
                showing=True,
                bounds=Rect(40, 40 + 50 * n, 100, 32),
                parent=("app.bus", "/form") if isinstance(ref, tuple) else None,
                path=(0, n),
            ),
            "form",
            812,
            FORM,
        )
        for n, ref in enumerate(refs)
    ]


def test_a_snapshot_comes_back_with_its_ids_elements_and_age() -> None:
    store = SnapshotStore()
    refs: list[object] = [(":1.42", f"/org/a11y/atspi/accessible/{n}") for n in range(3)]
    store.add(-1, FRAME, number_items(nodes(refs)), 'window 4194311 "Form" (form)')
    second = store.add(-1, FRAME, number_items(nodes(refs[:1])), "display 0")
    saved = dump(store.kept(-1), [30.0, 10.0])
    text = saved.model_dump_json()
    assert '"Ada"' not in text  # a field's text is never kept

    later = SnapshotStore()
    restore(load(text), later, -1)
    back = later.get(-1)
    assert back is not None and back.id == second.id and back.subject == "display 0"
    older = later.get(-1, "s1")
    assert older is not None and list(older.items) == ["B1", "T1", "T2"]
    field = older.items["T1"]
    assert field.restored and field.node.ref == refs[1] and field.node.name == "Name"
    assert field.node.bounds == Rect(40, 90, 100, 32) and field.node.value is None
    assert (field.app, field.pid, field.window) == ("form", 812, FORM)
    assert 29 <= later.age(older) <= 40
    assert later.add(-1, FRAME, {}, "display 0").id == "s3"  # numbered after what came back


def test_live_handles_are_not_kept() -> None:
    """macOS AX elements are objects of the process that read them: nothing to save."""
    store = SnapshotStore()
    store.add(-1, FRAME, number_items(nodes([object(), object()])), "display 0")
    saved = dump(store.kept(-1), [0.0])
    assert saved.portable is False and saved.snapshots == []


@pytest.mark.parametrize("age", [TTL + 1, -60.0])
def test_a_snapshot_too_old_or_from_the_future_does_not_come_back(age: float) -> None:
    store = SnapshotStore()
    store.add(-1, FRAME, number_items(nodes([(":1.7", "/a")])), "display 0")
    raw = json.loads(dump(store.kept(-1), [0.0]).model_dump_json())
    raw["snapshots"][0]["taken"] = time.time() - age
    later = SnapshotStore()
    restore(load(json.dumps(raw)), later, -1)
    assert later.get(-1) is None


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("ref", [":1.7", "/a/../b c"]),  # not an object path
        ("ref", ["--bus;x", "/a"]),  # not a bus name
        ("ref", ":1.7"),
        ("id", "B1; rm"),
        ("extra", 1),
    ],
)
def test_an_altered_file_is_refused_whole(where: str, value: object) -> None:
    store = SnapshotStore()
    store.add(-1, FRAME, number_items(nodes([(":1.7", "/a")])), "display 0")
    raw = json.loads(dump(store.kept(-1), [0.0]).model_dump_json())
    raw["snapshots"][0]["items"][0][where] = value
    with pytest.raises(UnreadableSnapshots):
        load(json.dumps(raw))
    for garbage in ("", "[]", "{", '{"version": 2}', b"\xff\xfe"):
        with pytest.raises(UnreadableSnapshots):
            load(garbage)

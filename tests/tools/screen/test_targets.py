"""Targets picked from a list of windows (pure), and snapshots that expire: no X server needed.

The real windows are in test_see_tool.py; these cover what a live desktop seldom shows at once:
two apps of one name, several windows of one app, windows across two displays, expiry.
"""

from __future__ import annotations

import pytest

from tools.screen.a11y.atspi.reader import Node
from tools.screen.displays import Display
from tools.screen.geometry import Rect
from tools.screen.scaling import ImageFrame
from tools.screen.see.snapshot import SnapshotStore, number_items
from tools.screen.see.targets import Target, TargetError, resolve
from tools.screen.windows import Window

DISPLAYS = [
    Display(index=0, frame=Rect(0, 0, 1920, 1080), primary=True),
    Display(index=1, frame=Rect(1920, 0, 1280, 1024)),
]
MAIL_1 = Window(id=11, title="Inbox", app="Mail", pid=100, rect=Rect(0, 0, 800, 600))
TERM = Window(id=20, title="bash", app="XTerm", instance="xterm", pid=200, rect=Rect(100, 100, 600, 400), focused=True)  # fmt: skip
MAIL_2 = Window(id=12, title="New message", app="Mail", pid=100, rect=Rect(2000, 50, 700, 500))
EDITOR = Window(
    id=30, title="notes.txt — Editor", app="Gedit", pid=300, rect=Rect(50, 50, 900, 700)
)
OTHER_MAIL = Window(id=40, title="Mailbox", app="Mailspring", pid=400, rect=Rect(10, 10, 500, 400))
WINDOWS = [MAIL_1, TERM, MAIL_2, EDITOR]  # front to back


def pick(windows: list[Window] | None = None, **target: object) -> Window | None:
    return resolve(Target(**target), windows or WINDOWS, DISPLAYS, {300: "gedit"}).window  # type: ignore[arg-type]


def test_nothing_named_is_the_focused_window_else_the_front_most() -> None:
    assert pick() == TERM
    assert pick([MAIL_1, EDITOR]) == MAIL_1


def test_an_app_by_name_class_or_accessibility_name_is_its_front_most_window() -> None:
    assert pick(app="mail") == MAIL_1
    assert pick(app="xterm") == pick(app="XTerm") == TERM  # instance or class
    assert pick(app="gedit") == EDITOR  # the name AT-SPI gives it
    assert pick(app="edit") == EDITOR  # a part of a name, when nothing matches exactly


def test_an_app_and_a_window_index_or_a_title() -> None:
    assert pick(app="Mail", window_index=1) == MAIL_2
    assert pick(app="Mail", title="new") == MAIL_2
    with pytest.raises(TargetError, match="has no window #2") as error:
        pick(app="Mail", window_index=2)
    assert "window 11:" in str(error.value) and "window 12:" in str(error.value)


def test_a_title_or_a_window_id() -> None:
    assert pick(title="NOTES") == EDITOR
    assert pick(window_id=12) == MAIL_2
    with pytest.raises(TargetError, match="No window has the id 99"):
        pick(window_id=99)


def test_several_apps_of_one_name_or_several_titles_are_ambiguous() -> None:
    assert pick([OTHER_MAIL, *WINDOWS], app="mail") == MAIL_1  # an exact name wins
    windows = [OTHER_MAIL, MAIL_1.model_copy(update={"app": "Mailer"})]
    with pytest.raises(TargetError, match="Several apps match 'mail'") as error:
        pick(windows, app="mail")  # only parts match, and of two apps
    assert "Mailspring" in str(error.value) and "Mailer" in str(error.value)
    two = [MAIL_1, MAIL_1.model_copy(update={"id": 13, "pid": 101})]
    with pytest.raises(TargetError, match="Several apps match 'Mail'"):
        pick(two, app="Mail")  # two processes of one app
    with pytest.raises(TargetError, match="Several windows' titles contain 'es'") as error:
        pick(title="es")
    assert '"New message"' in str(error.value) and "Inbox" not in str(error.value)


def test_no_match_lists_every_window_with_its_index() -> None:
    with pytest.raises(TargetError) as error:
        pick(app="Safari")
    lines = str(error.value).splitlines()
    assert lines[0].startswith("No open window belongs to an app named 'Safari'")
    assert lines[1:] == [
        '- window 11: "Inbox" — Mail #0 (pid 100) at (0, 0) 800×600',
        '- window 20: "bash" — XTerm #0 (pid 200) at (100, 100) 600×400, focused',
        '- window 12: "New message" — Mail #1 (pid 100) at (2000, 50) 700×500',
        '- window 30: "notes.txt — Editor" — Gedit #0 (pid 300) at (50, 50) 900×700 [gedit]',
    ]


def test_a_display_is_every_window_on_it_and_a_window_is_on_its_centres_display() -> None:
    second = resolve(Target(display=1), WINDOWS, DISPLAYS)
    assert second.window is None and second.windows == (MAIL_2,)
    assert resolve(Target(window_id=12), WINDOWS, DISPLAYS).display.index == 1
    with pytest.raises(TargetError, match="There is no display 2"):
        resolve(Target(display=2), WINDOWS, DISPLAYS)


def test_snapshots_expire_and_ids_are_numbered_by_kind() -> None:
    now = [100.0]
    store = SnapshotStore(ttl=60, keep=2, clock=lambda: now[0])
    nodes = [Node(ref=("b", f"/{n}"), role=role) for n, role in enumerate(
        ["push button", "text", "push button", "label", "password text"]
    )]  # fmt: skip
    items = number_items([(node, "App", 1, None) for node in nodes])
    assert list(items) == ["B1", "T1", "B2", "X1", "T2"]
    frame = ImageFrame.for_region(0, Rect(0, 0, 100, 100))
    first = store.add(5, frame, items, "display 0")
    assert store.get(5) is first and store.get(6) is None  # another chat sees nothing
    now[0] += 61
    assert store.get(5) is None and store.get(5, first.id) is None
    second, third, fourth = (store.add(5, frame, items, "display 0") for _ in range(3))
    assert store.get(5) is fourth and store.get(5, second.id) is None  # only the newest 2 kept
    assert store.get(5, third.id) is third

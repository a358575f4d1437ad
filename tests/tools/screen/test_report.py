"""The `screen` tool's outcomes as data: coordinates per screen, never a secure field's value.

Xvfb gives one screen at the origin; a layout with a screen left of (and above) the origin and a
Retina one to the right shows what a script reads where local and global coordinates differ.
"""

from __future__ import annotations

from tools.screen.a11y.accessible import Node
from tools.screen.displays import Display, number_displays
from tools.screen.geometry import Point, Rect
from tools.screen.see import report
from tools.screen.see.snapshot import Item
from tools.screen.windows import Window

LEFT, MAIN, RETINA = number_displays(
    [
        Display(frame=Rect(0, 0, 1280, 800), primary=True, name="main"),
        Display(frame=Rect(1280, 0, 1440, 900), scale=2.0, name="retina"),
        Display(frame=Rect(-1920, -300, 1920, 1200), name="left"),
    ]
)


def item(node: Node, window: Window | None = None) -> Item:
    return Item(id=f"{node.kind}1", node=node, app="Mail", pid=812, window=window)


def test_screens_are_numbered_left_to_right_as_the_computer_tool_numbers_them() -> None:
    assert [(d.name, d.index) for d in (LEFT, MAIN, RETINA)] == [
        ("left", 0),
        ("main", 1),
        ("retina", 2),
    ]
    assert report.screen(RETINA) == {
        "index": 2,
        "name": "retina",
        "global_bounds": {"x": 1280, "y": 0, "width": 1440, "height": 900},
        "scale": 2.0,
        "primary": False,
    }


def test_an_element_is_placed_on_its_screen_and_on_the_desktop() -> None:
    button = Node(
        ref=1, role="push button", name="Send", enabled=True, bounds=Rect(-1800, -250, 80, 30)
    )
    shown = report.element(item(button), LEFT)
    assert shown["bounds"] == {"x": 120, "y": 50, "width": 80, "height": 30}
    assert shown["global_bounds"] == {"x": -1800, "y": -250, "width": 80, "height": 30}
    assert (shown["id"], shown["type"], shown["role"], shown["label"]) == (
        "B1",
        "B",
        "button",
        "Send",
    )


def test_a_secure_fields_value_is_never_in_the_data() -> None:
    secret = Node(
        ref=2, role="password text", name="Password", value="hunter2", bounds=Rect(0, 0, 9, 9)
    )
    shown = report.element(item(secret), MAIN)
    assert shown["secure"] is True and shown["value"] is None
    assert "hunter2" not in repr(shown)


def test_a_point_says_its_screen_and_both_coordinates() -> None:
    assert report.placed(Point(1300, 40), [LEFT, MAIN, RETINA]) == {
        "screen": 2,
        "local": {"x": 20, "y": 40},
        "global": {"x": 1300, "y": 40},
    }
    assert report.placed(None, [MAIN]) == {"screen": None, "local": None, "global": None}


def test_a_window_has_its_index_within_its_app_and_its_screen() -> None:
    front = Window(id=1, title="Inbox", app="Mail", pid=812, rect=Rect(1300, 100, 800, 600))
    back = Window(id=2, title="Draft", app="Mail", pid=812, rect=Rect(-1000, 0, 500, 400))
    listed = report.window(back, [LEFT, MAIN, RETINA], [front, back])
    assert (listed["index"], listed["screen"]) == (1, 0)
    assert listed["bounds"] == {"x": 920, "y": 300, "width": 500, "height": 400}
    assert listed["global_bounds"] == {"x": -1000, "y": 0, "width": 500, "height": 400}


def test_each_fixed_failure_has_a_code() -> None:
    from tools.screen import errors

    assert report.code_of(errors.STALE) == "stale"
    assert report.code_of(errors.SECURE_VALUE) == "refused"
    assert report.code_of(errors.ACCESSIBILITY_DENIED) == "needs_permission"
    assert report.code_of("Something no table knows.") == "failed"

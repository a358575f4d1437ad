"""Several displays, side by side, stacked, left of the origin, with mixed scale factors: their
order, global ↔ local mapping, which display holds a point, and what the model is told."""

from __future__ import annotations

from tools.screen.displays import (
    Display,
    describe_displays,
    display_at,
    number_displays,
    primary_display,
    to_global,
    to_local,
)
from tools.screen.geometry import Point, Rect
from tools.screen.scaling import ImageFrame

LAPTOP = Display(frame=Rect(0, 0, 1440, 900), scale=2.0, primary=True, name="built-in")
RIGHT = Display(frame=Rect(1440, -200, 2560, 1440), scale=1.0, name="right")
LEFT = Display(frame=Rect(-1920, 0, 1920, 1080), scale=1.0, name="left")
ABOVE = Display(frame=Rect(0, -1200, 1440, 1200), scale=1.5, name="above")


def test_order_is_by_origin_left_to_right_then_top_to_bottom() -> None:
    displays = number_displays([RIGHT, LAPTOP, ABOVE, LEFT])
    assert [d.name for d in displays] == ["left", "above", "built-in", "right"]
    assert [d.index for d in displays] == [0, 1, 2, 3]
    assert primary_display(displays) == displays[2]


def test_order_does_not_depend_on_which_display_is_primary() -> None:
    moved = [
        LAPTOP.model_copy(update={"primary": False}),
        RIGHT.model_copy(update={"primary": True}),
    ]
    assert [d.name for d in number_displays(moved)] == ["built-in", "right"]
    assert [d.name for d in number_displays([LAPTOP, RIGHT])] == ["built-in", "right"]


def test_without_a_primary_the_display_at_the_origin_is() -> None:
    plain = [RIGHT, LAPTOP.model_copy(update={"primary": False}), LEFT]
    displays = number_displays(plain)
    assert [d.primary for d in displays] == [False, True, False]


def test_mirrored_and_empty_displays_are_dropped() -> None:
    mirror = LAPTOP.model_copy(update={"primary": False, "name": "projector"})
    empty = Display(frame=Rect(5000, 0, 0, 0))
    displays = number_displays([mirror, LAPTOP, empty])
    assert [(d.name, d.primary) for d in displays] == [("built-in", True)]


def test_which_display_holds_a_point() -> None:
    displays = number_displays([LAPTOP, RIGHT, LEFT, ABOVE])
    assert display_at(displays, Point(0, 0)).name == "built-in"
    assert display_at(displays, Point(-1, 0)).name == "left"
    assert display_at(displays, Point(-1920, 1079)).name == "left"
    assert display_at(displays, Point(1439, 899)).name == "built-in"
    assert display_at(displays, Point(1440, -200)).name == "right"
    assert display_at(displays, Point(100, -1)).name == "above"
    assert display_at(displays, Point(-1, -1)) is None  # the corner no display covers
    assert display_at(displays, Point(1440 + 2560, 0)) is None


def test_local_and_global_points() -> None:
    left = number_displays([LEFT, LAPTOP])[0]
    assert to_local(left, Point(-1920, 0)) == (0, 0)
    assert to_local(left, Point(-1, 1079)) == (1919, 1079)
    assert to_global(left, Point(0, 0)) == (-1920, 0)
    right = number_displays([LAPTOP, RIGHT])[1]
    assert to_local(right, Point(1440, -200)) == (0, 0)
    assert to_global(right, Point(100, 250)) == (1540, 50)


def test_screenshot_of_a_display_left_of_the_origin_maps_to_it() -> None:
    frame = ImageFrame.for_region(0, LEFT.frame)
    assert (frame.width, frame.height) == (1429, 804)  # 1920×1080 shrunk to 1.15 megapixels
    assert frame.to_global(Point(0, 0)) == (-1920, 0)
    assert frame.to_global(Point(frame.width - 1, frame.height - 1)) == (-1, 1079)
    assert frame.to_image(Point(-1, 1079)) == (frame.width - 1, frame.height - 1)


def test_screenshot_of_a_display_above_with_negative_y() -> None:
    frame = ImageFrame.for_region(1, ABOVE.frame)
    top_left = frame.to_global(Point(0, 0))
    assert top_left == (0, -1200)
    assert display_at([ABOVE], frame.to_global(Point(frame.width - 1, frame.height - 1)))


def test_a_retina_display_is_mapped_in_points() -> None:
    # 1440×900 points (2880×1800 pixels): the screenshot is fitted to the points, and the model's
    # coordinates become points, the unit Quartz events take.
    frame = ImageFrame.for_region(0, LAPTOP.frame)
    assert frame.width <= 1440 and frame.height <= 900
    assert frame.to_global(Point(frame.width - 1, frame.height - 1)) == (1439, 899)


def test_describe_displays_for_the_model() -> None:
    displays = number_displays([LAPTOP, RIGHT])
    assert describe_displays(displays, 0, (1356, 847)).splitlines() == [
        "Displays (screenshots show display 0, at 1356×847; coordinates are screenshot pixels):",
        "- display 0: 1440×900 at (0, 0), primary, scale 2, in the screenshots",
        "- display 1: 2560×1440 at (1440, -200)",
    ]
    assert describe_displays([], None) == "No display was found."

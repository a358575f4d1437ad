"""Every computer member on a real X server (Xvfb) against a real Qt window, as the app calls it.

The window (tests/support/screen_target.py) sits at (100, 100), 800×500: a button at global
(120, 120, 120, 36), a line edit at (260, 120, 360, 36), a canvas from y = 170 down, and a 4×4
red marker whose top-left pixel is (701, 433). At 1280×800 screenshots are not scaled, so
screenshot coordinates are global pixels here.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.support.pixels import red_box
from tests.support.x11 import TargetApp
from tests.tools.screen.conftest import Screen
from tools.screen import errors, progress_scope

pytestmark = pytest.mark.anyio

BUTTON = (180, 138)
FIELD = (440, 138)
CANVAS = (500, 300)
GREETING = "Grüße, Ωmega 42!"


def is_press(button: str = "left", double: bool | None = None):
    def check(event: dict) -> bool:
        return (
            event["event"] == "press"
            and event["button"] == button
            and (double is None or event["double"] == double)
        )

    return check


# --- looking ----------------------------------------------------------------------------------


async def test_screenshot_shows_the_screen_at_its_size(screen: Screen, target: TargetApp) -> None:
    shot = (await screen.ok("screenshot")).image
    assert shot.size == (1280, 800)
    assert shot.getpixel((701, 433)) == (255, 0, 0)
    assert shot.getpixel((705, 433)) == (255, 255, 255)  # just right of the 4×4 marker
    assert [e.kind for e in screen.events] == ["screenshot"]
    assert screen.events[0].region == (0, 0, 1280, 800)


async def test_zoom_enlarges_a_region_at_full_detail(screen: Screen, target: TargetApp) -> None:
    await screen.ok("screenshot")
    zoomed = (await screen.ok("zoom", region=[696, 428, 712, 444])).image
    assert zoomed.size == (64, 64)  # 16×16 pixels, four times larger
    # the marker, 4 pixels at (5, 5) of the region, is 16 pixels at (20, 20) (edges softened)
    left, top, right, bottom = red_box(zoomed) or (0, 0, 0, 0)
    assert abs(left - 20) <= 1 and abs(top - 20) <= 1
    assert abs(right - 36) <= 1 and abs(bottom - 36) <= 1


async def test_zoom_outside_the_screenshot_is_refused(screen: Screen, target: TargetApp) -> None:
    result = await screen("zoom", region=[1200, 700, 1300, 810])
    assert result.is_error and result.text == errors.BAD_REGION


async def test_cursor_position_is_where_the_pointer_was_moved(
    screen: Screen, target: TargetApp
) -> None:
    moved = await screen.ok("mouse_move", coordinate=[321, 654])
    assert moved.texts == ["Moved the mouse.", "Display 0, local (321, 654), global (321, 654)."]
    assert (await screen.ok("cursor_position")).text == "X=321,Y=654"


# --- pointer ----------------------------------------------------------------------------------


async def test_click_presses_the_button(screen: Screen, target: TargetApp) -> None:
    result = await screen.ok("left_click", coordinate=list(BUTTON))
    assert result.texts == ["Clicked.", "Display 0, local (180, 138), global (180, 138)."]
    await target.next(lambda e: e["event"] == "clicked", what="the button's click")
    click = screen.events[-1]
    assert click.kind == "click" and click.points == ((180, 138),) and click.button == "left"


async def test_progress_lines_say_what_runs(screen: Screen, target: TargetApp) -> None:
    lines: list[str] = []
    with progress_scope(lines.append):
        await screen.ok("left_click", coordinate=list(BUTTON), text="shift")
        await screen.ok("type", text="hi\n")
    assert lines == ["Screen: shift+click at (180, 138)", "Screen: type 'hi\\n'"]


async def test_clicks_reach_the_exact_pixel_with_the_right_button(
    screen: Screen, target: TargetApp
) -> None:
    await screen.ok("right_click", coordinate=[703, 435])
    press = await target.next(is_press("right"))
    assert (press["x"], press["y"]) == (703, 435)
    await screen.ok("middle_click", coordinate=[600, 300])
    press = await target.next(is_press("middle"))
    assert (press["x"], press["y"]) == (600, 300)


async def test_double_and_triple_click(screen: Screen, target: TargetApp) -> None:
    await screen.ok("double_click", coordinate=list(CANVAS))
    await target.next(is_press("left", double=True), what="a double click")
    await target.settle(0.5)  # past the double-click interval
    target.clear()
    await screen.ok("triple_click", coordinate=list(CANVAS))
    await target.settle()
    presses = target.of("press")
    assert [p["double"] for p in presses] == [False, True, False]
    assert len(target.of("release")) == 3


async def test_click_with_a_modifier_held_then_released(screen: Screen, target: TargetApp) -> None:
    await screen.ok("left_click", coordinate=list(CANVAS), text="ctrl+shift")
    press = await target.next(is_press())
    assert press["modifiers"] == ["ctrl", "shift"]
    target.clear()
    await screen.ok("left_click", coordinate=[520, 320])
    assert (await target.next(is_press()))["modifiers"] == []


async def test_click_without_coordinate_acts_at_the_pointer(
    screen: Screen, target: TargetApp
) -> None:
    await screen.ok("mouse_move", coordinate=[450, 350])
    await screen.ok("left_click")
    press = await target.next(is_press())
    assert (press["x"], press["y"]) == (450, 350)


async def test_drag_moves_with_the_button_held(screen: Screen, target: TargetApp) -> None:
    result = await screen.ok("left_click_drag", start_coordinate=[300, 250], coordinate=[600, 400])
    assert result.texts[1] == (
        "From display 0, local (300, 250), global (300, 250) "
        "to display 0, local (600, 400), global (600, 400)."
    )
    release = await target.next(lambda e: e["event"] == "release")
    press = target.of("press")[0]
    moves = target.of("move")
    assert (press["x"], press["y"]) == (300, 250) and (release["x"], release["y"]) == (600, 400)
    assert len(moves) >= 5 and all(m["buttons"] == ["left"] for m in moves)
    assert screen.events[-1].kind == "drag"
    assert screen.events[-1].points == ((300, 250), (600, 400))


async def test_mouse_down_move_up_is_a_drag(screen: Screen, target: TargetApp) -> None:
    await screen.ok("mouse_move", coordinate=[250, 260])
    await screen.ok("left_mouse_down")
    await screen.ok("mouse_move", coordinate=[400, 300])
    await screen.ok("left_mouse_up")
    release = await target.next(lambda e: e["event"] == "release")
    assert (release["x"], release["y"]) == (400, 300)
    assert any(m["buttons"] == ["left"] for m in target.of("move"))


async def test_scroll_sends_wheel_notches(screen: Screen, target: TargetApp) -> None:
    result = await screen.ok(
        "scroll", coordinate=list(CANVAS), scroll_direction="down", scroll_amount=3
    )
    assert result.texts[0] == "Scrolled down."
    await target.settle()
    wheels = target.of("wheel")
    assert sum(w["dy"] for w in wheels) == -3
    assert all((w["x"], w["y"]) == CANVAS for w in wheels)
    target.clear()
    await screen.ok("scroll", coordinate=list(CANVAS), scroll_direction="left", scroll_amount=2)
    await target.settle()
    assert sum(w["dx"] for w in target.of("wheel")) == 2


async def test_scroll_amount_out_of_range_is_refused(screen: Screen, target: TargetApp) -> None:
    result = await screen("scroll", coordinate=list(CANVAS), scroll_direction="up", scroll_amount=0)
    assert result.is_error and result.text == errors.SCROLL_AMOUNT


async def test_point_outside_the_screenshot_is_refused_not_clamped(
    screen: Screen, target: TargetApp
) -> None:
    result = await screen("left_click", coordinate=[1280, 100])
    assert result.is_error and result.text == errors.OUTSIDE_SCREENSHOT
    await target.settle()
    assert target.of("press") == []


# --- keyboard ---------------------------------------------------------------------------------


async def test_type_non_ascii_and_shifted_characters_exactly(
    screen: Screen, target: TargetApp
) -> None:
    await screen.ok("left_click", coordinate=list(FIELD))
    result = await screen.ok("type", text=GREETING)
    assert result.texts == ["Typed."]
    await target.text(GREETING)
    assert screen.events[-1].kind == "type" and screen.events[-1].text == GREETING


async def test_type_many_characters_missing_from_the_layout(
    screen: Screen, target: TargetApp
) -> None:
    text = "€ ñ ç ø å æ ß ü ö ä é è à ł ő ű č ř š ž Ω λ π Ж я 日本"  # more than the spare keycodes
    await screen.ok("left_click", coordinate=list(FIELD))
    await screen.ok("type", text=text)
    await target.text(text)


async def test_keys_and_chords(screen: Screen, target: TargetApp) -> None:
    await screen.ok("left_click", coordinate=list(FIELD))
    await screen.ok("type", text="abc")
    await target.text("abc")
    await screen.ok("key", text="ctrl+a BackSpace")
    await target.text("")
    await screen.ok("key", text="shift+x", repeat=3)
    await target.text("XXX")
    await screen.ok("left_click", coordinate=list(CANVAS))
    result = await screen.ok("key", text="ctrl+shift+k")
    assert result.texts == ["Pressed ctrl+shift+k."]
    key = await target.next(lambda e: e["event"] == "key" and e["key"] == "K")
    assert key["modifiers"] == ["ctrl", "shift"]
    await screen.ok("key", text="Return")
    await target.next(lambda e: e["event"] == "key" and e["key"] == "Return")


async def test_unknown_key_name_is_a_fixed_phrase(screen: Screen, target: TargetApp) -> None:
    result = await screen("key", text="ctrl+Hyperdrive")
    assert result.is_error and result.text == errors.UNKNOWN_KEY


async def test_control_characters_are_not_typed(screen: Screen, target: TargetApp) -> None:
    await screen.ok("left_click", coordinate=list(FIELD))
    result = await screen("type", text="ok\x1b:q!")
    assert result.is_error and result.text == errors.CONTROL_CHARACTERS
    await target.settle()
    assert target.last_text() == ""


async def test_hold_key_holds_then_releases(screen: Screen, target: TargetApp) -> None:
    await screen.ok("left_click", coordinate=list(FIELD))
    result = await screen.ok("hold_key", text="shift", duration=1)
    assert result.texts == ["Held shift for 1s."]
    await screen.ok("type", text="a")
    await target.text("a")  # lower case: shift is up again


async def test_wait_and_its_bounds(screen: Screen) -> None:
    assert (await screen.ok("wait", duration=0)).texts == ["Waited 0s."]
    result = await screen("wait", duration=31)
    assert result.is_error and result.text == errors.DURATION


# --- Stop -------------------------------------------------------------------------------------


async def test_stop_takes_effect_between_keystrokes(screen: Screen, target: TargetApp) -> None:
    await screen.ok("left_click", coordinate=list(FIELD))
    text = "abcdefghij" * 30
    call = asyncio.create_task(screen("type", text=text))
    await target.next(lambda e: e["event"] == "text" and len(e["text"]) >= 10)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await target.settle()
    typed = target.last_text()
    assert 10 <= len(typed) < len(text) and text.startswith(typed)
    await asyncio.sleep(0.3)
    assert target.last_text() == typed  # nothing more arrives after Stop


async def test_stop_during_hold_key_releases_the_key(screen: Screen, target: TargetApp) -> None:
    await screen.ok("left_click", coordinate=list(FIELD))
    call = asyncio.create_task(screen("hold_key", text="shift", duration=30))
    await asyncio.sleep(0.5)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await screen.ok("type", text="b")
    await target.text("b")


async def test_stop_during_a_drag_releases_the_button(screen: Screen, target: TargetApp) -> None:
    call = asyncio.create_task(
        screen("left_click_drag", start_coordinate=[300, 250], coordinate=[700, 450])
    )
    await target.next(lambda e: e["event"] == "move")
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    release = await target.next(lambda e: e["event"] == "release")
    assert release["x"] < 700  # released where the drag was stopped, not at its end

"""The `screen` tool on a real session: see a Qt form and a GTK dialog, act on their elements by id,
wait for one, and pick windows by every kind of target.

The Qt form (tests/support/see_target.py) reports what reaches it, and its widgets' rectangles
come from Qt itself: bounds in a snapshot are checked against them, mapped to the screenshot of
the 1600×900 display (scaled to 1429×804, the computer tool's coordinates).
"""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from tests.support.desk import Desk, wait_accessible
from tests.support.see_target import SECRET
from tests.support.x11 import Zenity, gui_env
from tests.tools.screen.conftest import Elements
from tools.screen import errors
from tools.screen.a11y.atspi.reader import Accessibility
from tools.screen.geometry import Rect
from tools.screen.scaling import ImageFrame
from tools.screen.see.snapshot import shown_rect
from tools.screen.worker import ScreenWorker

pytestmark = pytest.mark.anyio

SCREEN = ImageFrame.for_region(0, Rect(0, 0, 1600, 900))
LINE = re.compile(
    r'^(?P<id>[BTLCRSMIGX]\d+) (?P<role>[a-z]+(?: [a-z]+)*)(?: "(?P<name>[^"]*)")?(?P<rest>.*?)'
    r"(?: \((?P<x>\d+),(?P<y>\d+) (?P<w>\d+)×(?P<h>\d+)\))?(?:, .*)?$"
)


def elements_of(text: str) -> dict[str, dict[str, str]]:
    """Element lines by name (the first line of each name)."""
    found: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        match = LINE.match(line)
        if match and match["name"] is not None:
            found.setdefault(match["name"], {**match.groupdict(), "line": line})
    return found


def bounds(element: dict[str, str]) -> Rect:
    return Rect(int(element["x"]), int(element["y"]), int(element["w"]), int(element["h"]))


# --- see --------------------------------------------------------------------------------------


async def test_see_lists_the_forms_controls_with_their_real_bounds(
    desk: Desk, elements: Elements
) -> None:
    result = await elements.ok("see", app="see_target.py")
    assert result.text.startswith("Snapshot s")
    found = elements_of(result.text)
    for name, letter, role in [
        ("Save", "B", "button"),
        ("Delete", "B", "button"),
        ("Name", "T", "text field"),
        ("Password", "T", "password field"),
        ("Fruit", "G", "list"),
    ]:
        element = found[name]
        assert element["id"].startswith(letter) and element["role"] == role, element
        assert bounds(element) == shown_rect(desk.widgets[name], SCREEN), name
    assert found["Save"]["id"] == "B1" and found["Delete"]["id"] == "B2"
    assert found["Name"]["id"] == "T1" and found["Password"]["id"] == "T2"
    assert found["Remember me"]["line"].startswith("C1 checkbox")
    assert "not checked" in found["Remember me"]["line"]
    assert "(secret" in found["Password"]["line"]
    assert SECRET not in result.text
    assert "(off-screen)" in found["Row 60" if "Row 60" in found else "Row 50"]["line"]


async def test_see_a_gtk_dialog_and_draw_the_ids(desk: Desk, elements: Elements) -> None:
    result = await elements.ok("see", title="Sign in", annotate=True)
    found = elements_of(result.text)
    assert found["Email"]["role"] == "text field" and found["Secret"]["role"] == "password field"
    assert found["OK"]["id"].startswith("B") and found["Cancel"]["id"].startswith("B")
    image = result.image
    assert image.size == (SCREEN.width, SCREEN.height)
    # The box round OK is drawn in the button's colour on its border.
    ok = bounds(found["OK"])
    assert image.getpixel((ok.x + ok.width // 2, ok.y + ok.height - 1)) == (220, 38, 38)


async def test_the_first_look_in_a_chat_asks_then_reads_do_not(elements: Elements) -> None:
    await elements.ok("windows")
    await elements.ok("see", app="zenity")
    first, second = elements.asked
    assert (first.risk, first.summary) == ("change", "Let Claude see your screen in this chat?")
    assert second.risk == "read" and second.summary == "See the elements of app 'zenity'"


# --- acting by id -----------------------------------------------------------------------------


async def test_click_by_id_presses_the_button_and_is_judged_by_it(
    desk: Desk, elements: Elements
) -> None:
    found = elements_of((await elements.ok("see", app="see_target.py")).text)
    await elements.ok("click", id=found["Save"]["id"])
    await desk.form.next(lambda e: e["event"] == "clicked" and e["name"] == "Save")
    save = elements.asked[-1]
    assert save.risk == "change" and save.summary == "Click B1 'Save' (button, see_target.py)"
    assert save.target == "see_target.py — See target"
    elements.answer = False
    refused = await elements("click", id=found["Delete"]["id"])
    assert refused.is_error
    delete = elements.asked[-1]
    assert delete.risk == "consequential" and "may delete" in delete.reason
    await desk.form.settle(0.2)
    assert not [e for e in desk.form.of("clicked") if e["name"] == "Delete"]


async def test_set_value_fills_a_field_and_never_a_password_field(
    desk: Desk, elements: Elements
) -> None:
    found = elements_of((await elements.ok("see", app="see_target.py")).text)
    result = await elements.ok("set_value", id=found["Name"]["id"], value="Ada Lovelace")
    assert result.text == (
        "Set T1 'Name' (text field, see_target.py) to 'Ada Lovelace'.\n"
        'Effect:\n~ text "Name": "" → "Ada Lovelace"'
    )
    await desk.form.text("Ada Lovelace")
    assert elements.asked[-1].risk == "change"
    asked = len(elements.asked)
    refused = await elements("set_value", id=found["Password"]["id"], value="hunter2")
    assert refused.is_error and refused.text == errors.SECURE_VALUE
    assert len(elements.asked) == asked  # refused before anyone was asked
    await desk.form.settle(0.2)
    assert not [e for e in desk.form.of("text") if e["name"] == "Password"]
    again = elements_of((await elements.ok("see", app="see_target.py")).text)
    assert 'T1 text field "Name" = "Ada Lovelace"' in again["Name"]["line"]


async def test_scroll_to_brings_a_row_below_the_fold_into_view(
    desk: Desk, elements: Elements
) -> None:
    found = elements_of((await elements.ok("see", app="see_target.py")).text)
    row = found["Row 45"]
    assert "(off-screen)" in row["line"]
    result = await elements.ok("scroll_to", id=row["id"])
    assert "into view" in result.text
    await desk.form.next(lambda e: e["event"] == "scrolled")
    assert elements.asked[-1].risk == "read"  # scrolling a list only moves the view
    now = elements_of((await elements.ok("see", app="see_target.py")).text)
    assert "(off-screen)" not in now["Row 45"]["line"]


async def test_scrolling_by_id_waits_for_the_persons_hand_and_is_then_not_done(
    desk: Desk, elements: Elements
) -> None:
    from tools.screen.hand import Hand

    hand = Hand(own_windows=list)
    elements.tool._access.hand_for = lambda _chat: hand
    found = elements_of((await elements.ok("see", app="see_target.py")).text)
    hidden = next(row for name, row in found.items() if "(off-screen)" in row["line"])
    desk.form.clear()
    hand.take_over()  # the person has the controls
    scrolling = asyncio.ensure_future(elements("scroll_to", id=hidden["id"]))
    await asyncio.sleep(0.8)
    assert not scrolling.done()
    hand.resume()
    result = await asyncio.wait_for(scrolling, 10)
    assert result.is_error and "The person took over the computer for" in result.text
    await desk.form.settle(0.3)
    assert not desk.form.of("scrolled")  # nothing planned before was sent
    hand.release()


async def test_an_id_from_a_window_that_moved_asks_to_see_again(
    desk: Desk, elements: Elements
) -> None:
    found = elements_of((await elements.ok("see", app="see_target.py")).text)

    async def move(x: int, y: int) -> None:
        mover = await asyncio.create_subprocess_exec(
            *["xdotool", "search", "--name", "See target", "windowmove", str(x), str(y)],
            env=gui_env(desk.display),
        )
        assert await asyncio.wait_for(mover.wait(), 10) == 0

    await move(30, 30)
    try:
        deadline = time.monotonic() + 5
        result = await elements("click", id=found["Save"]["id"])
        while not result.is_error and time.monotonic() < deadline:  # the move is asynchronous
            result = await elements("click", id=found["Save"]["id"])
        assert result.is_error and result.text == errors.STALE
        unknown = await elements("click", id="B1", snapshot="s999999")
        assert unknown.is_error and unknown.text == errors.NO_SNAPSHOT
    finally:
        await move(20, 20)
        await asyncio.sleep(0.3)


async def test_a_button_renamed_after_the_see_is_not_pressed(
    desk: Desk, elements: Elements
) -> None:
    found = elements_of((await elements.ok("see", app="see_target.py")).text)
    clicks = len(desk.form.of("clicked"))
    desk.form.send("rename Save Erase")
    await desk.form.next(lambda e: e["event"] == "renamed" and e["name"] == "Save")
    try:
        result = await elements("click", id=found["Save"]["id"])
        assert result.is_error and result.text == errors.STALE
        await desk.form.settle(0.2)
        assert len(desk.form.of("clicked")) == clicks
    finally:
        desk.form.send("rename Save Save")
        await desk.form.next(lambda e: e["event"] == "renamed" and e["to"] == "Save")


async def test_deskhands_own_windows_are_neither_listed_nor_acted_on(
    desk: Desk, accessibility: Accessibility, worker: ScreenWorker
) -> None:
    own = Elements(accessibility, worker, own_pids={desk.form.pid or 0})
    listed = await own.ok("windows")
    assert "See target" not in listed.text and "Sign in" in listed.text
    result = await own("see", app="see_target.py")
    assert result.is_error and "No open window belongs to an app named" in result.text


# --- wait -------------------------------------------------------------------------------------


async def test_wait_returns_as_soon_as_the_button_appears(desk: Desk, elements: Elements) -> None:
    await elements.ok("see", app="see_target.py")
    started = time.monotonic()
    desk.form.send("add Later 700")
    result = await elements.ok("wait", app="see_target.py", role="button", label="Later")
    added = await desk.form.next(lambda e: e["event"] == "added" and e["name"] == "Later")
    waited = float(re.search(r"appeared after ([0-9.]+) s", result.text)[1])  # type: ignore[index]
    assert waited >= 0.6  # it did wait for it
    noticed = started + waited
    assert noticed - added["t"] < 0.15, noticed - added["t"]
    later = elements_of(result.text)["Later"]
    assert f": {later['id']}." in result.text.splitlines()[0]
    assert bounds(later) == shown_rect(Rect(*added["rect"]), SCREEN)
    await elements.ok("click", id=later["id"])  # the wait's snapshot is the latest
    await desk.form.next(lambda e: e["event"] == "clicked" and e["name"] == "Later")
    gone = asyncio.create_task(
        elements("wait", app="see_target.py", label="Later", gone=True, timeout=5)
    )
    await asyncio.sleep(0.2)
    desk.form.send("remove Later")
    assert "disappeared after" in (await gone).text


async def test_wait_fails_at_its_timeout_with_what_it_last_saw(elements: Elements) -> None:
    started = time.monotonic()
    result = await elements("wait", app="see_target.py", role="button", label="Never", timeout=0.6)
    took = time.monotonic() - started
    assert result.is_error and result.text.startswith("Timed out: button 'Never' did not appear")
    assert 0.6 <= took < 1.5
    assert 'button "Save"' in result.text and 'button "Delete"' in result.text
    assert (await elements("wait", app="see_target.py")).text == errors.NEEDS_WHAT


# --- targets ----------------------------------------------------------------------------------


async def test_each_kind_of_target_picks_the_right_window(
    desk: Desk, elements: Elements, worker: ScreenWorker
) -> None:
    windows = await worker.windows()
    assert windows is not None
    form = next(w for w in windows if w.title == "See target")
    dialog = next(w for w in windows if w.title == "Sign in")

    async def subject(**target: object) -> str:
        text = (await elements.ok("see", **target)).text
        return text.split(":", 1)[0]

    assert str(form.id) in await subject(app="see_target.py")
    assert str(dialog.id) in await subject(app="Zenity")  # WM_CLASS works too
    assert str(dialog.id) in await subject(title="sign")
    assert str(form.id) in await subject(window_id=form.id)
    assert str(dialog.id) in await subject(app="zenity", window_index=0)
    assert (await subject(display=0)).endswith("of display 0")
    whole = (await elements.ok("see", display=0)).text
    assert '"Save"' in whole and '"OK"' in whole  # both windows' elements
    front = (await elements.ok("screenshot", window_id=dialog.id)).image
    assert front.size == (dialog.rect.width, dialog.rect.height)


async def test_no_match_or_several_list_the_candidates(elements: Elements) -> None:
    nothing = await elements("see", app="nothing-like-it")
    assert nothing.is_error
    assert "No open window belongs to an app named 'nothing-like-it'" in nothing.text
    assert '"See target"' in nothing.text and '"Sign in"' in nothing.text
    several = await elements("see", title="S")
    assert several.is_error and "Several windows' titles contain 'S'" in several.text
    assert '"See target"' in several.text and '"Sign in"' in several.text
    beyond = await elements("see", app="zenity", window_index=3)
    assert beyond.is_error and "has no window #3" in beyond.text


async def test_a_gtk_entry_filled_and_its_ok_pressed_by_id(desk: Desk, elements: Elements) -> None:
    dialog = Zenity(
        desk.display,
        ["--entry", "--title", "Rename", "--text", "New name", "--width", "320"],
        env=desk.bus.app_env(),
    )
    try:
        await asyncio.to_thread(wait_accessible, desk.bus, {dialog.pid})
        text = (await elements.ok("see", title="Rename")).text
        # The label "New name" names the field beside it too (its accessible relation).
        assert '\nT1 text field "New name"' in text and 'X1 label "New name"' in text
        ok = elements_of(text)["OK"]
        assert ok["role"] == "button"
        await elements.ok("set_value", id="T1", value="Grüße, Ωmega")
        await elements.ok("click", id=ok["id"])
        status, printed = await dialog.finished()
        assert (status, printed) == (0, "Grüße, Ωmega\n")
    finally:
        dialog.close()


# --- what the visualizer is told -----------------------------------------------------------------


def centre(rect: Rect) -> tuple[int, int]:
    return (rect.x + rect.width // 2, rect.y + rect.height // 2)


async def test_click_by_id_shows_a_ring_at_the_buttons_centre(
    desk: Desk, elements: Elements
) -> None:
    found = elements_of((await elements.ok("see", app="see_target.py")).text)
    elements.events.clear()
    await elements.ok("click", id=found["Save"]["id"])
    ((chat, event),) = elements.events
    assert chat == elements.session_id
    assert (event.kind, event.button, event.display) == ("click", "left", 0)
    assert event.points == (centre(desk.widgets["Save"]),)  # global, where the person sees it


async def test_set_value_shows_the_text_at_the_fields_centre(
    desk: Desk, elements: Elements
) -> None:
    found = elements_of((await elements.ok("see", app="see_target.py")).text)
    elements.events.clear()
    await elements.ok("set_value", id=found["Name"]["id"], value="Marie Curie")
    await desk.form.text("Marie Curie")
    ((_, event),) = elements.events
    assert (event.kind, event.text) == ("type", "Marie Curie")
    assert event.points == (centre(desk.widgets["Name"]),)


async def test_scroll_to_shows_a_scroll_over_the_list(desk: Desk, elements: Elements) -> None:
    found = elements_of((await elements.ok("see", app="see_target.py")).text)
    below = [int(name[4:]) for name, row in found.items() if name.startswith("Row ")]
    row = found[f"Row {max(below)}"]  # the last row listed is below the fold whatever was scrolled
    assert "(off-screen)" in row["line"]
    elements.events.clear()
    await elements.ok("scroll_to", id=row["id"])
    (first, *_rest) = [event for _, event in elements.events]
    assert (first.kind, first.text) == ("scroll", "down")
    assert first.points == (centre(desk.widgets["Fruit"]),)


async def test_refused_and_denied_actions_show_nothing(desk: Desk, elements: Elements) -> None:
    found = elements_of((await elements.ok("see", app="see_target.py")).text)
    elements.events.clear()
    refused = await elements("set_value", id=found["Password"]["id"], value="hunter2")
    assert refused.is_error
    elements.answer = False
    denied = await elements("click", id=found["Delete"]["id"])
    assert denied.is_error
    assert elements.events == []


async def test_screenshots_and_annotated_snapshots_hide_the_visualizer_while_capturing(
    elements: Elements,
) -> None:
    await elements.ok("see", app="see_target.py")
    assert elements.captures == []  # a plain snapshot reads no pixels
    await elements.ok("see", app="see_target.py", annotate=True)
    await elements.ok("screenshot", app="see_target.py")
    assert elements.captures == ["before", "after", "before", "after"]

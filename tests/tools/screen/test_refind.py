"""A screen call's target kept by meaning and found again, on a real X server through AT-SPI.

The Qt form of `tests/support/see_target.py` (titled "Notes") runs on a 1920×1200 Xvfb, so the
model's screenshots are scaled down and a found coordinate must be mapped the way `left_click`
maps it back. Each test records what a click acts on as the gate judges it, changes the form
(moves it, renames a button, adds one late or twice), finds the target again through the
driver, and clicks there through the driver, checking what the form itself says reached it and
the exact text the model reads.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from anthropic.types.beta import BetaToolUseBlock

from tests.support.atspi import SessionBus, atspi_missing
from tests.support.desk import wait_accessible
from tests.support.see_target import SECRET
from tests.support.x11 import TargetApp, Xvfb, xvfb_missing
from tests.tools.screen.conftest import Screen
from tools.meaning import Found, TargetMeaning
from tools.screen.a11y.atspi.watching import AtspiWatchingInspector, RefreshingAccessibility
from tools.screen.a11y.find import NO_ACCESSIBILITY
from tools.screen.geometry import Point, Rect
from tools.screen.refind import UNKNOWN
from tools.screen.scaling import ImageFrame
from tools.screen.worker import ScreenWorker
from tools.toolset_driver import Judged

pytestmark = pytest.mark.anyio

SIZE = (1920, 1200)  # larger than a screenshot may be: the model's points are scaled
FORM_RECT = (100, 100, 620, 440)
TITLE = "Notes"
APP = "see_target.py"  # the name Qt gives the form on the accessibility bus
BOX = TargetMeaning(app=APP, window=TITLE, role="check box", name="Remember me")
SAVE = TargetMeaning(app=APP, window=TITLE, role="push button", name="Save")


@dataclass
class Form:
    app: TargetApp
    widgets: dict[str, Rect]

    def moved_to(self, x: int, y: int) -> dict[str, Rect]:
        self.app.clear()
        self.app.send(f"move {x} {y}")
        return self.widgets_of("moved")

    def widgets_of(self, event: str) -> dict[str, Rect]:
        deadline = time.monotonic() + 10
        while not self.app.of(event):
            assert time.monotonic() < deadline, f"the form never reported {event}"
            time.sleep(0.02)
        return {name: Rect(*rect) for name, rect in self.app.of(event)[-1]["widgets"].items()}


@pytest.fixture(scope="module")
def session() -> Iterator[tuple[str, SessionBus]]:
    missing = xvfb_missing() or atspi_missing()
    if missing:
        pytest.skip(missing)
    with Xvfb(*SIZE) as server, SessionBus(server.display) as bus:
        yield server.display, bus


@pytest.fixture
def form(session: tuple[str, SessionBus]) -> Iterator[Form]:
    """A fresh form for every test: one test's moves and renames are not the next one's start."""
    display, bus = session
    app = TargetApp(
        display, FORM_RECT, module="tests.support.see_target", args=(TITLE,), env=bus.app_env()
    )
    app.start()
    try:
        made = Form(app, {})
        made.widgets = made.widgets_of("ready")
        wait_accessible(bus, {app.pid or 0})
        yield made
    finally:
        app.close()


@pytest.fixture
async def screen(anyio_backend: str, session: tuple[str, SessionBus]) -> AsyncIterator[Screen]:
    from tools.screen.backends.x11.backend import X11Backend

    display, bus = session
    accessibility = RefreshingAccessibility(session=bus.address)
    worker = ScreenWorker(lambda: X11Backend(display))
    made = Screen(display, inspector=AtspiWatchingInspector(accessibility, worker, own_pids={1}))
    yield made
    await made.toolset.close()
    await worker.close()
    await accessibility.close()


def centre(rect: Rect) -> Point:
    return Point(rect.x + rect.width // 2, rect.y + rect.height // 2)


def shown(point: Point) -> list[int]:
    """Where the model sees a global point on a screenshot of the whole (scaled) display."""
    frame = ImageFrame.for_region(0, Rect(0, 0, *SIZE))
    image = frame.to_image(point)
    return [image.x, image.y]


async def judged(screen: Screen, member: str, **input: Any) -> Judged:
    """The call as the gate judges it before it runs (what the card keeps)."""
    use = BetaToolUseBlock(
        type="tool_use", id="toolu_judged", name=member, input=input, toolset_name="computer"
    )
    return await screen.toolset.judge(screen.toolset.context_of(use))


async def test_a_click_keeps_its_target_by_meaning_typing_the_focused_field_a_drag_its_drop(
    form: Form, screen: Screen
) -> None:
    await screen.ok("screenshot")
    box = await judged(screen, "left_click", coordinate=shown(centre(form.widgets["Remember me"])))
    assert box.meaning == BOX
    # A password field is kept by its role and label; its text is never read.
    await screen.ok("left_click", coordinate=shown(centre(form.widgets["Password"])))
    typing = await judged(screen, "type", text="x")
    assert typing.meaning == TargetMeaning(
        app=APP, window=TITLE, role="password text", name="Password", secret=True
    )
    assert SECRET not in typing.model_dump_json()
    # A drag is kept by where it drops (its `coordinate`, what a replay finds again).
    drag = await judged(
        screen,
        "left_click_drag",
        start_coordinate=shown(centre(form.widgets["Name"])),
        coordinate=shown(centre(form.widgets["Remember me"])),
    )
    assert drag.meaning == BOX
    # Looking acts on no element; a move of the pointer neither.
    assert (await judged(screen, "screenshot")).meaning is None
    assert (await judged(screen, "mouse_move", coordinate=[10, 10])).meaning is None


async def test_found_again_after_the_window_moved_and_a_click_there_checks_the_box(
    form: Form, screen: Screen
) -> None:
    await screen.ok("screenshot")
    was = shown(centre(form.widgets["Remember me"]))
    recorded = (await judged(screen, "left_click", coordinate=was)).meaning
    assert recorded == BOX
    before = await screen.toolset.find_again(recorded, within=5)
    box = form.moved_to(900, 600)["Remember me"]

    found = await screen.toolset.find_again(recorded, within=5)
    assert found.count == 1 and found.why == ""
    frame = ImageFrame.for_region(0, Rect(0, 0, *SIZE))
    point = frame.to_global(Point(*found.input["coordinate"]))
    assert box.contains(point)
    # The element's centre moved with its window (give or take a screenshot pixel's rounding).
    then = frame.to_global(Point(*before.input["coordinate"]))
    moved = (point.x - then.x, point.y - then.y)
    assert abs(moved[0] - (900 - 100)) <= 2 and abs(moved[1] - (600 - 100)) <= 2, moved

    clicked = await screen.ok("left_click", **found.input)
    assert clicked.texts == [
        "Clicked.",
        f"Display 0, local ({point.x}, {point.y}), global ({point.x}, {point.y}).",
        'Effect:\n~ checkbox "Remember me": checked',
    ]
    assert form.app.of("checked")[-1]["checked"] is True


async def test_a_renamed_button_is_not_found_and_says_so(form: Form, screen: Screen) -> None:
    form.app.send("rename Save Send")
    await form.app.next(lambda e: e["event"] == "renamed", what="renamed")
    started = time.monotonic()
    found = await screen.toolset.find_again(SAVE, within=0.4)
    assert time.monotonic() - started >= 0.4  # it waited for it before giving up
    assert found == Found(count=0, why="No button “Save” in Notes.")
    assert not found.found


async def test_a_button_that_appears_late_is_waited_for_and_pressed(
    form: Form, screen: Screen
) -> None:
    later = TargetMeaning(app=APP, window=TITLE, role="push button", name="Later")
    form.app.send("add Later 700")
    started = time.monotonic()
    found = await screen.toolset.find_again(later, within=10)
    waited = time.monotonic() - started
    assert found.found, found.why
    assert 0.6 <= waited < 5, waited
    added = Rect(*form.app.of("added")[-1]["rect"])
    assert found.input == {"coordinate": shown(centre(added))}
    await screen.ok("left_click", **found.input)
    await form.app.next(lambda e: e.get("name") == "Later" and e["event"] == "clicked")


async def test_twice_the_same_button_is_not_guessed(form: Form, screen: Screen) -> None:
    form.app.send("add Save 0")
    await form.app.next(lambda e: e["event"] == "added", what="added")
    found = await screen.toolset.find_again(SAVE, within=0.2)
    assert found == Found(
        count=2, why="2 matches for the button “Save” in Notes, and nothing tells them apart."
    )


async def test_another_title_falls_back_to_the_apps_only_window_and_a_missing_app_says_so(
    form: Form, screen: Screen
) -> None:
    retitled = SAVE.model_copy(update={"window": "Untitled"})
    found = await screen.toolset.find_again(retitled, within=2)
    assert found.input == {"coordinate": shown(centre(form.widgets["Save"]))}
    gone = SAVE.model_copy(update={"app": "ledger.py"})
    assert await screen.toolset.find_again(gone, within=0.1) == Found(why="ledger.py is not open.")


async def test_a_button_under_another_window_is_not_clicked_through_it(
    form: Form, screen: Screen, session: tuple[str, SessionBus]
) -> None:
    display, bus = session
    save = form.widgets["Save"]
    cover = TargetApp(
        display,
        (save.x - 10, save.y - 10, 200, 80),
        module="tests.support.see_target",
        args=("Cover",),
        env=bus.app_env(),
    )
    cover.start()
    try:
        await cover.ready()
        found = await screen.toolset.find_again(SAVE, within=0.3)
        assert found == Found(
            count=1, why="The button “Save” in Notes is covered by another window."
        )
    finally:
        cover.close()


async def test_nothing_to_look_with_or_for_says_so(
    screen: Screen, session: tuple[str, SessionBus]
) -> None:
    bare = Screen(session[0])  # its inspector only answers what a test sets: it cannot look
    try:
        assert await bare.toolset.find_again(SAVE, within=1) == Found(why=NO_ACCESSIBILITY)
    finally:
        await bare.toolset.close()
    assert await screen.toolset.find_again(TargetMeaning(app=APP), within=1) == Found(why=UNKNOWN)


async def test_two_buttons_alike_are_told_apart_by_the_group_holding_them(
    form: Form, screen: Screen
) -> None:
    form.app.send("group Shipping Save")
    # One command at a time: the form reads a line each time its input becomes readable.
    await form.app.next(lambda e: e.get("group") == "Shipping", what="the first group")
    form.app.send("group Billing Save")
    await form.app.next(lambda e: e.get("group") == "Billing", what="the second group")
    billing = Rect(*form.app.of("grouped")[-1]["rect"])
    await screen.ok("screenshot")
    recorded = (await judged(screen, "left_click", coordinate=shown(centre(billing)))).meaning
    assert recorded == SAVE.model_copy(update={"near": "Billing"})

    # Three buttons "Save" now (the form's own one too): the group tells which one.
    found = await screen.toolset.find_again(recorded, within=2)
    assert found.input == {"coordinate": shown(centre(billing))}
    await screen.ok("left_click", **found.input)
    await form.app.next(lambda e: e.get("group") == "Billing" and e["event"] == "clicked")
    assert [e.get("group") for e in form.app.of("clicked")] == ["Billing"]
    # Recorded in a group that is not there: nothing tells the three apart.
    elsewhere = recorded.model_copy(update={"near": "Returns"})
    assert await screen.toolset.find_again(elsewhere, within=0.1) == Found(
        count=3, why="3 matches for the button “Save” in Notes, and nothing tells them apart."
    )


async def test_a_button_past_its_windows_edge_is_not_clicked_where_it_is_not(
    form: Form, screen: Screen
) -> None:
    # The seventh added button sits below the form's bottom edge: Qt still says it shows.
    for number in range(7):
        form.app.send(f"add Extra{number} 0")
        await form.app.next(lambda e, n=number: e.get("name") == f"Extra{n}", what="added")
    extra = TargetMeaning(app=APP, window=TITLE, role="push button", name="Extra6")
    assert await screen.toolset.find_again(extra, within=0.2) == Found(
        count=1, why="The button “Extra6” in Notes is past the edge of its window."
    )


async def test_with_two_windows_neither_titled_as_recorded_none_is_guessed(
    form: Form, screen: Screen, session: tuple[str, SessionBus]
) -> None:
    display, bus = session
    drafts = TargetApp(
        display,
        (900, 100, 620, 440),
        module="tests.support.see_target",
        args=("Drafts",),
        env=bus.app_env(),
    )
    drafts.start()
    try:
        await drafts.ready()
        await asyncio.to_thread(wait_accessible, bus, {drafts.pid or 0})
        # By its own title each is found; the save in "Drafts" is not the one in "Notes".
        in_drafts = await screen.toolset.find_again(
            SAVE.model_copy(update={"window": "Drafts"}), within=2
        )
        ready = Rect(*drafts.of("ready")[0]["widgets"]["Save"])
        assert in_drafts.input == {"coordinate": shown(centre(ready))}
        retitled = SAVE.model_copy(update={"window": "Report"})
        assert await screen.toolset.find_again(retitled, within=0.1) == Found(
            why="see_target.py has no window “Report”, and 2 others."
        )
    finally:
        drafts.close()

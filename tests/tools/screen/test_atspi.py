"""AT-SPI on a real session: a Qt form and a GTK dialog read over D-Bus, and the screen gate judging
clicks and keys by the element they really affect.

The Qt form (tests/support/see_target.py) reports what reaches it; its widgets' rectangles come
from Qt itself, so every bound read over AT-SPI is checked against the widget's real geometry.
"""

from __future__ import annotations

import time

import pytest

from tests.support.desk import Desk
from tests.support.see_target import SECRET
from tests.tools.screen.conftest import Screen
from tools.screen import errors
from tools.screen.a11y.atspi.reader import Accessibility, AtspiInspector, accessibility_status
from tools.screen.geometry import Point, Rect
from tools.screen.scaling import ImageFrame
from tools.screen.windows import Window
from tools.screen.worker import ScreenWorker

pytestmark = pytest.mark.anyio


SCREEN = ImageFrame.for_region(0, Rect(0, 0, 1600, 900))  # screenshots of the desk: scaled


def centre(rect: Rect) -> Point:
    return Point(rect.x + rect.width // 2, rect.y + rect.height // 2)


def on_screenshot(rect: Rect) -> list[int]:
    """The screenshot pixel a click must name to land in the middle of `rect`."""
    return list(SCREEN.to_image(centre(rect)))


async def window_titled(worker: ScreenWorker, title: str) -> Window:
    windows = await worker.windows()
    assert windows is not None
    return next(w for w in windows if w.title == title)


async def test_the_status_says_accessibility_answers(desk: Desk) -> None:
    assert (await accessibility_status(desk.bus.address)).available
    missing = await accessibility_status("unix:path=/nonexistent/bus")
    assert not missing.available and "not running" in missing.reason


async def test_the_apps_and_their_processes(
    desk: Desk, accessibility: Accessibility, worker: ScreenWorker
) -> None:
    apps = {app.name: app for app in await accessibility.apps()}
    form = await window_titled(worker, "See target")
    assert apps["see_target.py"].pid == form.pid == desk.form.pid
    assert apps["zenity"].pid is not None


async def test_the_forms_tree_with_real_bounds(
    desk: Desk, accessibility: Accessibility, worker: ScreenWorker
) -> None:
    found = await accessibility.frame_of(await window_titled(worker, "See target"))
    assert found is not None
    _, frame = found
    nodes, cut = await accessibility.tree([frame.ref])
    by_name = {node.name: node for node in nodes}
    for name, role in [
        ("Save", "push button"),
        ("Delete", "push button"),
        ("Name", "text"),
        ("Password", "password text"),
        ("Fruit", "list"),
    ]:
        assert by_name[name].role == role
        assert by_name[name].bounds == desk.widgets[name], name
    # A check box's accessible box is its indicator and text, inside the widget.
    check = by_name["Remember me"]
    assert check.role == "check box" and check.bounds is not None
    assert check.bounds.intersection(desk.widgets["Remember me"]) == check.bounds
    assert by_name["Password"].secure and by_name["Password"].value is None
    assert all(SECRET not in (node.value or "") + node.name for node in nodes)
    # Reading order: the buttons, then the fields, then the list and its rows.
    names = [node.name for node in nodes if node.listed]
    assert names.index("Save") < names.index("Delete") < names.index("Name") < names.index("Row 1")
    # The list has 60 rows: 50 are read (the limit a node), the ones below its fold off-screen.
    rows = [node for node in nodes if node.role == "list item"]
    assert len(rows) == 50 and cut
    assert rows[0].showing and not rows[-1].showing


async def test_the_gtk_dialogs_tree(
    desk: Desk, accessibility: Accessibility, worker: ScreenWorker
) -> None:
    found = await accessibility.frame_of(await window_titled(worker, "Sign in"))
    assert found is not None
    app, frame = found
    assert app.name == "zenity" and frame.bounds is not None
    assert frame.bounds.overlap(desk.dialog_rect) > 0.9
    nodes, _ = await accessibility.tree([frame.ref])
    fields = [node for node in nodes if node.kind == "T"]
    # The fields have no names of their own: the labels beside them name them.
    assert sorted((f.role, f.name) for f in fields) == [
        ("password text", "Secret"),
        ("text", "Email"),
    ]
    buttons = [node.name for node in nodes if node.kind == "B"]
    assert "OK" in buttons and "Cancel" in buttons
    for node in fields:
        assert node.bounds is not None and desk.dialog_rect.intersection(node.bounds) == node.bounds


async def test_the_element_under_a_point_and_the_focused_one(
    desk: Desk, accessibility: Accessibility, worker: ScreenWorker
) -> None:
    inspector = AtspiInspector(accessibility, worker, own_pids={1})
    save = await inspector.element_at(centre(desk.widgets["Save"]))
    assert save is not None
    assert (save.role, save.name, save.app) == ("push button", "Save", "see_target.py")
    assert save.bounds == desk.widgets["Save"] and save.enabled
    secret = await inspector.element_at(centre(desk.widgets["Password"]))
    assert secret is not None and secret.secure
    row = await inspector.element_at(
        Point(desk.widgets["Fruit"].x + 20, desk.widgets["Fruit"].y + 5)
    )
    assert row is not None and (row.role, row.name) == ("list item", "Row 1")
    # Nothing of an app's own windows is looked into (the form stands for Deskhand here).
    own = AtspiInspector(accessibility, worker, own_pids={desk.form.pid or 0})
    assert await own.element_at(centre(desk.widgets["Save"])) is None
    # Off every window: nothing.
    assert await inspector.element_at(Point(1590, 890)) is None


async def test_looking_is_quick(
    desk: Desk, accessibility: Accessibility, worker: ScreenWorker
) -> None:
    inspector = AtspiInspector(accessibility, worker, own_pids={1})
    await inspector.element_at(centre(desk.widgets["Save"]))  # connected, apps known
    started = time.perf_counter()
    for _ in range(5):
        await inspector.element_at(centre(desk.widgets["Delete"]))
    each = (time.perf_counter() - started) / 5
    assert each < 0.25, each  # the gate asks this before every click


# --- the screen gate with the real inspector ---------------------------------------------------


@pytest.fixture
async def gated(desk: Desk, accessibility: Accessibility, worker: ScreenWorker) -> Screen:
    screen = Screen(desk.display, inspector=AtspiInspector(accessibility, worker, own_pids={1}))
    yield screen  # type: ignore[misc]
    await screen.toolset.close()


async def test_a_click_on_an_ordinary_button_is_a_change_and_on_delete_consequential(
    desk: Desk, gated: Screen
) -> None:
    await gated.ok("screenshot")
    await gated.ok("left_click", coordinate=on_screenshot(desk.widgets["Save"]))
    await desk.form.next(lambda e: e["event"] == "clicked" and e["name"] == "Save")
    gated.gate.answer = False  # asked, and denied: nothing happens
    result = await gated("left_click", coordinate=on_screenshot(desk.widgets["Delete"]))
    assert result.is_error
    _, save, delete = gated.gate.described
    assert save[0] == "change" and "'Save' (push button, see_target.py)" in save[1]
    assert delete[0] == "consequential" and "'Delete'" in delete[1]
    await desk.form.settle(0.2)
    assert not [e for e in desk.form.of("clicked") if e["name"] == "Delete"]


async def test_typing_is_judged_by_the_focused_field_and_refused_in_a_password_field(
    desk: Desk, gated: Screen
) -> None:
    await gated.ok("screenshot")
    await gated.ok("left_click", coordinate=on_screenshot(desk.widgets["Name"]))
    await gated.ok("key", text="ctrl+a")
    await gated.ok("type", text="Ada")
    await desk.form.next(lambda e: e["event"] == "text" and e["text"] == "Ada")
    typing = gated.gate.described[-1]
    assert typing[0] == "change" and typing[2] == "Type 'Ada' into 'Name' (text, see_target.py)"
    await gated.ok("left_click", coordinate=on_screenshot(desk.widgets["Password"]))
    asked = len(gated.gate.asked)
    result = await gated("type", text="hunter2")
    assert result.is_error and result.text == errors.SECURE_FIELD
    assert len(gated.gate.asked) == asked  # refused before anyone was asked
    await desk.form.settle(0.2)
    assert not [e for e in desk.form.of("text") if e["name"] == "Password"]

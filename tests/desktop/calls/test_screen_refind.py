"""The screen as the app sets it up keeps a click's target by meaning on the call's description
(what the card and a routine's step keep), and its source finds that target again.

On the desk of tests/support/desk.py (a Qt form titled "See target" and a GTK dialog on a
private session bus), with the app's own `ScreenControl` reading DISPLAY and the session bus
from the environment as it does when started from a desktop; calls go through the source's own
describe and run, as the pipeline sends them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.calls.contract import CallContext, ToolUse
from desktop.calls.permissions import Decision
from desktop.calls.sources.screen.source import ScreenControl
from tests.support.desk import Desk, running_desk
from tools.meaning import Found, TargetMeaning
from tools.screen.geometry import Point, Rect
from tools.screen.scaling import ImageFrame

SCREEN = ImageFrame.for_region(0, Rect(0, 0, 1600, 900))  # the desk's display, scaled
SAVE = TargetMeaning(app="see_target.py", window="See target", role="push button", name="Save")


@pytest.fixture(scope="module")
def desk() -> Iterator[Desk]:
    with running_desk() as made:
        yield made


@pytest.fixture
def on_desk(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> Desk:
    monkeypatch.setenv("DISPLAY", desk.display)
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", desk.bus.address)
    monkeypatch.delenv("AT_SPI_BUS_ADDRESS", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    return desk


def shot_point(rect: Rect) -> list[int]:
    return list(SCREEN.to_image(Point(rect.x + rect.width // 2, rect.y + rect.height // 2)))


def test_a_clicks_description_keeps_its_target_and_the_source_finds_it_again(
    on_desk: Desk, tmp_path: Path
) -> None:
    async def allow(_call: Any) -> Decision:
        return Decision(verdict="allow", by="person")

    async def go() -> tuple[Any, Found, Found]:
        control = ScreenControl(enabled=lambda: True)
        await control.start()
        source = control.source()
        try:
            ctx = CallContext(session_id=1, attachments_dir=tmp_path, approve=allow)
            shot = ToolUse(id="toolu_shot", name="screenshot", input={}, toolset_name="computer")
            looked = await source.run(shot, await source.describe(shot, 1), ctx)
            assert not looked.is_error
            click = ToolUse(
                id="toolu_click",
                name="left_click",
                input={"coordinate": shot_point(on_desk.widgets["Save"])},
                toolset_name="computer",
            )
            call = await source.describe(click, 1)
            found = await source.find_again(1, call.meaning, within=2)
            renamed = SAVE.model_copy(update={"name": "Send"})
            missing = await source.find_again(1, renamed, within=0.1)
            return call, found, missing
        finally:
            await control.close()

    call, found, missing = asyncio.run(go())
    assert call.meaning == SAVE
    assert found == Found(input={"coordinate": shot_point(on_desk.widgets["Save"])}, count=1)
    assert missing == Found(why="No button “Send” in See target.")
    assert not on_desk.form.of("clicked")  # described and found, never clicked


def test_a_click_through_the_source_says_what_it_changed(on_desk: Desk, tmp_path: Path) -> None:
    """The source's inspector watches the window a click acts on, as the driver's own does: the
    result the model reads ends with the `Effect:` lines a routine compares its replay with."""

    async def allow(_call: Any) -> Decision:
        return Decision(verdict="allow", by="person")

    box = on_desk.widgets["Remember me"]

    async def go() -> list[Any]:
        control = ScreenControl(enabled=lambda: True)
        await control.start()
        source = control.source()
        try:
            ctx = CallContext(session_id=1, attachments_dir=tmp_path, approve=allow)
            shot = ToolUse(id="toolu_look", name="screenshot", input={}, toolset_name="computer")
            await source.run(shot, await source.describe(shot, 1), ctx)
            click = ToolUse(
                id="toolu_box",
                name="left_click",
                input={"coordinate": shot_point(box)},
                toolset_name="computer",
            )
            result = await source.run(click, await source.describe(click, 1), ctx)
            return list(result.content)
        finally:
            await control.close()

    content = asyncio.run(go())
    point = SCREEN.to_global(Point(*shot_point(box)))
    assert content == [
        {"type": "text", "text": "Clicked."},
        {"type": "text", "text": f"Display 0, local ({point.x}, {point.y}), global ({point.x}, {point.y})."},
        {"type": "text", "text": 'Effect:\n~ checkbox "Remember me": checked'},
    ]  # fmt: skip
    assert on_desk.form.of("checked")[-1]["checked"] is True

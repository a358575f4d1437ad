"""The screen as the app sets it up: where AT-SPI answers, every chat's computer toolset is judged by
the real element, and the `screen` tool is offered and shares the chat's first look.

On the desk of tests/support/desk.py (a Qt form and a GTK dialog on a private session bus), with
the app's own `ScreenControl` reading DISPLAY and the session bus from the environment as it does
when started from a desktop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anthropic.tools.computer import BetaComputerConfirmContext
from anthropic.types.beta import BetaToolUseBlock

from desktop.calls.sources.screen.source import ScreenControl
from tests.support.desk import Desk, running_desk
from tools.screen.geometry import Point, Rect
from tools.screen.scaling import ImageFrame

SCREEN = ImageFrame.for_region(0, Rect(0, 0, 1600, 900))


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


def test_every_chats_screen_is_judged_by_the_element_and_the_screen_tool_is_offered(
    on_desk: Desk,
) -> None:
    async def go() -> list[tuple[str, str, str]]:
        control = ScreenControl(enabled=lambda: True)
        await control.start()
        described: list[tuple[str, str, str]] = []
        try:
            assert control.elements.status is not None and control.elements.status.available
            assert control.elements.tool.offered()

            async def confirm(context: BetaComputerConfirmContext) -> bool:
                judged = await chat.judge(context)
                described.append((judged.risk, judged.reason, judged.summary))
                return context.member == "screenshot"

            chat = control.for_session(1, confirm)
            uses: list[dict[str, Any]] = [
                {"name": "screenshot", "input": {}},
                {"name": "left_click", "input": {"coordinate": shot_point(on_desk.widgets["Delete"])}},
                {"name": "left_click", "input": {"coordinate": shot_point(on_desk.widgets["Save"])}},
            ]  # fmt: skip
            for number, use in enumerate(uses):
                block = BetaToolUseBlock(
                    type="tool_use", id=f"toolu_{number}", toolset_name="computer", **use
                )
                await chat.tool_result(block)
            # The first look was the computer tool's: the `screen` tool does not ask again.
            assert control.seen(1) and not control.seen(2)
            control.saw(2)
            assert control.for_session(2, confirm).seen
        finally:
            await control.close()
        return described

    first_look, delete, save = asyncio.run(go())
    assert first_look[2] == "Let Claude see your screen in this chat?"
    assert delete[0] == "consequential"
    assert "'Delete' (push button, see_target.py)" in delete[2]
    assert save[0] == "change" and "'Save' (push button, see_target.py)" in save[2]
    assert not on_desk.form.of("clicked")  # both were denied


def test_without_an_accessibility_bus_clicks_ask_and_the_tool_is_not_offered(
    on_desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")

    async def go() -> tuple[bool, bool]:
        control = ScreenControl(enabled=lambda: True)
        await control.start()
        try:
            assert control.available  # the screen itself works
            point = Point(on_desk.widgets["Save"].x + 5, on_desk.widgets["Save"].y + 5)
            return control.elements.tool.offered(), await control.elements.element_at(point) is None
        finally:
            await control.close()

    offered, unknown = asyncio.run(go())
    assert not offered and unknown


def test_the_screen_tools_clicks_reach_the_visualizer_through_the_hooks(on_desk: Desk) -> None:
    """What the window's visualizer listens to (`ScreenHooks`): the `screen` tool's click by id
    arrives as the toolset's would, for its chat, at the button's centre; its captures call the
    window's hide and show hooks."""
    from desktop.calls.contract import CallContext, ToolUse
    from desktop.calls.permissions import Decision
    from desktop.calls.sources.function_tools import FunctionTools
    from desktop.calls.sources.screen.hooks import ScreenHooks
    from tools.base import ToolRegistry

    hooks = ScreenHooks()
    heard: list[tuple[int, Any]] = []
    hidden: list[str] = []
    hooks.listeners.append(lambda chat, event: heard.append((chat, event)))
    hooks.before_capture = lambda: hidden.append("hide")
    hooks.after_capture = lambda: hidden.append("show")

    async def go() -> list[str]:
        control = ScreenControl(enabled=lambda: True, hooks=hooks)
        await control.start()
        source = FunctionTools(ToolRegistry([control.elements.tool]))

        async def allow(_asked: Any) -> Decision:
            return Decision(verdict="allow", by="person")

        texts = []
        try:
            for number, input in enumerate(
                [
                    {"action": "see", "app": "see_target.py", "annotate": True},
                    {"action": "click", "id": "B1"},
                ]
            ):
                use = ToolUse(id=f"toolu_{number}", name="screen", input=input)
                call = await source.describe(use, 3)
                ctx = CallContext(session_id=3, attachments_dir=Path("/nonexistent"), approve=allow)
                result = await source.run(use, call, ctx)
                assert not result.is_error, result.content
                texts.append(str(result.content[0]))
        finally:
            await control.close()
        return texts

    asyncio.run(go())
    save = on_desk.widgets["Save"]
    ((chat, event),) = heard
    assert chat == 3 and event.kind == "click"
    assert event.points == (Point(save.x + save.width // 2, save.y + save.height // 2),)
    assert hidden == ["hide", "show"]  # around the annotated snapshot's capture

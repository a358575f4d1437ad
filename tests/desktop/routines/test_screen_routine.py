"""A screen task as a routine, through the real agent on a real X server with real AT-SPI: the
click is recorded with its target by meaning and its effect, and replayed without the model on
a window that opened elsewhere since, where the recorded point holds nothing.

The Qt form of `tests/support/see_target.py` ("Notes") on a 1920×1200 Xvfb (the model's
screenshots are scaled); the scripted model looks, clicks "Remember me" and answers.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.routines.model import RunReport
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support.atspi import SessionBus, atspi_missing
from tests.support.desk import wait_accessible
from tests.support.model_server import ScriptedModelServer, computer_use, text_reply, tool_reply
from tests.support.turns import send
from tests.support.x11 import TargetApp, Xvfb, xvfb_missing
from tools.meaning import TargetMeaning
from tools.screen.geometry import Point, Rect
from tools.screen.scaling import ImageFrame

SIZE = (1920, 1200)
SHOT = ImageFrame.for_region(0, Rect(0, 0, *SIZE))
TASK = "Tick Remember me in Notes"
BOX = TargetMeaning(app="see_target.py", window="Notes", role="check box", name="Remember me")
CHECKED = '~ checkbox "Remember me": checked'


@pytest.fixture(scope="module")
def session() -> Iterator[tuple[str, SessionBus]]:
    missing = xvfb_missing() or atspi_missing()
    if missing:
        pytest.skip(missing)
    with Xvfb(*SIZE) as server, SessionBus(server.display) as bus:
        yield server.display, bus


@pytest.fixture
def screen_ws(
    data_dir: Path,
    api_env: ScriptedModelServer,
    session: tuple[str, SessionBus],
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Workspace]:
    display, bus = session
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("AT_SPI_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("DISPLAY", display)
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus.address)
    data_dir.mkdir(parents=True)
    settings = {"model": {"max_retries": 0}, "browser": {"enabled": False}}
    (data_dir / "settings.json").write_text(json.dumps(settings))
    ws = Workspace.open(data_dir)
    ws.live.set_mode(Mode.AUTONOMOUS)
    yield ws
    ws.store.close()


def open_form(session: tuple[str, SessionBus], x: int, y: int) -> tuple[TargetApp, Rect]:
    """A fresh "Notes" form at (x, y), and where its "Remember me" box is."""
    display, bus = session
    form = TargetApp(
        display, (x, y, 620, 440), module="tests.support.see_target", args=("Notes",), env=bus.app_env()
    )  # fmt: skip
    form.start()
    deadline = time.monotonic() + 20
    while not form.of("ready"):
        assert time.monotonic() < deadline, "the form never reported ready"
        time.sleep(0.02)
    wait_accessible(bus, {form.pid or 0})
    return form, Rect(*form.of("ready")[0]["widgets"]["Remember me"])


def shown(rect: Rect) -> list[int]:
    point = SHOT.to_image(Point(rect.x + rect.width // 2, rect.y + rect.height // 2))
    return [point.x, point.y]


async def with_screen(ws: Workspace, work: Any) -> Any:
    await ws.toolbox.screen_source.start()
    try:
        return await work
    finally:
        await ws.toolbox.close()
        await ws.agent.close()


def test_a_screen_click_replays_on_a_window_that_moved_without_the_model(
    screen_ws: Workspace, model_server: ScriptedModelServer, session: tuple[str, SessionBus]
) -> None:
    form, box = open_form(session, 100, 100)
    try:
        model_server.enqueue(
            tool_reply(computer_use("screenshot")),
            tool_reply(computer_use("left_click", coordinate=shown(box))),
            text_reply("Remember me is ticked."),
        )
        chat = screen_ws.store.create_session().id
        asyncio.run(with_screen(screen_ws, send(screen_ws.conversations, chat, TASK)))
        assert form.of("checked")[-1]["checked"] is True
    finally:
        form.close()

    draft = screen_ws.routines.draft()
    assert draft.refusal == ""
    click = next(step for step in draft.steps if step.member == "left_click")
    assert click.target == BOX and click.effect == [CHECKED]
    screen_ws.routines.save(draft, "Remember")

    # A new form, elsewhere: the recorded point is bare desktop now.
    form, moved = open_form(session, 900, 600)
    try:
        requests = len(model_server.message_requests)
        model_server.enqueue(text_reply("Remember me is ticked again."))
        report: RunReport = asyncio.run(
            with_screen(screen_ws, screen_ws.routines.run("Remember", {}))
        )
        assert (report.ok, report.status, report.healed) == (True, "done", 0), report
        assert report.model_requests == 1  # the answer only
        assert len(model_server.message_requests) == requests + 1
        assert form.of("checked")[-1]["checked"] is True
        replayed = [step for step in report.steps if step.effect]
        assert [step.effect for step in replayed] == [[CHECKED]]
        assert shown(moved) != shown(box)
    finally:
        form.close()

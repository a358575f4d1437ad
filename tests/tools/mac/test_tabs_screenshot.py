"""`tabs screenshot`: the browser says where the tab's window is (the JXA script, run in the Node
stand-in: a simulation), and the screen backend captures that window. The capture runs for real
on an X server (Xvfb) against real windows that carry a browser's window class and title; the
refusals are checked as the model reads them. On a Mac the whole path runs in `macos` tests.
"""

from __future__ import annotations

import asyncio
import io
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.support.jxa.desktop_world import Runner, chrome, desktop, safari
from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World
from tests.support.pixels import red_box
from tests.support.x11 import TargetApp, Xvfb, xvfb_missing
from tools.base import Risk, RunContext, ToolResult
from tools.mac.osa.engine import OSASCRIPT_ENV, OsaEngine, macos_available
from tools.mac.tabs import TabsInput, TabsTool
from tools.mac.tabs.answers import HIDDEN, MINIMISED, NOT_SHOWING
from tools.screen.backends.window_shot import NOT_ON_SCREEN, SCREEN_OFF, WindowShooter
from tools.screen.worker import ScreenWorker

PAGE = ("Example Domain", "https://example.com/")
OTHER = ("Other page", "https://other.example/")
WINDOW = (120, 90, 640, 400)  # where the Chrome window stands on the X server
DECOY = (300, 420, 500, 300)  # another Chrome window, showing another page


def bounds(rect: tuple[int, int, int, int]) -> dict[str, Any]:
    """A window's bounds as JXA gives them: a record {x, y, width, height}."""
    x, y, width, height = rect
    return {"$record": {"x": x, "y": y, "width": width, "height": height}}


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runner]:
    if shutil.which("node") is None:
        pytest.skip("the JXA stand-in needs node")
    world = World(tmp_path_factory.mktemp("tab-shots") / "world.json")
    world.write({})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(WORLD_ENV, str(world.path))
        patch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
        loop = asyncio.new_event_loop()
        yield Runner(loop, world)
        loop.close()


def chrome_world(*windows: dict[str, Any]) -> dict[str, Any]:
    """Chrome with these windows: each {"tabs": [...], "active": n, plus window properties}."""
    app = chrome([w["tabs"] for w in windows], active=[w.get("active", 1) for w in windows])
    for shaped, given in zip(app["windows"], windows, strict=True):
        shaped.update({k: v for k, v in given.items() if k not in ("tabs", "active")})
    return desktop(apps={"Google Chrome": app})


class Shots:
    """The `tabs` tool with a window shooter of the test's, on the stand-in's world."""

    def __init__(
        self, runner: Runner, shooter: WindowShooter, hooks: list[str] | None = None
    ) -> None:
        self.runner = runner
        self.hooks = hooks if hooks is not None else []  # the capture hooks' calls
        self.world = runner.world
        self.engine = OsaEngine(workers=1)
        self.shooter = shooter
        self.tool = TabsTool(self.engine, window_shots=lambda: shooter)

    def call(self, **fields: Any) -> ToolResult:
        call = self.runner.run(self.tool.prepare(TabsInput.model_validate(fields)))
        ctx = RunContext(session_id=1, attachments_dir=self.world.path.parent)
        return self.runner.run(self.tool.run(call, ctx))

    def close(self) -> None:
        self.runner.run(self.shooter.close())
        self.runner.run(self.engine.aclose())


def image_of(result: ToolResult) -> Image.Image:
    (image,) = result.images
    return Image.open(io.BytesIO(image.data)).convert("RGB")


# --- the browser's answer, and what is refused before any pixel is read --------------------------


@pytest.fixture
def no_screen(runner: Runner) -> Iterator[Shots]:
    """A shooter that must never be reached: its status check fails the test."""

    def unreachable() -> Any:
        raise AssertionError("the screen was looked at")

    shots = Shots(runner, WindowShooter(status=unreachable))
    yield shots
    shots.close()


def test_screenshot_is_a_read_named_after_the_tab(no_screen: Shots) -> None:
    no_screen.world.write(chrome_world({"tabs": [PAGE, OTHER], "bounds": bounds(WINDOW)}))
    call = no_screen.runner.run(
        no_screen.tool.prepare(TabsInput.model_validate({"action": "screenshot", "index": 1}))
    )
    assert no_screen.tool.risk(call)[0] is Risk.READ
    assert no_screen.tool.summary(call) == (
        "Take a screenshot of the Google Chrome window showing 'Example Domain' "
        "(https://example.com/)"
    )
    assert "screenshot" in no_screen.tool.description


def test_a_tab_that_is_not_showing_is_not_switched_to(no_screen: Shots) -> None:
    no_screen.world.write(
        chrome_world({"tabs": [PAGE, OTHER], "active": 1, "bounds": bounds(WINDOW)})
    )
    refused = no_screen.call(action="screenshot", index=2)
    assert refused.is_error and refused.text == NOT_SHOWING
    assert no_screen.world.app("Google Chrome")["windows"][0]["activeTabIndex"] == 1  # a read


@pytest.mark.parametrize(
    ("browser", "state", "phrase"),
    [
        ("chrome", {"minimized": True}, MINIMISED),
        ("safari", {"miniaturized": True}, MINIMISED),
        ("safari", {"visible": False}, HIDDEN),
    ],
)
def test_a_minimised_or_hidden_window_is_refused_with_what_to_do(
    no_screen: Shots, browser: str, state: dict[str, Any], phrase: str
) -> None:
    if browser == "chrome":
        no_screen.world.write(chrome_world({"tabs": [PAGE], "bounds": bounds(WINDOW), **state}))
    else:
        app = safari([[PAGE]])
        app["windows"][0].update({"bounds": bounds(WINDOW), **state})
        no_screen.world.write(desktop(apps={"Safari": app}))
    refused = no_screen.call(action="screenshot")
    assert refused.is_error and refused.text == phrase
    assert "Ask the person" in refused.text


def test_with_screen_off_in_settings_nothing_is_captured(runner: Runner) -> None:
    shots = Shots(runner, WindowShooter(enabled=lambda: False))
    try:
        shots.world.write(chrome_world({"tabs": [PAGE], "bounds": bounds(WINDOW)}))
        refused = shots.call(action="screenshot")
        assert refused.is_error and refused.text == SCREEN_OFF
    finally:
        shots.close()


def test_without_a_display_it_says_why_and_what_to_do(
    runner: Runner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if sys.platform == "darwin":
        pytest.skip("a Mac always has its display")
    monkeypatch.setenv("DISPLAY", ":4093")  # no X server there
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    shots = Shots(runner, WindowShooter())
    try:
        shots.world.write(chrome_world({"tabs": [PAGE], "bounds": bounds(WINDOW)}))
        refused = shots.call(action="screenshot")
    finally:
        shots.close()
    assert refused.is_error
    assert refused.text.startswith("The browser window cannot be captured on this computer: ")
    assert ":4093" not in refused.text and "Xlib" not in refused.text  # a fixed phrase


# --- the capture, on a real X server -------------------------------------------------------------


@pytest.fixture(scope="module")
def xvfb() -> Iterator[Xvfb]:
    missing = xvfb_missing()
    if missing:
        pytest.skip(missing)
    with Xvfb(1280, 860) as server:
        yield server


def browser_window(display: str, rect: tuple[int, int, int, int], title: str, color: str) -> Any:
    app = TargetApp(
        display,
        rect,
        module="tests.support.browser_window",
        args=(title, color),
        env={"RESOURCE_NAME": "google-chrome"},
    )
    app.start()
    return app


@pytest.fixture(scope="module")
def chrome_windows(xvfb: Xvfb) -> Iterator[list[TargetApp]]:
    """Two Chrome-like windows, real X windows: the tab's (blue), and in front of its lower part
    another (green), shown after it."""
    apps: list[TargetApp] = []
    try:
        for rect, title, color in (
            (WINDOW, f"{PAGE[0]} - Google Chrome", "#1e40af"),
            (DECOY, f"{OTHER[0]} - Google Chrome", "#15803d"),
        ):
            apps.append(browser_window(xvfb.display, rect, title, color))
            deadline = time.monotonic() + 20
            while not apps[-1].of("ready"):
                assert time.monotonic() < deadline, "the window never showed"
                time.sleep(0.02)
        time.sleep(0.2)  # painted
        yield apps
    finally:
        for app in apps:
            app.close()


@pytest.fixture
def on_x11(runner: Runner, xvfb: Xvfb, chrome_windows: list[TargetApp]) -> Iterator[Shots]:
    from tools.screen.backends.x11 import backend as x11

    hooks: list[str] = []
    shooter = WindowShooter(
        worker=ScreenWorker(lambda: x11.X11Backend(xvfb.display)),
        status=lambda: x11.status(xvfb.display),
        before_capture=lambda: hooks.append("before"),
        after_capture=lambda: hooks.append("after"),
    )
    shots = Shots(runner, shooter, hooks)
    yield shots
    shots.close()


def test_the_window_showing_the_tab_is_captured_inline(on_x11: Shots) -> None:
    on_x11.world.write(
        chrome_world(
            {"tabs": [OTHER], "name": OTHER[0], "bounds": bounds(DECOY)},
            {"tabs": [OTHER, PAGE], "active": 2, "name": PAGE[0], "bounds": bounds(WINDOW)},
        )
    )
    result = on_x11.call(action="screenshot", index=3)
    assert not result.is_error, result.text
    image = image_of(result)
    x, y, width, height = WINDOW
    assert image.size == (width, height)  # the window, not the display
    # Its marker, where it is in the window (the green window's own shows lower down).
    assert red_box(image.crop((0, 0, 100, 100))) == (10, 10, 14, 14)
    assert image.getpixel((width // 2, height // 2)) == (0x1E, 0x40, 0xAF)  # blue: this window
    assert result.text.startswith(
        "Screenshot of the Google Chrome window showing 'Example Domain' (https://example.com/): "
        f"the area ({x}, {y}) {width}×{height} of display 0"
    )
    assert "not instructions" in result.text
    # The green window in front covers its lower part: that shows, and the text says so.
    assert "Other windows lie over part of it" in result.text
    assert image.getpixel((400 - x, 450 - y)) == (0x15, 0x80, 0x3D)
    assert on_x11.hooks == ["before", "after"]


def test_the_other_window_is_captured_when_its_tab_is_asked_for(on_x11: Shots) -> None:
    on_x11.world.write(
        chrome_world(
            {"tabs": [OTHER], "name": OTHER[0], "bounds": bounds(DECOY)},
            {"tabs": [PAGE], "name": PAGE[0], "bounds": bounds(WINDOW)},
        )
    )
    result = on_x11.call(action="screenshot", index=1)
    image = image_of(result)
    assert image.size == DECOY[2:]
    assert image.getpixel((DECOY[2] // 2, DECOY[3] // 2)) == (0x15, 0x80, 0x3D)  # green
    assert red_box(image) == (10, 10, 14, 14)
    assert "Other windows" not in result.text  # it is the front window


def test_a_window_not_on_the_screen_is_not_captured(on_x11: Shots) -> None:
    elsewhere = (2000, 2000, 640, 400)  # another desktop, say: not among the screen's windows
    on_x11.world.write(chrome_world({"tabs": [PAGE], "name": PAGE[0], "bounds": bounds(elsewhere)}))
    refused = on_x11.call(action="screenshot")
    assert refused.is_error and refused.text == NOT_ON_SCREEN
    assert on_x11.hooks == []  # no pixel was read


# --- on a real Mac ---------------------------------------------------------------------------


@pytest.mark.macos
@pytest.mark.skipif(not macos_available(), reason="needs macOS with osascript")
@pytest.mark.parametrize("browser", ["safari", "chrome"])
def test_mac_screenshot_of_the_current_tab(browser: str, tmp_path: Path) -> None:
    async def go() -> ToolResult:
        engine = OsaEngine()
        tool = TabsTool(engine)
        try:
            ctx = RunContext(session_id=1, attachments_dir=tmp_path)
            return await tool.run(TabsInput(action="screenshot", browser=browser), ctx)
        finally:
            await tool.aclose()
            await engine.aclose()

    result = asyncio.run(go())
    if result.text.startswith("That browser is not running"):
        pytest.skip(f"{browser} is not running")
    if "Screen Recording" in result.text:
        pytest.skip(result.text)  # the refusal names the permission and where to grant it
    assert not result.is_error, result.text
    (image,) = result.images
    assert image.width > 100 and image.height > 100


def test_through_the_pipeline_the_image_follows_the_text_like_every_screenshot(
    on_x11: Shots,
) -> None:
    """As the app runs it: prepared, approved as a read naming the tab, run; the result carries
    the text and then the image, which the thread shows inline and the model receives."""
    from desktop.calls.contract import CallContext, ToolUse
    from desktop.calls.permissions import Decision
    from desktop.calls.sources.function_tools import FunctionTools
    from tools.base import ToolImage, ToolRegistry

    on_x11.world.write(chrome_world({"tabs": [PAGE], "name": PAGE[0], "bounds": bounds(WINDOW)}))
    source = FunctionTools(ToolRegistry([on_x11.tool]))
    asked: list[Any] = []

    async def approve(call: Any) -> Decision:
        asked.append(call)
        return Decision(verdict="allow", by="person")

    use = ToolUse(id="toolu_shot", name="tabs", input={"action": "screenshot"})
    ctx = CallContext(session_id=1, attachments_dir=on_x11.world.path.parent, approve=approve)
    call = on_x11.runner.run(source.describe(use, 1))
    result = on_x11.runner.run(source.run(use, call, ctx))
    assert not result.is_error
    text, image = result.content
    assert isinstance(text, dict) and text["text"].startswith("Screenshot of the Google Chrome")
    assert isinstance(image, ToolImage) and (image.width, image.height) == WINDOW[2:]
    (call,) = asked
    assert call.risk == "read" and "'Example Domain'" in call.summary

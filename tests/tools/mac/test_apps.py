"""The `apps` tool: screens, window placement, presets and apps in the Node JXA stand-in (a
simulation), and on a Mac."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.support.jxa.desktop_world import LEFT, MAIN, RIGHT, Runner, desktop, process
from tests.support.jxa.forbidden import FORBIDDEN_JS
from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World
from tools.base import Risk, RunContext, ToolResult
from tools.mac.apps import (
    NO_SUCH_APP,
    NOT_RUNNING,
    OFF_SCREEN,
    TOO_SMALL,
    AppsInput,
    AppsTool,
    pick_screen,
    screens_from_cocoa,
)
from tools.mac.osa.engine import OSASCRIPT_ENV, SCRIPTS_DIR, OsaEngine, macos_available

REPO = Path(__file__).resolve().parents[3]
INSTALLED = ["Google Chrome", "Cursor", "TextEdit", "Slack"]
BUNDLES = {"com.google.Chrome": "Google Chrome", "com.todesktop.230313mzl4w4u92": "Cursor"}


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runner]:
    if shutil.which("node") is None:
        pytest.skip("the JXA stand-in needs node")
    world = World(tmp_path_factory.mktemp("apps") / "world.json")
    world.write({})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(WORLD_ENV, str(world.path))
        patch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
        loop = asyncio.new_event_loop()
        yield Runner(loop, world)
        loop.close()


class Apps:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.world = runner.world
        self.engine = OsaEngine(workers=1)
        self.saved: list[dict[str, Any]] = []
        self.stored: list[dict[str, Any]] = []
        self.tool = AppsTool(
            self.engine, presets=lambda: self.stored + self.saved, save_preset=self.saved.append
        )

    def call(self, **fields: Any) -> ToolResult:
        ctx = RunContext(session_id=1, attachments_dir=self.world.path.parent)
        return self.runner.run(self.tool.run(AppsInput.model_validate(fields), ctx))

    def window(self, name: str) -> list[int]:
        """The front window of `name` as [left, top, right, bottom]."""
        processes = self.world.app("System Events")["applicationProcesses"]
        win = next(p for p in processes if p["name"] == name)["windows"][0]
        (left, top), (width, height) = win["position"], win["size"]
        return [left, top, left + width, top + height]


@pytest.fixture
def apps(runner: Runner) -> Iterator[Apps]:
    helper = Apps(runner)
    yield helper
    runner.run(helper.engine.aclose())


def three_screens(**extra: Any) -> dict[str, Any]:
    processes = [
        process("Safari", "com.apple.Safari", frontmost=True),
        process("Google Chrome", "com.google.Chrome"),
        process("Cursor", "com.todesktop.230313mzl4w4u92", frame=(-1800, 100, -200, 900)),
        process("Slack", "com.tinyspeck.slackmacgap", frame=None),
    ]
    running = {name: {"running": True} for name in ["Safari", "Google Chrome", "Cursor", "Slack"]}
    return desktop(
        screens=[MAIN, LEFT, RIGHT], processes=processes, apps=running, installed=INSTALLED,
        bundles=BUNDLES, **extra,
    )  # fmt: skip


def data_after_header(result: ToolResult) -> Any:
    assert not result.is_error, result.text
    return json.loads(result.text[result.text.index("\n") + 1 :])


# --- screens ------------------------------------------------------------------------------------


def test_screens_left_main_right_with_negative_coordinates(apps: Apps) -> None:
    apps.world.write(three_screens())
    screens = data_after_header(apps.call(action="screens"))
    assert [(s["position"], s["main"]) for s in screens] == [
        ("left", False),
        ("main", True),
        ("right", False),
    ]
    left, main, right = screens
    assert left["frame"] == [-1920, 0, 0, 1080]
    assert main["frame"] == [0, 0, 1440, 900] and main["visible_frame"] == [0, 25, 1440, 830]
    assert right["frame"] == [1440, -200, 4000, 1240]


@pytest.mark.parametrize(
    ("cocoa", "positions", "left_is", "right_is"),
    [
        ([MAIN], ["main"], "main", "main"),
        ([MAIN, RIGHT], ["main", "right"], "main", "right"),
        ([MAIN, LEFT], ["left", "main"], "left", "main"),
        (
            [MAIN, LEFT, RIGHT, {"name": "far", "frame": [4000, 0, 800, 600]}],
            ["left", "main", "right", "right 2"],
            "left",
            "right 2",
        ),
    ],
)
def test_screen_arrangements(
    cocoa: list[dict[str, Any]], positions: list[str], left_is: str, right_is: str
) -> None:
    screens = screens_from_cocoa(cocoa)
    assert [screen.position for screen in screens] == positions
    assert pick_screen(screens, "left").position == left_is
    assert pick_screen(screens, "right").position == right_is
    assert pick_screen(screens, "main").main


# --- placing windows ------------------------------------------------------------------------------


def test_place_app_on_a_monitor_fills_its_visible_area(apps: Apps) -> None:
    apps.world.write(three_screens())
    result = apps.call(action="place_app", app="Google Chrome", monitor="left")
    assert result.text == (
        "Moved the front window of 'Google Chrome' to [-1920, 25, 0, 1080] on the left screen.\n"
        'Effect:\n~ window of "Google Chrome": at [-1920, 25, 0, 1080] on the left screen'
    )
    assert apps.window("Google Chrome") == [-1920, 25, 0, 1080]
    apps.call(action="place_app", app="Cursor", monitor="right")
    assert apps.window("Cursor") == [1440, -175, 4000, 1240]


def test_place_app_with_exact_bounds(apps: Apps) -> None:
    apps.world.write(three_screens())
    assert not apps.call(action="place_app", app="Safari", bounds=[-1000, 50, -100, 700]).is_error
    assert apps.window("Safari") == [-1000, 50, -100, 700]
    on_main = apps.call(action="place_app", app="Safari", monitor="main", bounds=[10, 30, 710, 530])
    assert not on_main.is_error and apps.window("Safari") == [10, 30, 710, 530]


@pytest.mark.parametrize(
    ("fields", "starts"),
    [
        ({"bounds": [5000, 0, 5800, 600]}, OFF_SCREEN),
        ({"bounds": [-3000, 0, -2000, 600]}, OFF_SCREEN),
        ({"bounds": [0, 1300, 800, 1900]}, OFF_SCREEN),
        ({"bounds": [0, 0, 50, 600]}, TOO_SMALL),
        ({"monitor": "right", "bounds": [0, 0, 800, 600]}, "Those bounds are not on the requested"),
    ],
)
def test_bounds_are_validated_against_the_screens(
    apps: Apps, fields: dict[str, Any], starts: str
) -> None:
    apps.world.write(three_screens())
    before = apps.window("Safari")
    result = apps.call(action="place_app", app="Safari", **fields)
    assert result.is_error and result.text.startswith(starts)
    if starts == OFF_SCREEN:
        areas = json.loads(result.text[len(OFF_SCREEN) :])
        assert areas == {"left": [-1920, 0, 0, 1080], "main": [0, 0, 1440, 900],
                         "right": [1440, -200, 4000, 1240]}  # fmt: skip
    assert apps.window("Safari") == before


@pytest.mark.parametrize(
    "fields",
    [
        {"action": "place_app", "app": "Safari"},
        {"action": "place_app", "app": "Safari", "bounds": [100, 100, 50, 500]},
        {"action": "place_app", "app": "Safari", "bounds": [1, 2, 3]},
        {"action": "place_app", "app": "Safari", "monitor": "top"},
        {"action": "focus_app", "app": "/Applications/Evil.app"},
        {"action": "close_app"},
        {"action": "activate_preset", "preset": "  "},
    ],
)
def test_bad_input_is_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        AppsInput.model_validate(fields)


def test_place_app_problems(apps: Apps) -> None:
    apps.world.write(three_screens())
    assert apps.call(action="place_app", app="TextEdit", monitor="main").text == NOT_RUNNING
    assert apps.call(action="place_app", app="Slack", monitor="main").text == (
        "That app has no open window to move."
    )
    missing = apps.call(action="place_app", app="Chrom", monitor="main")
    assert missing.is_error and missing.text.startswith(NO_SUCH_APP)
    assert "Google Chrome" in json.loads(missing.text[len(NO_SUCH_APP) :])


# --- apps -----------------------------------------------------------------------------------------


def test_list_apps_running_and_installed(apps: Apps) -> None:
    apps.world.write(three_screens())
    result = apps.call(action="list_apps", query="cur")
    blocks = result.text.split("\nInstalled apps whose names contain 'cur' (1):\n")
    listed = json.loads(blocks[0].split("\n", 1)[1])
    assert [(app["name"], app["frontmost"]) for app in listed][:2] == [
        ("Safari", True),
        ("Google Chrome", False),
    ]
    assert json.loads(blocks[1]) == [{"name": "Cursor", "path": "/Applications/Cursor.app"}]


def test_focus_app_by_name_bundle_id_and_unknown(apps: Apps) -> None:
    apps.world.write(three_screens())
    assert apps.call(action="focus_app", app="TextEdit").text == (
        "'TextEdit' is in front.\nEffect:\n~ app \"TextEdit\": running, in front"
    )
    assert apps.world.app("TextEdit")["frontmost"] is True
    assert not apps.call(action="focus_app", app="com.google.Chrome").is_error
    assert apps.world.app("Google Chrome")["frontmost"] is True
    unknown = apps.call(action="focus_app", app="Slak")
    assert json.loads(unknown.text[len(NO_SUCH_APP) :])[0] == "Slack"


def test_close_app_is_consequential_and_quits(apps: Apps) -> None:
    apps.world.write(three_screens())
    call = AppsInput(action="close_app", app="Cursor")
    assert apps.tool.risk(call)[0] is Risk.CONSEQUENTIAL
    assert apps.tool.summary(call) == "Quit 'Cursor' (unsaved work in it can be lost)"
    assert apps.call(action="close_app", app="Cursor").text == (
        "Asked 'Cursor' to quit.\nEffect:\n- app \"Cursor\": quit"
    )
    assert apps.world.app("Cursor")["running"] is False
    again = apps.call(action="close_app", app="Cursor")
    assert again.text == "'Cursor' was not running.\nEffect: none: \"Cursor\" was not running."
    assert again.outcome is not None and again.outcome.kind == "no_effect"


# --- presets --------------------------------------------------------------------------------------


def test_preset_with_one_app_missing_moves_the_others(apps: Apps) -> None:
    apps.world.write(three_screens())
    apps.stored[:] = [
        {"name": "Coding", "items": [
            {"app": "Google Chrome", "monitor": "left"},
            {"app": "Photoshop 1998", "monitor": "main"},
            {"app": "Cursor", "bounds": [9000, 0, 9800, 600], "monitor": "right"},
            {"app": "Safari", "bounds": [100, 40, 900, 800]},
        ]},
        {"name": "broken", "items": "not a list"},
    ]  # fmt: skip
    call = apps.runner.run(apps.tool.prepare(AppsInput(action="activate_preset", preset="coding")))
    assert apps.tool.summary(call) == (
        "Apply layout 'coding': 'Google Chrome, Photoshop 1998, Cursor, Safari'"
    )
    result = apps.call(action="activate_preset", preset="coding")
    assert not result.is_error and result.text.startswith(
        "Applied layout 'Coding': 3 moved, 1 failed."
    )
    report = json.loads(result.text.split("\n", 1)[1].split("\nEffect:", 1)[0])
    assert report["failed"] == [{"app": "Photoshop 1998", "reason": "not installed"}]
    assert apps.window("Google Chrome") == [-1920, 25, 0, 1080]
    assert apps.window("Cursor") == [1440, -175, 4000, 1240]  # saved spot gone: its monitor
    assert apps.window("Safari") == [100, 40, 900, 800]
    assert result.text.split("\nEffect:", 1)[1] == (
        '\n~ window of "Google Chrome": at [-1920, 25, 0, 1080]\n'
        '~ window of "Cursor": at [1440, -175, 4000, 1240]\n'
        '~ window of "Safari": at [100, 40, 900, 800]\n'
        'Differs from what was asked: "Photoshop 1998" is not placed (not installed).'
    )
    missing = apps.call(action="activate_preset", preset="Writing")
    assert missing.is_error and missing.text.endswith('["Coding"]')


def test_save_preset_captures_the_windows(apps: Apps) -> None:
    apps.world.write(three_screens())
    result = apps.call(action="save_preset", preset="Morning")
    assert result.text == (
        "Saved layout 'Morning' with 3 apps: Safari, Google Chrome, Cursor.\n"
        'Effect:\n+ layout "Morning": 3 apps'
    )
    [saved] = apps.saved
    assert saved["name"] == "Morning"
    assert saved["items"][2] == {
        "app": "Cursor",
        "monitor": "left",
        "bounds": [-1800, 100, -200, 900],
    }


def test_a_window_that_keeps_its_size_differs(apps: Apps) -> None:
    """A fake System Events that drops the new size: the frame read back names the difference."""
    world = three_screens()
    world["drops"] = {"System Events": ["size"]}
    apps.world.write(world)
    before = apps.window("Safari")
    result = apps.call(action="place_app", app="Safari", bounds=[10, 30, 710, 530])
    width, height = before[2] - before[0], before[3] - before[1]
    frame = [10, 30, 10 + width, 30 + height]
    assert result.text.split("\nEffect:", 1)[1] == (
        f'\n~ window of "Safari": at {frame} on the main screen\n'
        f"Differs from what was asked: the window is at {frame}, not at [10, 30, 710, 530]."
    )
    assert result.outcome is not None and result.outcome.kind == "differs"


def test_an_app_that_ignores_quit_differs(apps: Apps, monkeypatch: pytest.MonkeyPatch) -> None:
    world = three_screens()
    world["ignore"] = [{"app": "Cursor", "command": "quit"}]
    apps.world.write(world)
    monkeypatch.setattr("tools.mac.apps.QUIT_WAIT_MS", 300)  # how long the script watches
    result = apps.call(action="close_app", app="Cursor")
    assert result.text == (
        "Asked 'Cursor' to quit.\nEffect:\n~ app \"Cursor\": still running\n"
        "Differs from what was asked: it is still running (it may be asking the person to save "
        "changes)."
    )


def test_a_layout_the_settings_do_not_keep_is_not_confirmed(apps: Apps) -> None:
    apps.world.write(three_screens())
    apps.tool.save_preset = lambda _preset: None
    result = apps.call(action="save_preset", preset="Morning")
    assert result.text.split("\nEffect:", 1)[1] == (
        " unknown: nothing could be read back from the settings.\n"
        "Not confirmed: the settings do not hold the layout afterwards."
    )


# --- data in, never code --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "script",
    sorted(path for path in (SCRIPTS_DIR / "apps").glob("*.js") if path.name != "_prelude.js"),
    ids=lambda path: path.name,
)
def test_app_scripts_take_one_json_argument_and_run_no_code(script: Path) -> None:
    source = script.read_text(encoding="utf-8")
    assert "function run(argv)" in source and "JSON.parse(argv[0])" in source
    assert source.count("argv") == 2 and "eval" not in source
    assert not [token for token in FORBIDDEN_JS if token in source]


# --- on a real Mac --------------------------------------------------------------------------------


@pytest.mark.macos
@pytest.mark.skipif(not macos_available(), reason="needs macOS with osascript")
def test_mac_screens_and_apps(tmp_path: Path) -> None:
    async def go() -> list[ToolResult]:
        engine = OsaEngine()
        tool = AppsTool(engine)
        ctx = RunContext(session_id=1, attachments_dir=tmp_path)
        try:
            return [
                await tool.run(AppsInput(action="screens"), ctx),
                await tool.run(AppsInput(action="list_apps", query="Safari"), ctx),
                await tool.run(AppsInput(action="place_app", app="Finder", monitor="main"), ctx),
                await tool.run(AppsInput(action="focus_app", app="Finder"), ctx),
            ]
        finally:
            await engine.aclose()

    results = asyncio.run(go())
    for result in results:
        assert not result.is_error or "no open window" in result.text, result.text
    placed, focused = results[2], results[3]
    if not placed.is_error:  # the window's frame is read back: as asked, or the difference
        assert placed.outcome is not None and placed.outcome.kind in ("done", "differs")
    assert focused.outcome is not None and focused.outcome.kind == "done", focused.text
    assert focused.text.endswith('\nEffect:\n~ app "Finder": running, in front')

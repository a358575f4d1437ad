"""The desktop snapshot for the system prompt: what it holds, its size cap, and its time limit
(in the Node JXA stand-in, a simulation, and with a scripted slow engine)."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.jxa.desktop_world import LEFT, MAIN, chrome, desktop, process, safari
from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World
from tools.mac.desktop_context import FOOTER_CUT, HEADER, desktop_snapshot
from tools.mac.osa.engine import OSASCRIPT_ENV, OsaEngine, macos_available
from tools.mac.osa.errors import OsaError, ProblemKind, problem

PRESETS = [{"name": "Coding", "items": []}, {"name": "Writing\nmode", "items": []}]


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[OsaEngine, World]]:
    if shutil.which("node") is None:
        pytest.skip("the JXA stand-in needs node")
    world = World(tmp_path / "world.json")
    monkeypatch.setenv(WORLD_ENV, str(world.path))
    monkeypatch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
    yield OsaEngine(workers=0), world


def test_snapshot_holds_apps_screens_presets_and_tab_titles(
    engine: tuple[OsaEngine, World],
) -> None:
    osa, world = engine
    page = {"text": "SECRET PAGE TEXT", "links": []}
    world.write(
        desktop(
            screens=[MAIN, LEFT],
            processes=[process("Safari", "com.apple.Safari", frontmost=True)],
            apps={
                "Safari": safari(
                    [
                        [
                            ("Inbox", "https://mail.example.com/"),
                            ("Repo", "https://www.github.com/x"),
                        ]
                    ],
                    current=[1],
                    pages={"https://mail.example.com/": page},
                ),
                "Google Chrome": {"running": False},
            },
        )
    )
    text = asyncio.run(desktop_snapshot(osa, PRESETS, time_limit=10.0))
    assert text.startswith(HEADER) and "data, not instructions" in text
    assert "Screens (left to right, [left, top, right, bottom]): left: DELL U2415" in text
    assert "Layout presets: Coding, Writing mode" in text
    assert "Running apps: Safari (front)" in text
    assert "  1 Inbox — mail.example.com\n  2* Repo — github.com" in text
    assert "SECRET PAGE TEXT" not in text and "Not available" not in text


def test_snapshot_is_cut_to_its_budget(engine: tuple[OsaEngine, World]) -> None:
    osa, world = engine
    many = [
        [(f"Tab {i} " + "long title " * 20, f"https://site{i}.example.com/") for i in range(300)]
    ]
    world.write(desktop(apps={"Google Chrome": chrome(many)}))
    text = asyncio.run(desktop_snapshot(osa, [], budget_chars=2000, time_limit=10.0))
    assert len(text) <= 2000 and text.endswith(FOOTER_CUT)
    assert text.startswith(HEADER) and "Google Chrome tabs" in text


class ScriptedEngine:
    """An engine whose scripts answer from a table; one can hang, one can fail."""

    def __init__(self, *, hang: str | None = None, fail: str | None = None) -> None:
        self.hang, self.fail = hang, fail
        self.cancelled: list[str] = []

    async def call(self, script: str, payload: Any, **_: Any) -> Any:
        if script == self.hang:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                self.cancelled.append(script)
                raise
        if script == self.fail:
            raise OsaError(problem(ProblemKind.NOT_ALLOWED, app="System Events"))
        return {
            "apps/list_apps": {"running": [{"name": "Finder", "frontmost": True}]},
            "apps/screens": {"screens": [{"name": "Built-in", "frame": [0, 0, 1440, 900]}]},
            "tabs/running": {"safari": True, "chrome": False},
            "tabs/list_tabs": {
                "windows": [
                    {"titles": ["Docs"], "urls": ["https://d.io/"], "count": 1, "active": 1}
                ]
            },
        }[script]


def test_a_hung_app_costs_at_most_the_time_limit() -> None:
    osa = ScriptedEngine(hang="tabs/list_tabs")
    started = time.monotonic()
    text = asyncio.run(desktop_snapshot(osa, PRESETS, time_limit=0.3))  # type: ignore[arg-type]
    assert time.monotonic() - started < 1.0
    assert osa.cancelled == ["tabs/list_tabs"]
    assert "Running apps: Finder (front)" in text and "main: Built-in [0, 0, 1440, 900]" in text
    assert text.endswith("Not available this turn: tabs") and "Docs" not in text


def test_a_failing_part_is_left_out() -> None:
    osa = ScriptedEngine(fail="apps/list_apps")
    text = asyncio.run(desktop_snapshot(osa, None))  # type: ignore[arg-type]
    assert "Running apps" not in text and "Not available this turn: apps" in text
    assert "  1* Docs — d.io" in text and "Layout presets: none" in text


@pytest.mark.macos
@pytest.mark.skipif(not macos_available(), reason="needs macOS with osascript")
def test_mac_snapshot_within_its_limits() -> None:
    async def go() -> tuple[str, float]:
        osa = OsaEngine()
        try:
            started = time.monotonic()
            text = await desktop_snapshot(osa, [])
            return text, time.monotonic() - started
        finally:
            await osa.aclose()

    text, took = asyncio.run(go())
    assert took < 1.5 and len(text) <= 8000 and text.startswith(HEADER)

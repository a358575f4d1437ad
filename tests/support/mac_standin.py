"""The Mac tools in the Node JXA stand-in (a simulation of the JXA runtime) and on a real Mac:
the objects the `macos` and `tabs` tests drive, the sample day, hostile texts, the tab sets.

Their fixtures are in tests/tools/mac/conftest.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypeVar

import pytest

from tests.support.jxa.desktop_world import Runner
from tests.support.jxa.world import World
from tools.base import RunContext, ToolResult
from tools.mac.macos import MacosInput, MacosTool
from tools.mac.osa.engine import OsaEngine, macos_available
from tools.mac.osa.errors import OsaProblem
from tools.mac.tabs import TabsInput, TabsTool

T = TypeVar("T")
DAY = date(2024, 5, 3)
TRICKY = [
    "She said \"hi\" and 'bye'",
    "back\\slash \\n not a newline \\u2028",
    "line one\nline two\n\nline four",
    "separator\u2028and\u2029paragraph",
    "emoji 😀👩‍👩‍👧 flags 🇩🇪",
    "中文、日本語、한국어",
    "עברית ومرحبا بالعالم",
    "'); Application('Finder').delete(Path('/')); ('",
    "${process.exit(1)} `backtick` </div><script>alert(1)</script> &amp;",
]
NINE = [
    [("Inbox", "https://mail.example.com/"), ("r/python", "https://www.reddit.com/r/python"),
     ("Docs", "https://docs.python.org/3/")],
    [("GitHub", "https://github.com/"), ("reddit home", "https://www.reddit.com/"),
     ("News", "https://news.ycombinator.com/"), ("Maps", "https://maps.example.com/")],
    [("Calendar", "https://cal.example.com/"), ("r/rust", "https://reddit.com/r/rust")],
]  # fmt: skip


@dataclass
class StandIn:
    """One event loop, engine and tool for the module, and the world file they read."""

    loop: asyncio.AbstractEventLoop
    engine: OsaEngine
    tool: MacosTool
    world: World
    problems: list[OsaProblem] = field(default_factory=list)

    def run(self, coro: Awaitable[T]) -> T:
        return self.loop.run_until_complete(coro)

    def call(self, progress: list[str] | None = None, **fields: Any) -> ToolResult:
        call = MacosInput.model_validate(fields)
        lines = progress if progress is not None else []
        ctx = RunContext(
            session_id=1, attachments_dir=self.world.path.parent, progress=lines.append
        )
        return self.run(self.tool.run(call, ctx))


class Tabs:
    def __init__(self, runner: Runner, workers: int = 1) -> None:
        self.runner = runner
        self.world = runner.world
        self.engine = OsaEngine(workers=workers)
        self.tool = TabsTool(self.engine)
        self.progress: list[str] = []

    def input(self, **fields: Any) -> TabsInput:
        return TabsInput.model_validate(fields)

    def prepare(self, **fields: Any) -> TabsInput:
        return self.runner.run(self.tool.prepare(self.input(**fields)))

    def run(self, call: TabsInput) -> ToolResult:
        ctx = RunContext(
            session_id=1, attachments_dir=self.world.path.parent, progress=self.progress.append
        )
        return self.runner.run(self.tool.run(call, ctx))

    def call(self, **fields: Any) -> ToolResult:
        return self.run(self.input(**fields))

    def titles(self, app: str = "Safari") -> list[list[str]]:
        key = "name" if app == "Safari" else "title"
        return [[tab[key] for tab in win["tabs"]] for win in self.world.app(app)["windows"]]


on_a_mac = [
    pytest.mark.macos,
    pytest.mark.skipif(not macos_available(), reason="needs macOS with osascript"),
]
MAC_TEST_FOLDER = "Deskhand Tests"


def mac_only(test: Callable[..., None]) -> Callable[..., None]:
    for mark in on_a_mac:
        test = mark(test)
    return test

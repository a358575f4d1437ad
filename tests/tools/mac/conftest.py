"""Fixtures of the Mac tools' tests: the JXA stand-in (one engine per module) and a real Mac."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.jxa.desktop_world import Runner
from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World, sample_world
from tests.support.mac_standin import DAY, StandIn, Tabs
from tools.base import RunContext, ToolResult
from tools.mac.macos import MacosInput, MacosTool
from tools.mac.osa.engine import OSASCRIPT_ENV, OsaEngine
from tools.mac.osa.errors import OsaProblem


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandIn]:
    if shutil.which("node") is None:
        pytest.skip("the JXA stand-in needs node")
    world = World(tmp_path_factory.mktemp("jxa") / "world.json")
    world.write({})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(WORLD_ENV, str(world.path))
        patch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
        loop = asyncio.new_event_loop()
        engine = OsaEngine(workers=1)
        problems: list[OsaProblem] = []
        tool = MacosTool(engine, on_problem=problems.append)
        yield StandIn(loop, engine, tool, world, problems)
        loop.run_until_complete(engine.aclose())
        loop.close()


@pytest.fixture
def mac(standin: StandIn) -> StandIn:
    """The stand-in with a fresh sample world."""
    standin.world.write(sample_world(DAY))
    standin.problems.clear()
    return standin


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runner]:
    if shutil.which("node") is None:
        pytest.skip("the JXA stand-in needs node")
    world = World(tmp_path_factory.mktemp("tabs") / "world.json")
    world.write({})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(WORLD_ENV, str(world.path))
        patch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
        loop = asyncio.new_event_loop()
        engine = OsaEngine(workers=1)
        yield Runner(loop, world)
        loop.run_until_complete(engine.aclose())
        loop.close()


@pytest.fixture
def tabs(runner: Runner) -> Iterator[Tabs]:
    helper = Tabs(runner)
    yield helper
    runner.run(helper.engine.aclose())


@pytest.fixture
def real_mac(tmp_path: Path) -> Iterator[Callable[..., ToolResult]]:
    loop = asyncio.new_event_loop()
    engine = OsaEngine()
    tool = MacosTool(engine)

    def call(**fields: Any) -> ToolResult:
        ctx = RunContext(session_id=1, attachments_dir=tmp_path)
        return loop.run_until_complete(tool.run(MacosInput.model_validate(fields), ctx))

    yield call
    loop.run_until_complete(engine.aclose())
    loop.close()

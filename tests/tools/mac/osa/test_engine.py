"""The engine against the stand-in osascript (a simulation): errors, time limits, workers, caps."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.jxa.world import World, process_gone
from tests.support.waiting import wait_until
from tools.mac.osa.engine import OsaEngine, macos_available
from tools.mac.osa.errors import OsaError, ProblemKind

from .conftest import TEST_SCRIPTS

MODES = [pytest.param(0, id="one-shot"), pytest.param(1, id="worker")]


@asynccontextmanager
async def engine(**options: Any) -> AsyncIterator[OsaEngine]:
    options.setdefault("scripts_dir", TEST_SCRIPTS)
    osa = OsaEngine(**options)
    try:
        yield osa
    finally:
        await osa.aclose()


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(test())


async def failure(call: Awaitable[Any]) -> OsaError:
    with pytest.raises(OsaError) as caught:
        await call
    return caught.value


@pytest.mark.parametrize("workers", MODES)
def test_each_error_number_is_classified(world: World, workers: int) -> None:
    expected = {
        -1743: ProblemKind.NOT_ALLOWED,
        -1744: ProblemKind.NOT_ALLOWED,
        -600: ProblemKind.NOT_RUNNING,
        -1728: ProblemKind.NO_SUCH_OBJECT,
        -1719: ProblemKind.NO_SUCH_OBJECT,
        -1712: ProblemKind.NO_ANSWER,
        -10814: ProblemKind.APP_NOT_FOUND,
        -10827: ProblemKind.APP_NOT_FOUND,
        -2741: ProblemKind.SCRIPT_BUG,
        -1708: ProblemKind.GENERIC,
    }

    async def test() -> None:
        async with engine(workers=workers) as osa:
            for number, kind in expected.items():
                world.write({"errors": [{"app": "Mail", "number": number}]})
                error = await failure(osa.call("touch_app", {"app": "Mail"}, app="Mail"))
                assert (error.problem.kind, error.problem.number) == (kind, number)
                assert error.problem.app == "Mail"

    run(test)


@pytest.mark.parametrize("workers", MODES)
def test_not_allowed_names_the_app_and_the_settings_path(world: World, workers: int) -> None:
    world.write({"errors": [{"app": "Reminders", "number": -1743}]})

    async def test() -> None:
        async with engine(workers=workers) as osa:
            error = await failure(osa.call("touch_app", {"app": "Reminders"}, app="Reminders"))
        found = error.problem
        assert "Reminders" in found.message
        assert "System Settings → Privacy & Security → Automation" in found.suggestion
        assert "Reminders" not in found.model_phrase and not found.retryable
        assert "Not authorized" in found.detail  # the raw text, kept for logs only
        assert osa.automation.states() == {"Reminders": "denied"}

    run(test)


@pytest.mark.parametrize("workers", MODES)
def test_script_bugs_and_other_failures(world: World, workers: int) -> None:
    async def test() -> None:
        async with engine(workers=workers) as osa:
            assert (await failure(osa.call("broken", {}))).problem.kind is ProblemKind.SCRIPT_BUG
            plain = (await failure(osa.call("type_error", {}))).problem
            assert (plain.kind, plain.number) == (ProblemKind.GENERIC, -2700)
            assert (await failure(osa.call("not_json", {}))).problem.kind is ProblemKind.BAD_OUTPUT
            assert (await failure(osa.call("crash", {}))).problem.kind is ProblemKind.CRASHED
            assert await osa.call("echo", {"still": "works"}) == {"echo": {"still": "works"}}

    run(test)


@pytest.mark.parametrize("workers", MODES)
def test_time_limit_kills_the_whole_process_group(
    world: World, tmp_path: Path, workers: int
) -> None:
    pidfile = tmp_path / "pids"

    async def test() -> None:
        async with engine(workers=workers) as osa:
            started = asyncio.get_running_loop().time()
            error = await failure(osa.call("sleeper", {"pidfile": str(pidfile)}, time_limit=1.5))
            assert error.problem.kind is ProblemKind.TIMEOUT and error.problem.retryable
            assert asyncio.get_running_loop().time() - started < 5
            pids = [int(pid) for pid in pidfile.read_text().split()]
            assert len(pids) == 2  # osascript (or the worker) and the child it started
            for pid in pids:
                await wait_until(lambda pid=pid: process_gone(pid), 5, f"pid {pid} to exit")

    run(test)


def test_a_cancelled_call_kills_its_processes(world: World, tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"

    async def test() -> None:
        async with engine(workers=1) as osa:
            call = asyncio.ensure_future(osa.call("sleeper", {"pidfile": str(pidfile)}))
            await wait_until(lambda: pidfile.exists() and pidfile.read_text().strip(), 10)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            for pid in [int(pid) for pid in pidfile.read_text().split()]:
                await wait_until(lambda pid=pid: process_gone(pid), 5, f"pid {pid} to exit")
            assert await osa.call("echo", {}) == {"echo": {}}

    run(test)


def test_a_hung_worker_is_replaced(world: World) -> None:
    async def test() -> None:
        async with engine(workers=1) as osa:
            await osa.start()
            [hung] = osa.worker_pids
            error = await failure(osa.call("hang", {}, time_limit=1.0))
            assert error.problem.kind is ProblemKind.TIMEOUT
            await wait_until(lambda: process_gone(hung), 5, "the hung worker to exit")
            await wait_until(lambda: osa.worker_pids, 10, "a replacement worker")
            assert osa.worker_pids != [hung]
            assert await osa.call("echo", {"n": 1}) == {"echo": {"n": 1}}

    run(test)


def test_a_crashed_worker_is_restarted(world: World) -> None:
    async def test() -> None:
        async with engine(workers=1) as osa:
            await osa.call("echo", {})
            [first] = osa.worker_pids
            assert (await failure(osa.call("crash", {}))).problem.kind is ProblemKind.CRASHED
            assert await osa.call("echo", {"n": 2}) == {"echo": {"n": 2}}
            [second] = osa.worker_pids
            assert second != first

    run(test)


def test_a_worker_that_died_while_idle_is_restarted(world: World) -> None:
    async def test() -> None:
        async with engine(workers=1) as osa:
            await osa.call("echo", {})
            [first] = osa.worker_pids
            os.kill(first, signal.SIGKILL)
            await wait_until(lambda: osa.pool and osa.pool.pids == [], 5, "the death to be seen")
            assert await osa.call("echo", {"n": 3}) == {"echo": {"n": 3}}
            assert osa.worker_pids not in ([], [first])

    run(test)


def test_concurrent_calls_share_the_workers(world: World) -> None:
    async def test() -> None:
        async with engine(workers=2) as osa:
            answers = await asyncio.gather(*(osa.call("echo", {"i": i}) for i in range(20)))
            assert answers == [{"echo": {"i": i}} for i in range(20)]
            assert len(osa.worker_pids) == 2

    run(test)


@pytest.mark.parametrize("workers", MODES)
def test_output_is_capped(world: World, workers: int) -> None:
    async def test() -> None:
        async with engine(workers=workers, output_cap=100_000) as osa:
            fits = await osa.call("flood", {"size": 50_000})
            assert len(fits["text"]) == 50_000
            error = await failure(osa.call("flood", {"size": 300_000}))
            assert error.problem.kind is ProblemKind.OUTPUT_TOO_LARGE
            assert await osa.call("echo", {}) == {"echo": {}}

    run(test)


@pytest.mark.parametrize("worker_script", ["no_worker.js", "mute_worker.js"])
def test_falls_back_to_one_shot_when_workers_cannot_start(world: World, worker_script: str) -> None:
    async def test() -> None:
        async with engine(
            workers=2, worker_script=TEST_SCRIPTS / worker_script, start_timeout=1.0
        ) as osa:
            assert await osa.call("echo", {"a": 1}) == {"echo": {"a": 1}}
            assert osa.worker_pids == []
            assert await osa.call("echo", {"a": 2}) == {"echo": {"a": 2}}  # no new try yet

    run(test)


def test_without_osascript_calls_fail_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DESKHAND_OSASCRIPT", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")

    async def test() -> None:
        async with engine() as osa:
            assert not osa.available
            error = await failure(osa.call("echo", {}))
            assert error.problem.kind is ProblemKind.UNAVAILABLE

    run(test)
    assert macos_available() is False


def test_only_existing_scripts_with_plain_names_run(world: World) -> None:
    async def test() -> None:
        async with engine() as osa:
            for name in ["../echo", "/etc/passwd", "echo.js", "Echo", "missing"]:
                error = await failure(osa.call(name, {}))
                assert error.problem.kind is ProblemKind.SCRIPT_BUG

    run(test)


def test_automation_log_follows_the_calls(world: World) -> None:
    heard: list[tuple[str, str]] = []

    async def test() -> None:
        async with engine(workers=1) as osa:
            osa.automation.subscribe(lambda app, state: heard.append((app, state)))
            world.write({"errors": [{"app": "Notes", "number": -600}]})
            await failure(osa.call("touch_app", {"app": "Notes"}, app="Notes"))
            world.write({"errors": [{"app": "Mail", "number": -1743}]})
            await failure(osa.call("touch_app", {"app": "Mail"}, app="Mail"))
            world.write({"apps": {"Mail": {"name": "Mail"}}})
            assert await osa.call("touch_app", {"app": "Mail"}, app="Mail") == {"name": "Mail"}
            assert osa.automation.states() == {"Notes": "unknown", "Mail": "allowed"}

    run(test)
    assert heard == [("Notes", "unknown"), ("Mail", "denied"), ("Mail", "allowed")]

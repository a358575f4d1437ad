"""The one place slow modules load: on its own thread, once, for every waiter, even when one of
them gives up (a reply stopped while the SDK still loads)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.system import heavy

SLOW_MODULE = """
import threading, time
time.sleep(0.3)  # as a big package takes, on a busy machine
LOADED_ON = threading.current_thread().name
"""


@pytest.fixture
def slow_module(tmp_path: Path) -> Iterator[str]:
    name = f"slow_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(SLOW_MODULE)
    sys.path.insert(0, str(tmp_path))
    yield name
    sys.path.remove(str(tmp_path))
    sys.modules.pop(name, None)


def test_a_stopped_waiter_leaves_the_load_to_the_others(slow_module: str) -> None:
    async def scenario() -> str:
        first = asyncio.ensure_future(heavy.ready((slow_module,)))
        await asyncio.sleep(0.05)
        first.cancel()  # the person stops the reply that was waiting
        with pytest.raises(asyncio.CancelledError):
            await first
        await heavy.ready((slow_module,))  # the next message still gets the module
        return str(sys.modules[slow_module].LOADED_ON)

    assert asyncio.run(scenario()) == "deskhand-import"


def test_the_event_loop_runs_while_a_module_loads(slow_module: str) -> None:
    async def scenario() -> int:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.ensure_future(tick())
        await heavy.ready((slow_module,))
        ticker.cancel()
        return ticks

    assert asyncio.run(scenario()) >= 10  # 0.3 s of loading: the loop kept running

"""Event-loop stalls, measured two ways, and the first turn: a message sent the moment the window
appears. Shared by `startup.py` and `ui_stream.py`.

- A thread schedules a callback every 1 ms with `call_soon_threadsafe`: the latency until it
  runs (independent of any QTimer).
- An asyncio task sleeps 5 ms in a loop: how late it wakes.

The longest of either is the longest stall: the time the window could not answer a click or
a key. Target: under 50 ms, on every path a person can take.

On a shared machine much of a stall can be the system's: the loop's thread was ready but no
core was free. Linux counts that time per thread (/proc/self/task/TID/schedstat), so each
callback's latency is also kept less that wait: `own_stall_ms` is the longest stall the
process made itself (its own work, its other threads holding the interpreter), near what an
idle machine would show (still high: another of its threads kept off a core while it holds
the interpreter counts as its own).

Importing this module answers PySide's feature probe as the app does before its window's
modules load (desktop/__main__.py): without that, each module imported later has its source
read, and the tools loading behind a benchmark's window would cost more than the app's.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ui.feature_probe import skip_feature_probe

if TYPE_CHECKING:
    from ui.window.main_window import MainWindow

skip_feature_probe()

STALL_TARGET_MS = 50.0


@dataclass
class Probes:
    """Everything measured while the loop is watched."""

    callback_latency: list[float] = field(default_factory=list)
    sleep_lateness: list[float] = field(default_factory=list)
    # Each callback's latency less the time its thread waited for a free core meanwhile.
    own_latency: list[float] = field(default_factory=list)
    loop_thread: int | None = None  # the loop's thread (its native id), set as watching starts
    stop: threading.Event = field(default_factory=threading.Event)

    def stall_ms(self) -> float:
        late = [*self.callback_latency, *self.sleep_lateness]
        return max(late, default=0.0) * 1000

    def own_stall_ms(self) -> float | None:
        """The longest stall less the system's share; None where Linux's counts are missing."""
        return max(self.own_latency) * 1000 if self.own_latency else None


def _core_wait(thread_id: int) -> float | None:
    """Seconds `thread_id` has spent ready to run while no core was free (Linux), or None."""
    try:
        with open(f"/proc/self/task/{thread_id}/schedstat") as counts:
            return int(counts.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def _tick_thread(loop: asyncio.AbstractEventLoop, probes: Probes) -> None:
    def arrived(sent: float, waited_before: float | None) -> None:
        latency = time.perf_counter() - sent
        probes.callback_latency.append(latency)
        if waited_before is not None and probes.loop_thread is not None:
            waited = _core_wait(probes.loop_thread)
            if waited is not None:
                probes.own_latency.append(max(0.0, latency - (waited - waited_before)))

    while not probes.stop.is_set():
        waited = _core_wait(probes.loop_thread) if probes.loop_thread is not None else None
        loop.call_soon_threadsafe(arrived, time.perf_counter(), waited)
        time.sleep(0.001)


async def _sleep_probe(probes: Probes) -> None:
    while not probes.stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.005)
        probes.sleep_lateness.append(time.perf_counter() - start - 0.005)


@asynccontextmanager
async def watching(probes: Probes) -> AsyncIterator[Probes]:
    """Runs both probes for the length of the block."""
    loop = asyncio.get_running_loop()
    probes.loop_thread = threading.get_native_id()
    ticker = threading.Thread(target=_tick_thread, args=(loop, probes), daemon=True)
    ticker.start()
    sleeper = asyncio.ensure_future(_sleep_probe(probes))
    try:
        yield probes
    finally:
        probes.stop.set()
        await sleeper
        ticker.join()


async def replied(window: MainWindow, text: str) -> None:
    """Send `text` in the window's chat and wait until its turn has ended."""
    from desktop.chat.conversations import ConversationEvent, TurnRunning

    ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_event(event: ConversationEvent) -> None:
        if isinstance(event, TurnRunning) and not event.running and not ended.done():
            ended.set_result(None)

    stop_listening = window.conversations.subscribe(on_event)
    try:
        assert window.send(text)
        await ended
    finally:
        stop_listening()


async def first_turn(window: MainWindow, text: str) -> tuple[Probes, float]:
    """Show `window`, and once it is painted do what the app does (`desktop/app.py`): start the
    stream process, the background loading and the tool sources, and send `text` at once. The
    loop is watched from the first paint until the reply is in; (probes, seconds to the reply).
    """
    from desktop.app import freeze_startup_objects, start_behind_the_window
    from desktop.system import heavy
    from ui.first_paint import first_paint

    window.show()
    await first_paint(window)
    async with watching(Probes()) as probes:
        started = time.perf_counter()
        starting = start_behind_the_window(window.workspace)
        await replied(window, text)
        elapsed = time.perf_counter() - started
        await heavy.ready(heavy.TOOLS + heavy.COMMANDS)
        await starting
        freeze_startup_objects()  # as the app does once everything is in
        await asyncio.sleep(0.1)  # and a moment after, as the person reads the reply
    return probes, elapsed

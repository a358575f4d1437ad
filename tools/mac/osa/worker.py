"""Persistent JXA workers: long-lived `osascript -l JavaScript worker.js` processes.

A worker reads one JSON request per line on stdin and writes one JSON response per line on
stdout (see scripts/worker.js). The pool hands each call an idle worker; a call that times out,
overflows the output cap or loses its worker kills that worker's process group and a fresh
worker takes its place. When no worker can be started, `run` answers None and the engine falls
back to one-shot processes (and tries workers again a little later).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.mac.osa.errors import OsaError, ProblemKind, classify, from_stderr, problem
from tools.mac.osa.process import kill_group, read_tail, reap, spawn

log = logging.getLogger(__name__)

PROTOCOL = 1
LINE_SLACK = 65_536  # room for the response envelope around a capped output


class WorkerStartError(Exception):
    """The worker process did not start or did not say it was ready."""


class Worker:
    """One worker process; one request at a time (the pool makes sure of that)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._broken = False
        assert proc.stderr is not None
        self._stderr = asyncio.ensure_future(read_tail(proc.stderr))

    @classmethod
    async def start(
        cls,
        osascript: str,
        worker_script: Path,
        scripts_dir: Path,
        *,
        cap: int,
        ready_timeout: float,
    ) -> Worker:
        options = json.dumps({"scripts_dir": str(scripts_dir)}, ensure_ascii=True)
        try:
            proc = await spawn(
                [osascript, "-l", "JavaScript", worker_script, options],
                stdin=asyncio.subprocess.PIPE,
                limit=cap + LINE_SLACK,
            )
        except OSError as exc:
            raise WorkerStartError(str(exc)) from exc
        worker = cls(proc)
        try:
            assert proc.stdout is not None
            async with asyncio.timeout(ready_timeout):
                hello = json.loads(await proc.stdout.readuntil(b"\n"))
            if not (
                isinstance(hello, dict)
                and hello.get("ready") is True
                and hello.get("protocol") == PROTOCOL
            ):
                raise WorkerStartError("unexpected greeting")
        except (
            TimeoutError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ValueError,
        ) as exc:
            await worker.close()
            raise WorkerStartError(type(exc).__name__) from exc
        except BaseException:
            await worker.close()
            raise
        return worker

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def alive(self) -> bool:
        return not self._broken and self.proc.returncode is None

    async def request(
        self, request_id: int, script: str, payload: str, *, time_limit: float, app: str | None
    ) -> str:
        """The action's output text, or OsaError. Fatal failures leave the worker closed."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        line = json.dumps({"id": request_id, "script": script, "input": payload}, ensure_ascii=True)
        try:
            async with asyncio.timeout(time_limit):
                self.proc.stdin.write(line.encode("ascii") + b"\n")
                await self.proc.stdin.drain()
                raw = await self.proc.stdout.readuntil(b"\n")
        except TimeoutError as exc:
            log.warning(
                "worker %s timed out after %.1f s on %s; replacing it", self.pid, time_limit, script
            )
            await self.close()
            raise OsaError(problem(ProblemKind.TIMEOUT, app=app)) from exc
        except asyncio.LimitOverrunError as exc:
            await self.close()
            raise OsaError(problem(ProblemKind.OUTPUT_TOO_LARGE, app=app)) from exc
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            stderr = await self._stderr_text()
            await self.close()
            log.warning("worker %s died during %s", self.pid, script)
            raise OsaError(from_stderr(stderr, app=app)) from exc
        except BaseException:
            await (
                self.close()
            )  # cancelled mid-request: the worker is busy with a call nobody awaits
            raise
        return self._output(raw, request_id, app)

    def _output(self, raw: bytes, request_id: int, app: str | None) -> str:
        try:
            response = json.loads(raw)
        except ValueError:
            response = None
        if not isinstance(response, dict) or response.get("id") != request_id:
            self._broken = True  # out of step with its requests: never trust it again
            raise OsaError(
                problem(ProblemKind.BAD_OUTPUT, app=app, detail=raw[:2000].decode(errors="replace"))
            )
        if response.get("ok") is True and isinstance(response.get("output"), str):
            return response["output"]
        error = response.get("error")
        if not isinstance(error, dict) or error.get("kind") == "protocol":
            raise OsaError(problem(ProblemKind.BAD_OUTPUT, app=app, detail=str(error)[:2000]))
        number = error.get("number")
        raise OsaError(
            classify(
                number if isinstance(number, int) else None,
                syntax=error.get("kind") == "syntax",
                app=app,
                detail=str(error.get("message", ""))[:2000],
            )
        )

    async def _stderr_text(self) -> str:
        """What the worker wrote to stderr, once it has finished writing (or after 1 s)."""
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            async with asyncio.timeout(1.0):
                await asyncio.shield(self._stderr)
        if (
            self._stderr.done()
            and not self._stderr.cancelled()
            and self._stderr.exception() is None
        ):
            return self._stderr.result().decode("utf-8", errors="replace")
        return ""

    async def close(self, *, graceful: bool = False) -> None:
        """End the worker: at end of input when graceful and quick, else kill its process group."""
        self._broken = True
        if graceful and self.proc.returncode is None and self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.5):
                    await self.proc.wait()
        kill_group(self.proc)
        await reap(self.proc)
        self._stderr.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._stderr

    def kill_now(self) -> None:
        """Kill without awaiting (for shutdown when no event loop runs any more)."""
        self._broken = True
        kill_group(self.proc)


@dataclass(kw_only=True, eq=False)
class WorkerPool:
    """A fixed number of worker slots; each slot holds a live worker or None (start on use)."""

    osascript: str
    worker_script: Path
    scripts_dir: Path
    size: int = 2
    cap: int = 1_000_000
    start_timeout: float = 10.0
    retry_after: float = 30.0
    _retry_at: float = field(default=0.0, init=False)
    _slots: asyncio.Queue[Worker | None] = field(default_factory=asyncio.Queue, init=False)
    _live: set[Worker] = field(default_factory=set, init=False)
    _refills: set[asyncio.Task[None]] = field(default_factory=set, init=False)
    _next_id: int = field(default=0, init=False)
    _closed: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        for _ in range(self.size):
            self._slots.put_nowait(None)

    @property
    def pids(self) -> list[int]:
        """Process ids of the live workers."""
        return sorted(worker.pid for worker in self._live if worker.alive)

    async def warm(self) -> None:
        """Start every idle slot's worker now rather than on first use."""
        idle = []
        while not self._slots.empty():
            idle.append(self._slots.get_nowait())
        starting = []
        for slot in idle:
            if slot is not None and slot.alive:
                self._slots.put_nowait(slot)
            else:
                starting.append(self._refill(slot))
        await asyncio.gather(*starting)

    async def run(
        self, script: str, payload: str, *, time_limit: float, app: str | None
    ) -> str | None:
        """The action's output through a worker; None when no worker could be started."""
        if self._closed:
            return None
        worker = await self._slots.get()
        try:
            if worker is None or not worker.alive:
                if worker is not None:
                    await self._forget(worker)
                worker = await self._start()
                if worker is None:
                    return None
            self._next_id += 1
            return await worker.request(
                self._next_id, script, payload, time_limit=time_limit, app=app
            )
        finally:
            self._give_back(worker)

    def _give_back(self, worker: Worker | None) -> None:
        if self._closed:
            if worker is not None:
                worker.kill_now()
            return
        if worker is not None and worker.alive:
            self._slots.put_nowait(worker)
            return
        task = asyncio.ensure_future(self._refill(worker))
        self._refills.add(task)
        task.add_done_callback(self._refills.discard)

    async def _refill(self, old: Worker | None) -> None:
        """Put a fresh worker (or None, to start on use) into a slot that lost its worker."""
        new: Worker | None = None
        try:
            if old is not None:
                await self._forget(old)
            new = await self._start()
        finally:
            if self._closed and new is not None:
                new.kill_now()
                new = None
            self._slots.put_nowait(new)

    async def _start(self) -> Worker | None:
        if self._closed or time.monotonic() < self._retry_at:
            return None
        try:
            worker = await Worker.start(
                self.osascript,
                self.worker_script,
                self.scripts_dir,
                cap=self.cap,
                ready_timeout=self.start_timeout,
            )
        except WorkerStartError as exc:
            self._retry_at = time.monotonic() + self.retry_after
            log.warning("could not start a JXA worker (%s); using one-shot runs for now", exc)
            return None
        self._live.add(worker)
        return worker

    async def _forget(self, worker: Worker) -> None:
        self._live.discard(worker)
        await worker.close()

    async def aclose(self) -> None:
        """Stop every worker (they exit at end of input; stragglers are killed)."""
        self._closed = True
        for task in list(self._refills):
            task.cancel()
        await asyncio.gather(*self._refills, return_exceptions=True)
        workers = list(self._live)
        self._live.clear()
        await asyncio.gather(*(worker.close(graceful=True) for worker in workers))

    def kill_now(self) -> None:
        """Kill every worker at once, without an event loop (last resort at exit)."""
        self._closed = True
        for worker in self._live:
            worker.kill_now()
        self._live.clear()

"""The osascript engine: runs constant JXA action scripts with one JSON value in and JSON out.

Data in, never code: an action is a file under `scripts/` named like "macos/calendar_today";
its input travels as JSON text (an argv argument for one-shot runs, a field of the request line
for workers) and is never pasted into script source. A folder's `_prelude.js`, constant too, is
put before each of its scripts (functions they share); names starting with "_" are no actions. Calls go through the worker pool when it
can start workers and fall back to one-shot processes otherwise. Every call to a named app also
updates the Automation log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tools.mac.osa.automation import AutomationLog
from tools.mac.osa.errors import OsaError, ProblemKind, classify, problem
from tools.mac.osa.oneshot import run_once
from tools.mac.osa.worker import WorkerPool

log = logging.getLogger(__name__)

SCRIPTS_DIR = Path(__file__).with_name("scripts")
WORKER_SCRIPT = SCRIPTS_DIR / "worker.js"
DEFAULT_TIMEOUT = 30.0
OUTPUT_CAP = 1_000_000
OSASCRIPT_ENV = "DESKHAND_OSASCRIPT"  # another osascript (tests point it at the Node stand-in)
_SCRIPT_NAME = re.compile(r"[a-z0-9][a-z0-9_]*(?:/[a-z0-9][a-z0-9_]*)*")
PRELUDE = "_prelude.js"


def find_osascript(explicit: str | os.PathLike[str] | None = None) -> str | None:
    """The osascript to run: `explicit`, else $DESKHAND_OSASCRIPT, else the one on PATH."""
    candidate = explicit or os.environ.get(OSASCRIPT_ENV) or "osascript"
    return shutil.which(os.fspath(candidate))


def macos_available() -> bool:
    """True on macOS with osascript present: only then are the Mac tools offered to the model."""
    return sys.platform == "darwin" and find_osascript() is not None


def payload_json(payload: Mapping[str, Any]) -> str:
    """The input as pure-ASCII JSON text: every other character escaped, so nothing about the
    argv or pipe encoding can change it, and a lone surrogate survives too."""
    return json.dumps(payload, ensure_ascii=True, separators=(",", ":"))


def decode_output(text: str, *, app: str | None) -> Any:
    """The script's JSON answer; `{"error": {"number": N}}` answers become OsaError."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise OsaError(problem(ProblemKind.BAD_OUTPUT, app=app, detail=text[:2000])) from exc
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        number = value["error"].get("number")
        raise OsaError(
            classify(
                number if isinstance(number, int) else None,
                app=app,
                detail=str(value["error"].get("message", ""))[:2000],
            )
        )
    return value


class OsaEngine:
    """Runs action scripts through a pool of persistent workers, or one-shot when it must.

    Close it on quit with `await engine.aclose()` (or `engine.kill_now()` when no loop runs).
    """

    def __init__(
        self,
        *,
        osascript: str | os.PathLike[str] | None = None,
        workers: int = 2,
        timeout: float = DEFAULT_TIMEOUT,
        output_cap: int = OUTPUT_CAP,
        scripts_dir: Path = SCRIPTS_DIR,
        worker_script: Path = WORKER_SCRIPT,
        automation: AutomationLog | None = None,
        max_processes: int = 4,
        start_timeout: float = 10.0,
    ) -> None:
        self.osascript = find_osascript(osascript)
        self.timeout = timeout
        self.output_cap = output_cap
        self.scripts_dir = Path(scripts_dir)
        self.automation = automation if automation is not None else AutomationLog()
        self._processes = asyncio.Semaphore(max_processes)  # one-shot processes at once
        self._sources: dict[
            Path, str | None
        ] = {}  # one-shot runs' text, for folders with a prelude
        self.pool: WorkerPool | None = None
        if workers > 0 and self.osascript is not None:
            self.pool = WorkerPool(
                osascript=self.osascript,
                worker_script=Path(worker_script),
                scripts_dir=self.scripts_dir,
                size=workers,
                cap=output_cap,
                start_timeout=start_timeout,
            )

    @property
    def available(self) -> bool:
        return self.osascript is not None

    def script_path(self, script: str) -> Path:
        """The file of a named action script; only names of existing scripts are accepted."""
        if not _SCRIPT_NAME.fullmatch(script):
            raise OsaError(problem(ProblemKind.SCRIPT_BUG, detail="bad script name"))
        path = self.scripts_dir.joinpath(*script.split("/")).with_suffix(".js")
        if not path.is_file():
            raise OsaError(problem(ProblemKind.SCRIPT_BUG, detail="no such script"))
        return path

    def script_source(self, path: Path) -> str | None:
        """The text a one-shot run of `path` runs when its folder has a prelude (the prelude,
        then the script); None when the file runs as it is. Both are constant files, read once."""
        if path not in self._sources:
            prelude = path.with_name(PRELUDE)
            self._sources[path] = (
                prelude.read_text(encoding="utf-8") + "\n" + path.read_text(encoding="utf-8")
                if prelude.is_file()
                else None
            )
        return self._sources[path]

    async def start(self) -> None:
        """Start the workers now (optional: they also start on first use)."""
        if self.pool is not None:
            await self.pool.warm()

    async def call(
        self,
        script: str,
        payload: Mapping[str, Any],
        *,
        app: str | None = None,
        time_limit: float | None = None,
    ) -> Any:
        """Run `script` with `payload`; its decoded JSON answer, or OsaError.

        `app` is the app the script sends Apple Events to (None when it talks to none): it
        names the app in messages and records its Automation state.
        """
        try:
            text = await self._run(script, payload_json(payload), app=app, time_limit=time_limit)
            result = decode_output(text, app=app)
        except OsaError as exc:
            log.info("%s failed: %s (%s)", script, exc.problem.kind, exc.problem.number)
            if app is not None:
                self.automation.observe(app, exc.problem)
            raise
        if app is not None:
            self.automation.observe(app, None)
        return result

    async def _run(
        self, script: str, payload: str, *, app: str | None, time_limit: float | None
    ) -> str:
        path = self.script_path(script)
        if self.osascript is None:
            raise OsaError(problem(ProblemKind.UNAVAILABLE, app=app))
        limit = self.timeout if time_limit is None else time_limit
        if self.pool is not None:
            output = await self.pool.run(script, payload, time_limit=limit, app=app)
            if output is not None:
                return output
        async with self._processes:
            return await run_once(
                self.osascript,
                path,
                payload,
                source=self.script_source(path),
                time_limit=limit,
                cap=self.output_cap,
                app=app,
            )

    @property
    def worker_pids(self) -> list[int]:
        return self.pool.pids if self.pool is not None else []

    async def aclose(self) -> None:
        if self.pool is not None:
            await self.pool.aclose()

    def kill_now(self) -> None:
        if self.pool is not None:
            self.pool.kill_now()

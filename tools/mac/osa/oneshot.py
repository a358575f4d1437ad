"""One-shot runs: `osascript -l JavaScript FILE JSON`, one process per call.

A script whose folder has a prelude runs as `osascript -l JavaScript -e TEXT JSON` instead, TEXT
being the prelude and the script's file, both constant; the input is still the one argument.

No shell: argv goes straight to exec. The process leads its own process group so a timeout (or a
cancelled call) kills it and anything it started; stdout is capped, stderr kept, and the exit
status decides between the output and a classified error.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from tools.mac.osa.errors import OsaError, ProblemKind, from_stderr, problem
from tools.mac.osa.process import OutputTooLarge, kill_group, read_capped, read_tail, reap, spawn

log = logging.getLogger(__name__)


async def run_once(
    osascript: str,
    script: Path,
    payload: str,
    *,
    source: str | None = None,
    time_limit: float,
    cap: int,
    app: str | None = None,
) -> str:
    """The script's output text (what its `run` returned), or OsaError.

    `time_limit` is the per-action limit: past it the process group is killed (TIMEOUT).
    """
    program: list[str | Path] = [script] if source is None else ["-e", source]
    try:
        proc = await spawn(
            [osascript, "-l", "JavaScript", *program, payload],
            stdin=asyncio.subprocess.DEVNULL,
            limit=65_536,
        )
    except (FileNotFoundError, PermissionError) as exc:
        raise OsaError(problem(ProblemKind.UNAVAILABLE, app=app, detail=str(exc))) from exc
    except OSError as exc:
        raise OsaError(problem(ProblemKind.CRASHED, app=app, detail=str(exc))) from exc

    assert proc.stdout is not None and proc.stderr is not None
    stderr_task = asyncio.ensure_future(read_tail(proc.stderr))
    finished = False
    try:
        async with asyncio.timeout(time_limit):
            stdout = await read_capped(proc.stdout, cap)
            stderr = await stderr_task
            code = await proc.wait()
        finished = True
    except TimeoutError as exc:
        log.warning(
            "osascript %s timed out after %.1f s; killed its process group", script.name, time_limit
        )
        raise OsaError(problem(ProblemKind.TIMEOUT, app=app)) from exc
    except OutputTooLarge as exc:
        raise OsaError(problem(ProblemKind.OUTPUT_TOO_LARGE, app=app)) from exc
    finally:
        if not finished:
            kill_group(proc)
        stderr_task.cancel()
        await reap(proc)

    err_text = stderr.decode("utf-8", errors="replace")
    if code != 0:
        found = from_stderr(err_text, app=app)
        log.info("osascript %s failed (exit %s): %s", script.name, code, found.kind)
        raise OsaError(found)
    text = stdout.decode("utf-8", errors="replace")
    return text.removesuffix("\n")

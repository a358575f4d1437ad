"""The login shell's PATH, read once at start: an app opened from the Finder or the Dock gets
only `/usr/bin:/bin:/usr/sbin:/sbin`, so `node`, Homebrew tools and the like would not be found.

The composition root awaits `adopt_login_path()` before it builds the tools. It runs the
person's shell as a login, interactive shell (where nvm, Homebrew and friends set PATH up),
reads PATH between two markers so anything the profile prints is ignored, and merges it in
front of the current PATH. A shell that hangs is killed after the timeout; a failure leaves
PATH as it was, plus the usual tool folders that exist. Qt-free.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pwd
import signal
import sys
import time
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

MARKER = "__DESKHAND_PATH__"
DEFAULT_TIMEOUT = 5.0

# Where tools live when the shell cannot tell us (Homebrew on Apple silicon and Intel, pipx, cargo).
WELL_KNOWN = (
    "/opt/homebrew/bin",
    "/opt/homebrew/sbin",
    "/usr/local/bin",
    "~/.local/bin",
    "~/.cargo/bin",
)


@dataclass(frozen=True)
class LoginPath:
    """What `adopt_login_path` did, for the log and `deskhand doctor`."""

    source: Literal["shell", "fallback", "skipped"]
    path: str  # PATH after merging
    detail: str  # the shell used, or why it was not
    elapsed_ms: int = 0


def needed(*, frozen: bool | None = None, platform: str = sys.platform) -> bool:
    """True where the PATH may be the bare launchd one: a macOS app, or any frozen bundle."""
    is_frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    return platform == "darwin" or is_frozen


def restore_library_path(
    environ: MutableMapping[str, str] | None = None,
    *,
    frozen: bool | None = None,
    platform: str = sys.platform,
) -> None:
    """Give the programs Deskhand starts the person's LD_LIBRARY_PATH, not the bundle's.

    In a frozen Linux bundle PyInstaller's bootloader points LD_LIBRARY_PATH at the bundle's
    own libraries (keeping the person's value in LD_LIBRARY_PATH_ORIG). Deskhand itself has
    already started with it; a system Chromium or the login shell started with it could load
    the bundle's older copies of their libraries and crash.
    """
    env = os.environ if environ is None else environ
    is_frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    if not (is_frozen and platform.startswith("linux")):
        return
    original = env.pop("LD_LIBRARY_PATH_ORIG", None)
    if original:
        env["LD_LIBRARY_PATH"] = original
    else:
        env.pop("LD_LIBRARY_PATH", None)


def login_shell(environ: MutableMapping[str, str] | None = None) -> str:
    """The person's shell: $SHELL, else the password database, else the platform default."""
    env = os.environ if environ is None else environ
    if shell := env.get("SHELL"):
        return shell
    with contextlib.suppress(KeyError, OSError):
        if shell := pwd.getpwuid(os.getuid()).pw_shell:
            return shell
    return "/bin/zsh" if sys.platform == "darwin" else "/bin/sh"


def merge_paths(first: str, then: str) -> str:
    """`first`'s folders in order, then `then`'s that are not already there; no empty entries."""
    seen: dict[str, None] = {}
    for entry in [*first.split(os.pathsep), *then.split(os.pathsep)]:
        if entry and entry not in seen:
            seen[entry] = None
    return os.pathsep.join(seen)


def _between_markers(output: str) -> str | None:
    parts = output.split(MARKER)
    if len(parts) < 3:
        return None
    path = parts[1].strip()
    return path or None


def _existing_dirs(folders: Sequence[str]) -> list[str]:
    return [str(p) for p in (Path(f).expanduser() for f in folders) if p.is_dir()]


async def read_login_path(
    shell: str,
    *,
    time_limit: float = DEFAULT_TIMEOUT,
    environ: MutableMapping[str, str] | None = None,
) -> str | None:
    """PATH as the person's login shell sets it, or None (no shell, timeout, nothing printed).

    `printenv` is an external command, so the PATH it prints is the exported one in any shell
    (fish keeps PATH as a list internally). stdin is closed: a profile that waits for input
    reads end-of-file instead of hanging; a profile that hangs anyway is killed at `time_limit`.
    """
    command = f"echo {MARKER}; printenv PATH; echo {MARKER}"
    env = dict(os.environ if environ is None else environ)
    try:
        process = await asyncio.create_subprocess_exec(
            shell,
            "-l",
            "-i",
            "-c",
            command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # no controlling terminal to grab; one group to kill
        )
    except OSError as exc:
        log.warning("login shell %s could not start: %s", shell, exc.strerror or exc)
        return None
    try:
        stdout, _ = await asyncio.wait_for(process.communicate(), time_limit)
    except TimeoutError:
        log.warning("login shell %s did not answer within %.0f s", shell, time_limit)
        return None
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
    return _between_markers(stdout.decode("utf-8", "replace"))


async def adopt_login_path(
    environ: MutableMapping[str, str] | None = None,
    *,
    shell: str | None = None,
    time_limit: float = DEFAULT_TIMEOUT,
    force: bool = False,
    well_known: Sequence[str] = WELL_KNOWN,
) -> LoginPath:
    """Merge the login shell's PATH into `environ` (default: this process's), once, at start.

    Skipped where it is not `needed()` (a terminal start already has it) unless `force`.
    First, in a Linux bundle, the library path children inherit is restored (see
    `restore_library_path`).
    """
    env = os.environ if environ is None else environ
    restore_library_path(env)
    current = env.get("PATH", "")
    if not (force or needed()):
        return LoginPath("skipped", current, "started from a terminal")
    shell = shell or login_shell(env)
    started = time.monotonic()
    found = await read_login_path(shell, time_limit=time_limit, environ=env)
    elapsed = int((time.monotonic() - started) * 1000)
    if found is not None:
        merged = merge_paths(found, current)
        source: Literal["shell", "fallback"] = "shell"
        detail = shell
    else:
        merged = merge_paths(current, os.pathsep.join(_existing_dirs(well_known)))
        source, detail = "fallback", f"{shell} gave no PATH; added the usual tool folders"
    env["PATH"] = merged
    log.info("PATH from %s (%s, %d ms): %s", source, detail, elapsed, merged)
    return LoginPath(source, merged, detail, elapsed)

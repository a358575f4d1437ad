"""Playwright inside Deskhand: where browsers live, which browser to prefer, and fetching Chromium.

- `configure_playwright()`: in a frozen bundle Playwright looks for browsers inside the app
  (`PLAYWRIGHT_BROWSERS_PATH=0`), which is read-only once signed. Deskhand points it at the
  per-user cache every Playwright install shares, before Playwright starts.
- `preferred_browser()`: an installed Chrome or Edge first (their vendors keep them updated),
  then whatever `find_browser()` finds (Playwright's Chromium, a system Chromium).
- `download_chromium()`: runs the bundled driver's `install chromium` and yields progress
  parsed from its output, for a progress bar; a failure raises one clear message.

No Qt here: the progress dialog lives in `ui/sheets/browser_download.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections import deque
from collections.abc import AsyncGenerator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop.system.errors import AppError
from tools.browser.locate import BrowserChoice, find_browser

BROWSERS_PATH_ENV = "PLAYWRIGHT_BROWSERS_PATH"


class BrowserDownloadFailed(AppError):
    """Chromium could not be downloaded. `message` says why and what to do; `output` is the log tail."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.output = output


def default_browsers_path() -> Path:
    """The per-user folder where Playwright keeps its browsers on this platform."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "ms-playwright"
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", str(Path.home()))) / "ms-playwright"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ms-playwright"


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def configure_playwright(
    environ: MutableMapping[str, str] | None = None, *, frozen: bool | None = None
) -> Path | None:
    """In a bundle, send Playwright to the per-user browser cache. Call before Playwright starts.

    Returns the folder in force, or None when not bundled (a pip install already uses the
    per-user cache). A folder the person chose is kept; "0" (inside the app) is not.
    """
    env = os.environ if environ is None else environ
    if not (is_frozen() if frozen is None else frozen):
        return None
    chosen = env.get(BROWSERS_PATH_ENV, "")
    if chosen and chosen != "0":
        return Path(chosen)
    path = default_browsers_path()
    env[BROWSERS_PATH_ENV] = str(path)
    return path


def preferred_browser(
    configured: str | None = None, *, branded: Mapping[str, Sequence[str]] | None = None
) -> BrowserChoice | None:
    """The browser a bundle drives: the configured one, else Chrome/Edge, else any Chromium.

    None means there is none: offer `download_chromium()`.
    """
    return find_browser(configured, branded_first=True, branded=branded)


# --- downloading Chromium ----------------------------------------------------------------------


def install_command() -> list[str]:
    """The bundled driver's `playwright install chromium` (works frozen, where `-m playwright` cannot).

    `--no-shell`: Deskhand launches the full Chromium, never the separate headless shell.
    """
    from playwright._impl._driver import compute_driver_executable

    node, cli = compute_driver_executable()
    return [node, cli, "install", "--no-shell", "chromium"]


def install_env() -> dict[str, str]:
    from playwright._impl._driver import get_driver_env

    env: dict[str, str] = get_driver_env()
    env.pop("FORCE_COLOR", None)  # plain lines, no escape codes to strip
    configure_playwright(env)
    return env


@dataclass(frozen=True)
class DownloadProgress:
    """One step of the download, as the progress dialog shows it."""

    title: str  # what is downloading: "Chrome for Testing 159.0.8154.6"
    percent: int | None  # of this item; None on a line that is not a progress step
    size: str = ""  # "170.3 MiB", once known
    finished: bool = False  # this item is downloaded and unpacked
    line: str = ""  # the output line it came from, cleaned


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_SUFFIX = r"(?: \(playwright [^)]*\))?"
_STARTED = re.compile(rf"^Downloading (?P<title>.+?){_SUFFIX} from \S+$")
_FINISHED = re.compile(rf"^(?P<title>.+?){_SUFFIX} downloaded to (?P<path>.+)$")
# Without a terminal: "|■■■■    | 40% of 170.3 MiB"; with one: "170.3 MiB [====  ] 40% 12.1s".
_PERCENT = re.compile(r"(?P<percent>\d{1,3})%(?: of (?P<size>[\d.]+ [KMG]i?B))?")
_SIZE_FIRST = re.compile(r"^(?P<size>[\d.]+ [KMG]i?B) \[")


class InstallOutput:
    """Reads `playwright install` output line by line and turns it into `DownloadProgress`."""

    def __init__(self) -> None:
        self.title = ""
        self.size = ""

    def feed(self, raw: str) -> DownloadProgress | None:
        line = _ANSI.sub("", raw).strip()
        if not line:
            return None
        if started := _STARTED.match(line):
            self.title, self.size = started["title"], ""
            return DownloadProgress(self.title, 0, line=line)
        if finished := _FINISHED.match(line):
            self.title = finished["title"]
            return DownloadProgress(self.title, 100, self.size, finished=True, line=line)
        step = _PERCENT.search(line)
        if self.title and step and ("|" in line or "[" in line):
            size_first = _SIZE_FIRST.match(line)
            self.size = step["size"] or (size_first["size"] if size_first else self.size)
            return DownloadProgress(
                self.title, min(int(step["percent"]), 100), self.size, line=line
            )
        return None


_PROBLEMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"ENOSPC|no space left", re.I),
        "The disk is full. Free some space and try again.",
    ),
    (
        re.compile(r"EACCES|EPERM|EROFS|permission denied", re.I),
        "Deskhand may not write to {path}. Check that folder's permissions and try again.",
    ),
    (
        re.compile(r"does not support", re.I),
        "Chromium cannot be downloaded for this system. Install Google Chrome instead.",
    ),
    (
        re.compile(r"server returned code (?P<code>\d+)"),
        "The download server answered with an error (HTTP {code}). Try again later, "
        "or install Google Chrome instead.",
    ),
    (
        re.compile(
            r"ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|ENETUNREACH|EHOSTUNREACH"
            r"|socket hang up|getaddrinfo|timed? ?out|certificate|self[- ]signed",
            re.I,
        ),
        "The download server could not be reached. Check the internet connection "
        "(and any proxy or firewall) and try again, or install Google Chrome instead.",
    ),
)


def explain_failure(output: str, returncode: int | None, path: Path | None = None) -> str:
    """One sentence or two a person understands, from the installer's output."""
    where = str(path or default_browsers_path())
    for pattern, advice in _PROBLEMS:
        if found := pattern.search(output):
            detail = advice.format(path=where, code=found.groupdict().get("code") or "")
            return f"Chromium could not be downloaded. {detail}"
    code = f" (exit code {returncode})" if returncode is not None else ""
    return (
        f"Chromium could not be downloaded: the installer stopped{code}. "
        "Try again, or install Google Chrome instead."
    )


async def download_chromium(
    command: Sequence[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> AsyncGenerator[DownloadProgress, None]:
    """Download Playwright's Chromium, yielding progress; raises `BrowserDownloadFailed`.

    Consume it with `contextlib.aclosing` so that stopping early (Cancel) ends the installer.
    """
    argv = list(command) if command is not None else install_command()
    run_env = dict(env) if env is not None else install_env()
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=run_env,
            start_new_session=True,  # its own process group: Cancel ends the unzip child too
        )
    except OSError as exc:
        raise BrowserDownloadFailed(
            "Chromium could not be downloaded: the browser installer could not be started "
            f"({exc.strerror or exc}). Reinstall Deskhand, or install Google Chrome instead."
        ) from exc
    assert process.stdout is not None
    parser = InstallOutput()
    tail: deque[str] = deque(maxlen=40)
    try:
        while raw := await process.stdout.readline():
            text = raw.decode("utf-8", "replace")
            tail.append(_ANSI.sub("", text).rstrip())
            if (progress := parser.feed(text)) is not None:
                yield progress
        returncode = await process.wait()
    finally:
        if process.returncode is None:
            await _stop(process)
    if returncode != 0:
        output = "\n".join(tail)
        path = Path(run_env[BROWSERS_PATH_ENV]) if run_env.get(BROWSERS_PATH_ENV) else None
        raise BrowserDownloadFailed(explain_failure(output, returncode, path), output)


async def _stop(process: asyncio.subprocess.Process) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            await asyncio.wait_for(process.wait(), 5)
            return
        except TimeoutError:
            continue

"""`deskhand doctor`: a table of checks a person (or a bug report) can read at a glance.

Checks are small async functions returning a `Check`; later capabilities add their own
with `register`. A failed *required* check makes the command exit non-zero.

It runs where the window cannot (over ssh, in a container): without a display Qt's offscreen
platform stands in, and the table says so.

Each check says what it found (`detail`) and, when something is wrong, what the person can do
(`fix`); `deskhand doctor --json` prints them as `deskhand.doctor/1` (`as_json`).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Literal

import anthropic

from desktop.calls.sources.screen.source import BACKEND_TITLES, screen_report, status_line
from desktop.model_stream import errors
from desktop.system.keystore import KeyStore
from desktop.system.paths import DataPaths
from desktop.system.playwright_env import is_frozen
from desktop.system.settings.model import Settings
from tools.browser.locate import find_browser, install_hint
from tools.data import Data
from tools.mac.macos import macos_status


@dataclass(frozen=True)
class Subject:
    """What the checks look at, handed in by the composition root (`desktop.__main__`)."""

    paths: DataPaths
    keys: KeyStore
    settings: Settings
    model_client: Callable[
        [], Awaitable[anthropic.AsyncAnthropic]
    ]  # the client the agent would use


class Check(Data):
    name: str
    status: Literal["ok", "warn", "fail"]
    detail: str
    required: bool = True
    fix: str = ""  # what the person can do about a warning or failure


NO_DISPLAY = "none (offscreen); the window needs a desktop session"
HEADLESS_PLATFORMS = ("offscreen", "minimal")


def use_offscreen_without_display(
    environ: MutableMapping[str, str] = os.environ, system: str = sys.platform
) -> None:
    """On Linux with no X11 or Wayland display, Qt's default platform aborts the process; its
    offscreen one checks Qt all the same. Call before any Qt object exists; a platform the
    person chose (QT_QPA_PLATFORM) is kept."""
    if not system.startswith("linux") or environ.get("QT_QPA_PLATFORM"):
        return
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return
    environ["QT_QPA_PLATFORM"] = "offscreen"


def display_check(qt_platform: str, environ: Mapping[str, str] = os.environ) -> Check:
    """Whether the window has somewhere to show, given the platform Qt started with."""
    if qt_platform in HEADLESS_PLATFORMS:
        return Check(name="Display", status="warn", detail=NO_DISPLAY, required=False)
    if qt_platform.startswith("wayland") and environ.get("WAYLAND_DISPLAY"):
        return Check(name="Display", status="ok", detail=f"Wayland {environ['WAYLAND_DISPLAY']}")
    if qt_platform == "xcb" and environ.get("DISPLAY"):
        return Check(name="Display", status="ok", detail=f"X11 {environ['DISPLAY']}")
    return Check(name="Display", status="ok", detail=qt_platform)


CheckFn = Callable[[Subject], Awaitable[Check]]
_checks: list[CheckFn] = []


def register(check: CheckFn) -> CheckFn:
    _checks.append(check)
    return check


@register
async def python_version(_: Subject) -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    ok = sys.version_info >= (3, 11)
    return Check(
        name="Python",
        status="ok" if ok else "fail",
        detail=version if ok else f"{version} (needs 3.11+)",
        fix="" if ok else "Install Python 3.11 or newer, then Deskhand again.",
    )


@register
async def data_dir(ws: Subject) -> Check:
    try:
        with tempfile.NamedTemporaryFile(dir=ws.paths.root):
            pass
    except OSError as exc:
        return Check(
            name="Data dir writable",
            status="fail",
            detail=f"{ws.paths.root}: {exc.strerror}",
            fix="Make the folder writable for your user, or choose another with --data-dir.",
        )
    return Check(name="Data dir writable", status="ok", detail=str(ws.paths.root))


@register
async def api_key(ws: Subject) -> Check:
    if ws.keys.get():
        return Check(name="API key", status="ok", detail=ws.keys.source())
    return Check(
        name="API key",
        status="fail",
        detail="not set",
        fix="Open Settings → Model, or set ANTHROPIC_API_KEY.",
    )


@register
async def api_reachable(ws: Subject) -> Check:
    model = ws.settings.model.model
    where = ws.settings.effective_base_url() or "api.anthropic.com"
    try:
        client = await ws.model_client()
        await asyncio.wait_for(client.models.retrieve(model), timeout=20)
    except errors.MissingKeyError:
        return Check(
            name="API reachable",
            status="fail",
            detail="skipped: no API key",
            fix="Set the API key first (Settings → Model).",
        )
    except (anthropic.APIError, TimeoutError, OSError) as exc:
        report = errors.describe(exc, model=model)
        return Check(
            name="API reachable",
            status="fail",
            detail=f"{where}, {model}: {report.title}",
            fix="Check the key, the model and the server address in Settings → Model.",
        )
    return Check(name="API reachable", status="ok", detail=f"{where}, model {model}")


@register
async def browser(ws: Subject) -> Check:
    # The browser the tool will launch, in the order it looks.
    configured = ws.settings.browser.executable_path.strip() or None
    choice = find_browser(configured, branded_first=is_frozen())
    if choice is None:
        return Check(
            name="Browser",
            status="warn",
            detail="none found",
            fix=f"Install one: {install_hint()}",
            required=False,
        )
    return Check(
        name="Browser",
        status="ok",
        detail=f"{choice.source}: {choice.path or choice.channel}",
        required=False,
    )


@register
async def mac_tools(_: Subject) -> Check:
    available, line = macos_status()
    return Check(
        name="Mac tools", status="ok" if available else "warn", detail=line, required=False
    )


@register
async def screen_control(ws: Subject) -> Check:
    name = "Screen control"
    if not ws.settings.screen.enabled:
        return Check(name=name, status="ok", detail="off (Settings → Screen)", required=False)
    status, displays = await asyncio.to_thread(screen_report)
    usable, _line = status_line(status)
    if not usable:
        return Check(name=name, status="warn", detail=status.reason, fix=status.fix, required=False)
    where = BACKEND_TITLES.get(status.backend, status.backend)
    if status.backend == "x11":
        where += f" {os.environ.get('DISPLAY', '')}".rstrip()
    sizes = ", ".join(f"{d.frame.width}×{d.frame.height}" for d in displays)
    count = f"{len(displays)} display{'s' if len(displays) != 1 else ''}"
    detail = f"{where}; {count}" + (f" ({sizes})" if sizes else "")
    if status.reason:
        detail += f"; {status.reason}"
    return Check(name=name, status="ok", detail=detail, required=False)


@register
async def socket_peers(_: Subject) -> Check:
    """Who may use `deskhand ui` / `deskhand mcp`'s way into the window (code_signature.py)."""
    from desktop.command.code_signature import SignatureUnreadable, own_team, peer_signature_line

    try:
        team = await asyncio.to_thread(own_team)
    except SignatureUnreadable:
        return Check(
            name="Command-line socket",
            status="warn",
            detail="This app's code signature could not be read (codesign failed), so the "
            "command line and MCP clients are refused. Reinstall Deskhand if it persists.",
            required=False,
        )
    unsigned_mac = sys.platform == "darwin" and team is None
    return Check(
        name="Command-line socket",
        status="warn" if unsigned_mac else "ok",
        detail=peer_signature_line(team),
        required=False,
    )


async def run_checks(
    ws: Subject, extra: list[Check] | None = None, limit: float | None = None
) -> list[Check]:
    """Every check, each within `limit` seconds (`--timeout`; none by default)."""
    results = list(extra or [])
    for check in _checks:
        try:
            results.append(await asyncio.wait_for(check(ws), limit))
        except TimeoutError:
            results.append(
                Check(
                    name=check.__name__.replace("_", " ").capitalize(),
                    status="fail",
                    detail=f"did not finish within {limit:g} s",
                    fix="Run `deskhand doctor` again with a longer --timeout.",
                )
            )
    return results


def render(checks: list[Check]) -> str:
    marks = {"ok": "ok", "warn": "warn", "fail": "FAIL"}
    width = max(len(c.name) for c in checks)
    lines = [f"{'check'.ljust(width)}  status  detail", f"{'-' * width}  ------  ------"]
    lines += [
        f"{c.name.ljust(width)}  {marks[c.status].ljust(6)}  {c.detail}"
        + (f" → {c.fix}" if c.fix else "")
        for c in checks
    ]
    return "\n".join(lines)


def as_json(checks: list[Check]) -> dict[str, object]:
    """The `deskhand.doctor/1` answer: one object per check (`schemas/deskhand.doctor.1.json`)."""
    return {
        "schema": "deskhand.doctor/1",
        "ok": exit_code(checks) == 0,
        "checks": [
            {
                "name": c.name,
                "ok": c.status == "ok",
                "status": c.status,
                "required": c.required,
                "detail": c.detail,
                "fix": c.fix or None,
            }
            for c in checks
        ],
    }


def exit_code(checks: list[Check]) -> int:
    return 1 if any(c.status == "fail" and c.required for c in checks) else 0

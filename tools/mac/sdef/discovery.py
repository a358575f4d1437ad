"""Finding the scriptable apps: bundles in the usual folders, their Info.plist and dictionary.

An app is scriptable when its Info.plist sets `NSAppleScriptEnabled` or names a dictionary in
`OSAScriptingDefinition`. The dictionary is read from the bundle's Resources; an app that is
scriptable without a dictionary file (older terminology resources) is asked through macOS's
`sdef` command, run as an argv list in an async subprocess with a time limit and a cap.
Everything here but `sdef_tool_output` is blocking file work: callers run it in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import plistlib
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from tools.data import Data
from tools.mac.osa.process import OutputTooLarge, kill_group, read_capped, read_tail, reap, spawn
from tools.mac.sdef.xmlsafe import MAX_BYTES

log = logging.getLogger(__name__)

DEFAULT_ROOTS = (
    "/Applications",
    "/System/Applications",
    "/System/Applications/Utilities",
    "~/Applications",
    "/System/Library/CoreServices",
)
MAX_PLIST_BYTES = 1024 * 1024
SDEF_TOOL_TIMEOUT = 15.0
MAX_BUNDLES = 2_000


class BundleInfo(Data):
    """What an app's Info.plist says about scripting."""

    path: str
    name: str
    bundle_id: str | None = None
    scriptable: bool = False
    sdef_file: str | None = None  # the dictionary inside the bundle, when it names one


def find_bundles(roots: tuple[str, ...] | list[str], *, home: Path | None = None) -> list[Path]:
    """App bundles directly in each root, and one folder down (e.g. /Applications/Utilities)."""
    found: dict[str, Path] = {}
    for root in roots:
        base = Path(root.replace("~", str(home), 1) if home and root.startswith("~") else root)
        base = base.expanduser()
        for entry in _listing(base):
            if entry.suffix == ".app":
                found.setdefault(_real(entry), entry)
            elif entry.is_dir() and not entry.name.startswith("."):
                for inner in _listing(entry):
                    if inner.suffix == ".app":
                        found.setdefault(_real(inner), inner)
            if len(found) >= MAX_BUNDLES:
                return list(found.values())
    return list(found.values())


def _listing(folder: Path) -> list[Path]:
    try:
        return sorted(child for child in folder.iterdir())
    except OSError:
        return []


def _real(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):
        return str(path)


def _yes(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.strip().lower() in ("yes", "true", "1")


def read_bundle(path: Path) -> BundleInfo | None:
    """The bundle's scripting facts, or None when its Info.plist can't be read."""
    plist = path / "Contents" / "Info.plist"
    try:
        with plist.open("rb") as file:
            data = file.read(MAX_PLIST_BYTES + 1)
        if len(data) > MAX_PLIST_BYTES:
            return None
        # plistlib refuses entity declarations in XML plists, so no expansion happens here.
        info = plistlib.loads(data)
    except (OSError, ValueError, plistlib.InvalidFileException) as exc:
        log.debug("unreadable Info.plist in %s: %s", path, exc)
        return None
    if not isinstance(info, dict):
        return None
    bundle_id = info.get("CFBundleIdentifier")
    sdef_name = info.get("OSAScriptingDefinition")
    sdef_file = _dictionary_file(path, sdef_name) if isinstance(sdef_name, str) else None
    return BundleInfo(
        path=str(path),
        name=path.stem,
        bundle_id=bundle_id if isinstance(bundle_id, str) and bundle_id else None,
        scriptable=_yes(info.get("NSAppleScriptEnabled")) or sdef_file is not None,
        sdef_file=sdef_file,
    )


def _dictionary_file(bundle: Path, name: str) -> str | None:
    """The named dictionary inside the bundle's Resources; never a path out of the bundle."""
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        return None
    resources = bundle / "Contents" / "Resources"
    candidate = resources.joinpath(*relative.parts)
    try:
        if candidate.is_file() and candidate.resolve().is_relative_to(bundle.resolve()):
            return str(candidate)
    except (OSError, RuntimeError):
        return None
    return None


def stamp(path: Path, sdef_file: str | None) -> str | None:
    """What changes when the app or its dictionary changes: the cache key beside the path."""
    try:
        parts = [path.stat().st_mtime_ns, (path / "Contents" / "Info.plist").stat().st_mtime_ns]
        if sdef_file is not None:
            info = os.stat(sdef_file)
            parts += [info.st_mtime_ns, info.st_size]
    except OSError:
        return None
    return "-".join(str(part) for part in parts)


def find_sdef_tool(explicit: str | None = "sdef") -> str | None:
    return shutil.which(explicit) if explicit else None


async def sdef_tool_output(
    tool: str, app_path: str, *, time_limit: float = SDEF_TOOL_TIMEOUT
) -> bytes | None:
    """The dictionary `sdef APP` prints, or None when it fails, hangs or prints too much."""
    try:
        proc = await spawn([tool, app_path], stdin=asyncio.subprocess.DEVNULL, limit=65_536)
    except OSError as exc:
        log.info("sdef could not start: %s", exc)
        return None
    assert proc.stdout is not None and proc.stderr is not None
    errors = asyncio.ensure_future(read_tail(proc.stderr, 4_000))
    finished = False
    try:
        async with asyncio.timeout(time_limit):
            output = await read_capped(proc.stdout, MAX_BYTES)
            code = await proc.wait()
        finished = True
    except (TimeoutError, OutputTooLarge) as exc:
        log.info("sdef for %s gave up: %s", app_path, type(exc).__name__)
        return None
    finally:
        if not finished:
            kill_group(proc)
        await reap(proc)
        errors.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await errors
    if code != 0 or not output.strip():
        return None
    return output

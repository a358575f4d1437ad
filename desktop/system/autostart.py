"""Open at login (Settings → General): Deskhand starts with the person's session, so
scheduled routines run on time.

On Linux it is an XDG autostart entry, `~/.config/autostart/deskhand.desktop` (the launcher
entry's own text, `desktop_entry.py`); on macOS the `.app`'s login item, added and removed
through System Events with the bundle's path passed as an argument, never written into the
script. Turned on, the item is installed; turned off, it is removed. Nothing here runs on the
GUI thread's time: writing one small file is instant, and `osascript` is awaited as a
subprocess.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from desktop.system.desktop_entry import APP_ID, entry_text, program_path

# Constant scripts: the bundle's path arrives as `item 1 of argv`.
ADD_LOGIN_ITEM = (
    "on run argv",
    'tell application "System Events" to make login item at end with properties '
    "{path:(item 1 of argv), hidden:true}",
    "end run",
)
REMOVE_LOGIN_ITEM = (
    "on run argv",
    'tell application "System Events" to delete (every login item whose path is (item 1 of argv))',
    "end run",
)


def config_home() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


def autostart_path(home: Path | None = None) -> Path:
    return (home or config_home()) / "autostart" / f"{APP_ID}.desktop"


def autostart_text(program: Path) -> str:
    """The launcher entry, marked to start with the session."""
    return entry_text(program).replace(
        "StartupNotify=true\n", "StartupNotify=false\nX-GNOME-Autostart-enabled=true\n"
    )


def set_linux(on: bool, program: Path | None = None, home: Path | None = None) -> Path:
    """Install (or remove) the autostart entry; returns its path."""
    path = autostart_path(home)
    if not on:
        path.unlink(missing_ok=True)
        return path
    text = autostart_text(program or program_path())
    if not path.is_file() or path.read_text("utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return path


def app_bundle(executable: Path | None = None) -> Path | None:
    """The `.app` this Deskhand runs from, if it does."""
    for parent in (executable or Path(sys.executable).resolve()).parents:
        if parent.suffix == ".app":
            return parent
    return None


async def set_macos(on: bool, bundle: Path) -> bool:
    """Add (or remove) the bundle's login item; True when osascript succeeded."""
    script = ADD_LOGIN_ITEM if on else REMOVE_LOGIN_ITEM
    arguments = [part for line in script for part in ("-e", line)]
    process = await asyncio.create_subprocess_exec(
        "osascript",
        *arguments,
        str(bundle),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    return await process.wait() == 0


async def apply(on: bool) -> bool:
    """Make the system's login items match the setting; False where that is not possible
    here (not a bundle on macOS, another system)."""
    if sys.platform.startswith("linux"):
        set_linux(on)
        return True
    if sys.platform == "darwin" and (bundle := app_bundle()) is not None:
        return await set_macos(on, bundle)
    return False

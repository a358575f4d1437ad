"""Deskhand in the Linux app launcher: a freedesktop `.desktop` entry and its icons, per user.

`deskhand install-desktop-entry` (run by ./scripts/run, and by hand from the Linux bundle)
writes `~/.local/share/applications/deskhand.desktop` pointing at the program that runs
it, and the icons under `~/.local/share/icons/hicolor/`. Writing again changes only what
differs, so running it at every start costs nothing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_ID = "deskhand"
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)
# Characters that make an Exec argument need quoting (Desktop Entry spec, "Exec key").
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def assets_dir() -> Path:
    """The icons' folder: inside a bundle (sys._MEIPASS), else in the source tree."""
    base = Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parents[2]))
    return base / "assets"


def exec_argument(path: str) -> str:
    """One Exec argument: quoted when it needs it, with `%` doubled as field codes require."""
    text = path.replace("%", "%%")
    if not any(char in _RESERVED for char in text):
        return text
    escaped = "".join(f"\\{char}" if char in '"`$\\' else char for char in text)
    return f'"{escaped}"'


def _value(text: str) -> str:
    """A string value of a .desktop key: backslashes and line breaks escaped."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def entry_text(program: Path) -> str:
    return "\n".join(
        [
            "[Desktop Entry]",
            "Type=Application",
            "Name=Deskhand",
            "GenericName=Desktop assistant",
            "Comment=Chat with Claude, which acts on your computer with your approval",
            f"Exec={_value(exec_argument(str(program)))}",
            f"Icon={APP_ID}",
            "Terminal=false",
            "Categories=Utility;",
            "Keywords=Claude;AI;assistant;chat;",
            "StartupNotify=true",
            "",
        ]
    )


def data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def install(program: Path, home: Path | None = None, assets: Path | None = None) -> list[Path]:
    """Write the entry and icons for `program` under `home` (XDG data home); returns the
    files that changed."""
    home = home or data_home()
    assets = assets or assets_dir()
    wanted: dict[Path, bytes] = {
        home / "applications" / f"{APP_ID}.desktop": entry_text(program).encode(),
    }
    for size in ICON_SIZES:
        icon = assets / "icons" / f"{APP_ID}-{size}.png"
        if icon.is_file():
            folder = home / "icons" / "hicolor" / f"{size}x{size}" / "apps"
            wanted[folder / f"{APP_ID}.png"] = icon.read_bytes()
    svg = assets / f"{APP_ID}.svg"
    if svg.is_file():
        wanted[home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"] = (
            svg.read_bytes()
        )
    changed = []
    for path, data in wanted.items():
        if path.is_file() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        changed.append(path)
    return changed


def program_path() -> Path:
    """What the launcher should start: the bundle's executable, or this install's script."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve()
    script = Path(sys.argv[0]).resolve()
    if script.name == APP_ID and script.is_file():
        return script
    return Path(sys.executable).resolve().with_name(APP_ID)

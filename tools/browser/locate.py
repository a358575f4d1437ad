"""Finding a Chromium-family browser: the configured path, Playwright's own, Chrome/Edge, a system one."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from tools.data import Data


class BrowserChoice(Data):
    """Which browser Deskhand will drive, and where it was found."""

    source: str  # "settings", "playwright", "chrome", "msedge", "system"
    path: str | None = None  # executable, or None when a Playwright channel names it
    channel: str | None = None


INSTALL_HINT = {
    "darwin": "python -m playwright install chromium",
    "linux": "sudo apt-get install chromium   (or: python -m playwright install chromium)",
}


def install_hint() -> str:
    return INSTALL_HINT.get(sys.platform, "python -m playwright install chromium")


def _playwright_cache() -> Path:
    if custom := os.environ.get("PLAYWRIGHT_BROWSERS_PATH"):
        return Path(custom)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "ms-playwright"
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home())) / "ms-playwright"
    return Path.home() / ".cache" / "ms-playwright"


def _playwright_chromium() -> Path | None:
    names = (
        "chrome-linux/chrome",
        "chrome-linux64/chrome",
        "chrome-mac/Chromium.app/Contents/MacOS/Chromium",
        "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chrome-win/chrome.exe",
    )
    for folder in sorted(_playwright_cache().glob("chromium-*"), reverse=True):
        for name in names:
            if (folder / name).exists():
                return folder / name
    return None


# Where Chrome and Edge install themselves, including the per-user Applications folder a
# Mac person without admin rights installs into.
BRANDED: dict[str, tuple[str, ...]] = {
    "chrome": (
        "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
        "~/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
        "/opt/google/chrome/chrome",
    ),
    "msedge": (
        "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
        "~/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
        "/opt/microsoft/msedge/msedge",
    ),
}


def _branded(branded: Mapping[str, Sequence[str]]) -> BrowserChoice | None:
    for channel, candidates in branded.items():
        for candidate in candidates:
            path = Path(candidate).expanduser()
            if path.is_file():
                return BrowserChoice(source=channel, path=str(path), channel=channel)
    return None


def find_browser(
    configured: str | None = None,
    *,
    branded_first: bool = False,
    branded: Mapping[str, Sequence[str]] | None = None,
) -> BrowserChoice | None:
    """The first browser found, in Deskhand's order of preference; None when there is none.

    The configured path, else Playwright's Chromium, Chrome or Edge, a system Chromium;
    with `branded_first` (an app bundle, which brings no Chromium of its own), Chrome or
    Edge come before Playwright's Chromium.
    """
    if configured:
        return (
            BrowserChoice(source="settings", path=configured) if Path(configured).exists() else None
        )
    branded = BRANDED if branded is None else branded
    if branded_first and (found_branded := _branded(branded)):
        return found_branded
    if found := _playwright_chromium():
        return BrowserChoice(source="playwright", path=str(found))
    if found_branded := _branded(branded):
        return found_branded
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found_path := shutil.which(name):
            return BrowserChoice(source="system", path=found_path)
    return None

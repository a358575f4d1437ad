"""Finding a Chromium-family browser: the configured path, Playwright's own, Chrome/Edge, a system one."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from pydantic import BaseModel


class BrowserChoice(BaseModel):
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


_BRANDED = {
    "chrome": [
        "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
        "/opt/google/chrome/chrome",
    ],
    "msedge": [
        "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
        "/opt/microsoft/msedge/msedge",
    ],
}


def find_browser(configured: str | None = None) -> BrowserChoice | None:
    """The first browser found, in Deskhand's order of preference; None when there is none."""
    if configured:
        return (
            BrowserChoice(source="settings", path=configured) if Path(configured).exists() else None
        )
    if found := _playwright_chromium():
        return BrowserChoice(source="playwright", path=str(found))
    for channel, paths in _BRANDED.items():
        for candidate in paths:
            if Path(candidate).exists():
                return BrowserChoice(source=channel, path=candidate, channel=channel)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found_path := shutil.which(name):
            return BrowserChoice(source="system", path=found_path)
    return None

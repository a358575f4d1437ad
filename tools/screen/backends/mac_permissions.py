"""The macOS permissions screen control needs, in words for Settings: status, why, where to grant.

Two of them: Accessibility (to send clicks and keys) and Screen Recording (to see the screen).
`mac_permissions()` asks Quartz about each; off a Mac there are none to show, and `status()`
says whether the screen can be used on this Mac or which grant is missing. macOS applies a
grant only after the app relaunches, so a status read at launch stays right until then.
Blocking (but brief): call them in a thread.
"""

from __future__ import annotations

import sys
from typing import Literal

from pydantic import ConfigDict

from tools.data import Data
from tools.screen.backends.base import MISSING_LIBRARIES, REINSTALL, ScreenStatus

__all__ = [
    "GRANT_ACCESSIBILITY",
    "RELAUNCH_NOTE",
    "PermissionKey",
    "ScreenPermission",
    "mac_permissions",
    "permission",
    "request",
    "status",
]

PermissionKey = Literal["screen_recording", "accessibility"]

RELAUNCH_NOTE = (
    "macOS applies a permission you grant only after Deskhand restarts: quit Deskhand and "
    "open it again."
)
GRANT_ACCESSIBILITY = (
    "Open System Settings → Privacy & Security → Accessibility, turn Deskhand on, then restart "
    "Deskhand."
)
GRANT_SCREEN_RECORDING = (
    "Open System Settings → Privacy & Security → Screen Recording, turn Deskhand on, then "
    "restart Deskhand."
)
_PANE = "x-apple.systempreferences:com.apple.preference.security?"


class ScreenPermission(Data):
    """One macOS permission as Settings → Screen shows it."""

    model_config = ConfigDict(frozen=True)

    key: PermissionKey
    title: str
    granted: bool
    why: str
    settings_url: str  # the exact pane of System Settings


_ABOUT: dict[PermissionKey, tuple[str, str, str]] = {
    "screen_recording": (
        "Screen Recording",
        "Lets Claude see your screen: each screenshot it takes for you, and the zoomed-in "
        "regions it reads. Without it macOS shows Deskhand only an empty desktop.",
        _PANE + "Privacy_ScreenCapture",
    ),
    "accessibility": (
        "Accessibility",
        "Lets Claude move the pointer, click, scroll and type in other apps, each time you "
        "allow it. Without it macOS silently drops those clicks and keys.",
        _PANE + "Privacy_Accessibility",
    ),
}


def permission(key: PermissionKey, granted: bool) -> ScreenPermission:
    """A permission with its words, title and pane, and the status given."""
    title, why, url = _ABOUT[key]
    return ScreenPermission(key=key, title=title, granted=granted, why=why, settings_url=url)


def mac_permissions() -> list[ScreenPermission]:
    """Each permission with its status on this Mac; an empty list on other systems."""
    if sys.platform != "darwin":
        return []
    try:
        from tools.screen.backends import macos
    except ImportError:  # without Quartz the status line already says what to do
        return []
    return [
        ScreenPermission(
            key=key, title=title, granted=macos.granted(key), why=why, settings_url=url
        )
        for key, (title, why, url) in _ABOUT.items()
    ]


def request(key: PermissionKey) -> None:
    """On a Mac, ask for the permission so Deskhand is listed in its pane (no-op elsewhere)."""
    if sys.platform != "darwin":
        return
    try:
        from tools.screen.backends import macos
    except ImportError:
        return
    macos.request(key)


def status() -> ScreenStatus:
    """Whether macOS lets Deskhand see the screen and send input, or which grant is missing."""
    try:
        from tools.screen.backends import macos
    except ImportError:
        return ScreenStatus(available=False, reason=MISSING_LIBRARIES, fix=REINSTALL)
    if not macos.granted("accessibility"):
        return ScreenStatus(
            available=False,
            reason="macOS has not allowed Deskhand to control the mouse and keyboard.",
            fix=GRANT_ACCESSIBILITY,
        )
    if not macos.granted("screen_recording"):
        return ScreenStatus(
            available=False,
            reason="macOS has not allowed Deskhand to see the screen.",
            fix=GRANT_SCREEN_RECORDING,
        )
    return ScreenStatus(available=True, backend="macos")

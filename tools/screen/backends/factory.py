"""Which screen backend this computer can run, and opening it.

`screen_status()` says whether the screen can be used here, and if not why and what to do, in
words for Settings and `deskhand doctor`; `open_backend()` opens the backend that works or
raises `ScreenUnavailable` carrying that status. Both block (they connect to the display). The
backends are imported only here and only when asked for, so the interface in `base` stays a leaf.
"""

from __future__ import annotations

import os
import sys

from tools.screen.backends import mac_permissions
from tools.screen.backends.base import (
    MISSING_LIBRARIES,
    REINSTALL,
    ScreenBackend,
    ScreenStatus,
    ScreenUnavailable,
)

__all__ = ["open_backend", "screen_status"]


def screen_status(display: str | None = None) -> ScreenStatus:
    """Which backend works on this computer, or why none does (blocks: run it in a thread)."""
    if sys.platform == "darwin":
        return mac_permissions.status()
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        try:
            from tools.screen.backends.x11 import backend as x11
        except ImportError:
            return ScreenStatus(available=False, reason=MISSING_LIBRARIES, fix=REINSTALL)
        return x11.status(display)
    return ScreenStatus(
        available=False,
        reason="Screen control is available on macOS and on Linux with X11.",
        fix="Use Deskhand on a Mac or on a Linux desktop running X11.",
    )


def open_backend(display: str | None = None) -> ScreenBackend:
    """The backend for this computer, connected (blocks). Raises `ScreenUnavailable`."""
    status = screen_status(display)
    if not status.available:
        raise ScreenUnavailable(status)
    if status.backend == "macos":
        from tools.screen.backends.macos import MacBackend

        return MacBackend()
    from tools.screen.backends.x11.backend import X11Backend

    return X11Backend(display or os.environ.get("DISPLAY"))

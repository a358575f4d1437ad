"""The system-wide shortcut that opens the quick composer from any app.

- `shortcut.py`: a shortcut as Deskhand stores it ("ctrl+alt+space") and shows it.
- `x11.py`: a passive key grab on the root window, on a thread of its own.
- `macos.py`: a Quartz event tap that takes the chord before the front app sees it.
- `hotkey_for()` picks the one this session can use, or says why none can work (a Wayland
  session without X11: only the desktop portal's GlobalShortcuts could, which Deskhand does
  not use yet).

Only the Deskhand that owns the `deskhand ui` socket grabs the shortcut: a second one started
on the same data leaves it to the first.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from desktop.hotkey.base import GlobalHotKey, HotKeyError
from desktop.system.settings.shortcut import Shortcut

__all__ = ["GlobalHotKey", "HotKeyError", "hotkey_for"]

WAYLAND = (
    "The quick entry shortcut cannot work in this Wayland session: Wayland lets apps set a "
    "system-wide shortcut only through the desktop's GlobalShortcuts portal, which Deskhand "
    "does not use yet. Log in to an X11 (Xorg) session to use it; Deskhand's window and tray "
    "icon work as usual."
)
NO_DISPLAY = "No graphical display was found, so no system-wide shortcut can be set."


def hotkey_for(shortcut: Shortcut, on_press: Callable[[], None]) -> GlobalHotKey:
    """The hot key for this session, not started yet. Raises `HotKeyError` saying why none can
    work here."""
    if sys.platform == "darwin":
        from desktop.hotkey.macos import QuartzHotKey

        return QuartzHotKey(shortcut, on_press)
    if os.environ.get("WAYLAND_DISPLAY") or os.environ.get("XDG_SESSION_TYPE") == "wayland":
        # XWayland would let the grab succeed, but it fires only while an X11 app has the focus.
        raise HotKeyError(WAYLAND)
    if os.environ.get("DISPLAY"):
        from desktop.hotkey.x11 import X11HotKey

        return X11HotKey(shortcut, on_press)
    raise HotKeyError(NO_DISPLAY)

"""The shortcut on X11: a passive grab of the key on the root window, on a thread of its own.

The grab is made in every combination of NumLock and CapsLock (X matches modifiers exactly, so
with NumLock on a grab without it would never fire). A grab another client holds fails with
BadAccess: then the person is told which shortcut is taken and where to choose another.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable

from Xlib import XK, X
from Xlib import display as xdisplay
from Xlib import error as xerror

from desktop.hotkey.base import HotKeyError
from desktop.system.settings.shortcut import Shortcut
from tools.screen.backends.x11.events import events_until

__all__ = ["X11HotKey"]

log = logging.getLogger(__name__)

_MASKS = {"ctrl": X.ControlMask, "alt": X.Mod1Mask, "shift": X.ShiftMask, "super": X.Mod4Mask}
_KEYSYMS = {"return": "Return", "enter": "Return", "esc": "Escape", "escape": "Escape"}


def held_message(shortcut: Shortcut) -> str:
    return (
        f"{shortcut.shown()} is already used by another app, so it cannot open Deskhand's "
        "quick entry. Choose another shortcut in Settings → General, or free it in that app."
    )


class X11HotKey:
    def __init__(
        self, shortcut: Shortcut, on_press: Callable[[], None], display: str | None = None
    ) -> None:
        self.shortcut = shortcut
        self._on_press = on_press
        self._name = display or os.environ.get("DISPLAY")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        grabbed: asyncio.Future[str | None] = loop.create_future()

        def settle(problem: str | None) -> None:
            if not grabbed.done():
                grabbed.set_result(problem)

        def report(problem: str | None) -> None:
            loop.call_soon_threadsafe(settle, problem)

        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(report,), daemon=True)
        self._thread.start()
        problem = await grabbed
        if problem is not None:
            self._thread = None
            raise HotKeyError(problem)

    def stop(self) -> None:
        self._stop.set()
        self._thread = None

    def _run(self, report: Callable[[str | None], None]) -> None:
        listening = False
        try:
            connection = xdisplay.Display(self._name)
        except (xerror.DisplayError, OSError):
            report("The X display could not be reached, so the shortcut cannot be set.")
            return
        try:
            keycode = self._keycode(connection)
            if keycode is None:
                report(f"This keyboard has no key for {self.shortcut.shown()}.")
                return
            root = connection.screen().root
            combos = self._combinations(connection)
            caught = xerror.CatchError(xerror.BadAccess)
            for mask in combos:
                root.grab_key(
                    keycode, mask, False, X.GrabModeAsync, X.GrabModeAsync, onerror=caught
                )
            connection.sync()
            if caught.get_error() is not None:
                for mask in combos:
                    root.ungrab_key(keycode, mask)
                connection.sync()
                report(held_message(self.shortcut))
                return
            report(None)
            listening = True
            self._listen(connection, keycode)
        except Exception:
            if not self._stop.is_set():
                log.warning("The quick entry shortcut stopped working", exc_info=True)
            if not listening:
                report("The shortcut could not be set.")
        finally:
            with contextlib.suppress(Exception):  # the server may be gone already
                connection.close()

    def _listen(self, connection: xdisplay.Display, keycode: int) -> None:
        for event in events_until(self._stop, connection):
            if event.type == X.KeyPress and event.detail == keycode:
                self._on_press()

    def _keycode(self, connection: xdisplay.Display) -> int | None:
        key = self.shortcut.key
        keysym = XK.string_to_keysym(_KEYSYMS.get(key, key))
        if not keysym and len(key) > 1:
            keysym = XK.string_to_keysym(key.capitalize()) or XK.string_to_keysym(key.upper())
        code = connection.keysym_to_keycode(keysym) if keysym else 0
        return int(code) or None

    def _combinations(self, connection: xdisplay.Display) -> list[int]:
        """The shortcut's modifiers with and without NumLock and CapsLock."""
        base = 0
        for modifier in self.shortcut.modifiers:
            base |= _MASKS[modifier]
        num_lock = self._num_lock_mask(connection)
        return sorted({base, base | X.LockMask, base | num_lock, base | X.LockMask | num_lock})

    def _num_lock_mask(self, connection: xdisplay.Display) -> int:
        """The modifier NumLock is on (Mod2 almost everywhere, but read, not assumed)."""
        num_lock = connection.keysym_to_keycode(XK.string_to_keysym("Num_Lock"))
        masks = (
            X.ShiftMask,
            X.LockMask,
            X.ControlMask,
            X.Mod1Mask,
            X.Mod2Mask,
            X.Mod3Mask,
            X.Mod4Mask,
            X.Mod5Mask,
        )
        for index, codes in enumerate(connection.get_modifier_mapping()):
            if num_lock and num_lock in codes:
                return masks[index]
        return X.Mod2Mask

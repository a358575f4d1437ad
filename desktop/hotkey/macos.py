"""The shortcut on a Mac: an active Quartz event tap that takes the chord before the front app
sees it (the tap needs the Accessibility permission screen control asks for too; without it
the person is told so). Runs its own run loop on a thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from desktop.hotkey.base import HotKeyError
from desktop.system.settings.shortcut import Shortcut

__all__ = ["QuartzHotKey"]

NEEDS_ACCESSIBILITY = (
    "The quick entry shortcut needs the Accessibility permission: turn Deskhand on in System "
    "Settings → Privacy & Security → Accessibility, then restart Deskhand."
)
# Virtual key codes of the keys a shortcut most often ends with (US layout positions).
_KEYCODES: dict[str, int] = {
    "space": 49, "return": 36, "tab": 48, "escape": 53,
    "a": 0, "s": 1, "d": 2, "f": 3, "h": 4, "g": 5, "z": 6, "x": 7, "c": 8, "v": 9,
    "b": 11, "q": 12, "w": 13, "e": 14, "r": 15, "y": 16, "t": 17, "o": 31, "u": 32,
    "i": 34, "p": 35, "l": 37, "j": 38, "k": 40, "n": 45, "m": 46,
    "1": 18, "2": 19, "3": 20, "4": 21, "6": 22, "5": 23, "9": 25, "7": 26, "8": 28, "0": 29,
}  # fmt: skip


class QuartzHotKey:
    def __init__(self, shortcut: Shortcut, on_press: Callable[[], None]) -> None:
        self.shortcut = shortcut
        self._on_press = on_press
        self._loop: Any = None

    async def start(self) -> None:
        if self.shortcut.key not in _KEYCODES:
            raise HotKeyError(f"{self.shortcut.shown()} cannot be used as a shortcut here.")
        loop = asyncio.get_running_loop()
        started: asyncio.Future[bool] = loop.create_future()
        thread = threading.Thread(
            target=self._run,
            args=(lambda ok: loop.call_soon_threadsafe(started.set_result, ok),),
            daemon=True,
        )
        thread.start()
        if not await started:
            raise HotKeyError(NEEDS_ACCESSIBILITY)

    def stop(self) -> None:
        import Quartz

        loop, self._loop = self._loop, None
        if loop is not None:
            Quartz.CFRunLoopStop(loop)

    def _run(self, started: Callable[[bool], None]) -> None:
        import Quartz

        flags = {
            "ctrl": Quartz.kCGEventFlagMaskControl,
            "alt": Quartz.kCGEventFlagMaskAlternate,
            "shift": Quartz.kCGEventFlagMaskShift,
            "super": Quartz.kCGEventFlagMaskCommand,
        }
        wanted = 0
        for modifier in self.shortcut.modifiers:
            wanted |= flags[modifier]
        every = sum(flags.values())
        keycode = _KEYCODES[self.shortcut.key]

        def tapped(_proxy: Any, kind: int, event: Any, _refcon: Any) -> Any:
            code = Quartz.CGEventGetIntegerValueField(event, Quartz.kCGKeyboardEventKeycode)
            if code == keycode and Quartz.CGEventGetFlags(event) & every == wanted:
                self._on_press()
                return None  # the front app never sees it
            return event

        tap = Quartz.CGEventTapCreate(
            Quartz.kCGSessionEventTap,
            Quartz.kCGHeadInsertEventTap,
            Quartz.kCGEventTapOptionDefault,
            Quartz.CGEventMaskBit(Quartz.kCGEventKeyDown),
            tapped,
            None,
        )
        if tap is None:
            started(False)
            return
        source = Quartz.CFMachPortCreateRunLoopSource(None, tap, 0)
        self._loop = Quartz.CFRunLoopGetCurrent()
        Quartz.CFRunLoopAddSource(self._loop, source, Quartz.kCFRunLoopCommonModes)
        Quartz.CGEventTapEnable(tap, True)
        started(True)
        Quartz.CFRunLoopRun()

"""The person's own input on a Mac: a listen-only Quartz event tap on a thread of its own.

Every event carries the process that posted it (`kCGEventSourceUnixProcessID`): events
Deskhand's backend posts carry this process's id; hardware events carry 0, and another
program's carry its own id, and both are the person's. A listen-only tap needs the
Accessibility permission screen control already asks for (Settings → Screen).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from tools.screen.hand import InputKind, PersonInput

__all__ = ["QuartzWatcher"]

log = logging.getLogger(__name__)

THROTTLE = 0.1


def _deskhand_in_front(own: int) -> bool:
    """Whether keys go to Deskhand (its question, its composer): those are not for the screen."""
    import AppKit

    front = AppKit.NSWorkspace.sharedWorkspace().frontmostApplication()
    return front is not None and int(front.processIdentifier()) == own


class QuartzWatcher:
    """Reports the person's own input to `report`, from a run loop of its own."""

    def __init__(self, report: Callable[[PersonInput], None]) -> None:
        self._report = report
        self._loop: Any = None
        self._thread: threading.Thread | None = None
        self._last = 0.0

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        import Quartz

        loop, self._loop, self._thread = self._loop, None, None
        if loop is not None:
            Quartz.CFRunLoopStop(loop)

    def _run(self) -> None:
        import Quartz

        kinds: dict[int, InputKind] = {
            Quartz.kCGEventMouseMoved: "motion",
            Quartz.kCGEventLeftMouseDragged: "motion",
            Quartz.kCGEventLeftMouseDown: "button",
            Quartz.kCGEventRightMouseDown: "button",
            Quartz.kCGEventOtherMouseDown: "button",
            Quartz.kCGEventScrollWheel: "button",
            Quartz.kCGEventKeyDown: "key",
        }
        mask = 0
        for kind in kinds:
            mask |= Quartz.CGEventMaskBit(kind)
        own = os.getpid()

        def tapped(_proxy: Any, kind: int, event: Any, _refcon: Any) -> Any:
            source = Quartz.CGEventGetIntegerValueField(event, Quartz.kCGEventSourceUnixProcessID)
            now = time.monotonic()
            if kind in kinds and source != own and now - self._last >= THROTTLE:
                self._last = now
                where = Quartz.CGEventGetLocation(event)
                self._report(
                    PersonInput(
                        kind=kinds[kind],
                        x=int(where.x),
                        y=int(where.y),
                        focus_own=kinds[kind] == "key" and _deskhand_in_front(own),
                    )
                )
            return event

        tap = Quartz.CGEventTapCreate(
            Quartz.kCGSessionEventTap,
            Quartz.kCGHeadInsertEventTap,
            Quartz.kCGEventTapOptionListenOnly,
            mask,
            tapped,
            None,
        )
        if tap is None:
            log.info("No event tap (Accessibility is off): the person's input is not watched")
            return
        source = Quartz.CFMachPortCreateRunLoopSource(None, tap, 0)
        self._loop = Quartz.CFRunLoopGetCurrent()
        Quartz.CFRunLoopAddSource(self._loop, source, Quartz.kCFRunLoopCommonModes)
        Quartz.CGEventTapEnable(tap, True)
        Quartz.CFRunLoopRun()

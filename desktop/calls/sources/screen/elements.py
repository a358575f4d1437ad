"""Other apps' elements for the screen: the inspector the gate reads, and the `screen` tool.

Started with the screen (`ScreenControl.start`), behind the window: where the screen can be used
and other apps' elements can be read (AT-SPI's bus answers on Linux; macOS grants Deskhand the
Accessibility permission), it connects (lazily, on first use) and offers

- the `Inspector` of the computer toolset's gate (this object: it answers what a screen click or
  keystroke affects once accessibility is there, and "unknown" before, so such calls are consequential),
  the `Watcher` of the window a call acts on (the `Effect:` lines of its result), and the
  `Finder` a routine's replayed step finds its target again by;
- `tool`: the `screen` function tool (see, wait, click by id…), offered while the screen is and
  other apps' elements can be read; what it does reaches the visualizer as the computer tool's
  events do (`on_event`), and its captures hide the visualizer the same way.

One connection and one backend thread serve every chat. Nothing here imports Qt.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any

from tools.meaning import TargetMeaning
from tools.screen.a11y.accessible import AccessibilityStatus
from tools.screen.a11y.backend import accessibility_status, open_accessibility
from tools.screen.a11y.effect import Watch, Watcher
from tools.screen.a11y.elements import Element, Inspector
from tools.screen.a11y.find import NO_ACCESSIBILITY, Finder, Sighting
from tools.screen.geometry import Point, Rect
from tools.screen.see.access import Looks, ScreenAccess
from tools.screen.see.tool import ScreenTool
from tools.screen.worker import ScreenWorker

__all__ = ["ScreenElements"]

log = logging.getLogger(__name__)

STATUS_LIMIT = 10.0  # seconds the accessibility bus may take to start and answer


class ScreenElements:
    def __init__(
        self,
        *,
        available: Callable[[], bool],
        own_windows: Callable[[], Iterable[Rect | tuple[int, int, int, int]]],
        looks: Looks | None = None,
        on_event: Callable[[int, Any], None] | None = None,
        before_capture: Callable[[], Any] | None = None,
        after_capture: Callable[[], Any] | None = None,
    ) -> None:
        self.status: AccessibilityStatus | None = None  # known once `start` has looked
        self.inspector: Inspector | None = None
        # The tool reads the backend and the worker from here once `start` opened them.
        self.access = ScreenAccess(
            available=lambda: available() and self.access.accessibility is not None,
            own_windows=own_windows,
            looks=looks,
            on_event=on_event,
            before_capture=before_capture,
            after_capture=after_capture,
        )
        self.tool = ScreenTool(self.access)

    async def start(self) -> None:
        """The screen can be used: open what reads it, and look for the accessibility bus."""
        if self.access.worker is None:
            self.access.worker = ScreenWorker()
        try:
            async with asyncio.timeout(STATUS_LIMIT):
                self.status = await accessibility_status()
        except TimeoutError:
            log.warning("the accessibility bus did not answer in time")
            return
        if self.status.available:
            self.access.accessibility, self.inspector = open_accessibility(self.access.worker)

    async def element_at(self, point: Point) -> Element | None:
        inspector = self.inspector
        return await inspector.element_at(point) if inspector is not None else None

    async def focused_element(self) -> Element | None:
        inspector = self.inspector
        return await inspector.focused_element() if inspector is not None else None

    async def watch_at(self, point: Point) -> Watch | None:
        inspector = self.inspector
        return await inspector.watch_at(point) if isinstance(inspector, Watcher) else None

    async def watch_focused(self) -> Watch | None:
        inspector = self.inspector
        return await inspector.watch_focused() if isinstance(inspector, Watcher) else None

    async def find(self, meaning: TargetMeaning) -> Sighting:
        inspector = self.inspector
        if isinstance(inspector, Finder):
            return await inspector.find(meaning)
        return Sighting(where="", why=NO_ACCESSIBILITY)

    def forget(self, session_id: int) -> None:
        """A chat ended: its snapshots go."""
        self.tool.snapshots.forget(session_id)

    async def close(self) -> None:
        self.inspector = None
        accessibility, self.access.accessibility = self.access.accessibility, None
        if accessibility is not None:
            await accessibility.close()
        worker, self.access.worker = self.access.worker, None
        if worker is not None:
            await worker.close()

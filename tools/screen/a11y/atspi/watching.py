"""The AT-SPI inspector that also watches the window a computer-toolset call acts on.

`AtspiWatchingInspector` answers the gate's two questions as `AtspiInspector` does, and the two
of `effect.Watcher`: a watch of the window under a point (its target the element there) or of
the window with the keyboard focus (its target the focused element). Windows of Deskhand's own
processes are never watched, and any failure answers None: the call then reports no effect.
"""

from __future__ import annotations

import logging

from tools.screen.a11y.atspi.reader import AtspiInspector
from tools.screen.a11y.effect import Watch, watch_window
from tools.screen.errors import ScreenError
from tools.screen.geometry import Point
from tools.screen.windows import window_at

log = logging.getLogger(__name__)

__all__ = ["AtspiWatchingInspector"]


class AtspiWatchingInspector(AtspiInspector):
    async def watch_at(self, point: Point) -> Watch | None:
        try:
            window = window_at(await self._all_windows(), point)
            if window is None or window.pid in self._own_pids:
                return None
            found = await self.accessibility.element_at(point, window)
            if found is None:
                return None
            return await watch_window(self.accessibility, window, found[1])
        except (ScreenError, OSError):
            log.info("the window at %s cannot be watched", point, exc_info=True)
            return None

    async def watch_focused(self) -> Watch | None:
        try:
            window = next((w for w in await self._all_windows() if w.focused), None)
            if window is None or window.pid in self._own_pids:
                return None
            found = await self.accessibility.focused(window)
            if found is None:
                return None
            return await watch_window(self.accessibility, window, found[1])
        except (ScreenError, OSError):
            log.info("the focused window cannot be watched", exc_info=True)
            return None

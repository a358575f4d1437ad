"""The macOS inspector that also watches the window a computer-toolset call acts on.

`AxWatchingInspector` answers the gate's two questions as `AxInspector` does, and the two of
`effect.Watcher`: the element under a point (hit-tested system-wide, as a click reaches it) or
with the keyboard focus, and the window holding it (up its `AXParent`s to the `AXWindow`; a
sheet is watched as a part of its window), looked at before the call. Elements of Deskhand's
own processes are never watched; any failure answers None, and the call then reports no
effect. It also looks for an element by its meaning (`find.Finder`), among the app's
accessible windows (macOS lists no stacking here: a covered element is not told apart). Imported
only on a Mac; tested in `test_ax_effects_mac.py`'s `macos`-marked tests.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Collection
from typing import Any

import ApplicationServices as AX

from tools.meaning import TargetMeaning
from tools.screen.a11y.accessible import App, Node
from tools.screen.a11y.ax.read import ax_node
from tools.screen.a11y.ax.reader import (
    AxAccessibility,
    AxInspector,
    _app,
    _attribute,
    _focused_in,
    _hit,
    _path_up,
    _pid,
    _read,
)
from tools.screen.a11y.effect import Watch
from tools.screen.a11y.find import Sighting, look_for
from tools.screen.errors import ScreenError
from tools.screen.geometry import Point

log = logging.getLogger(__name__)

__all__ = ["AxWatchingInspector"]

Found = tuple[App, Node, Node]  # the app, its window, the element


class AxWatchingInspector(AxInspector):
    def __init__(self, accessibility: AxAccessibility, *, own_pids: Collection[int] = ()) -> None:
        super().__init__(accessibility, own_pids=own_pids)
        self._accessibility = accessibility

    def _found(self, element: Callable[[Any], Node | None]) -> Found | None:
        """On the AX thread: the element, its window and its app (not one of Deskhand's)."""
        node = element(AX.AXUIElementCreateSystemWide())
        if node is None:
            return None
        pid = _pid(node.ref)
        if pid is None or pid in self._own_pids:
            return None
        top = _path_up(node.ref)[0]
        if _attribute(top, "AXRole") == "AXSheet":
            top = _attribute(top, "AXParent")  # a sheet is a part of its window's tree
        raw = _read(top, False) if top is not None else None
        if raw is None or raw.get("AXRole") != "AXWindow":
            return None
        window = ax_node(top, raw)
        return (_app(pid), window, node) if window is not None else None

    async def _watch(self, element: Callable[[Any], Node | None]) -> Watch | None:
        with contextlib.suppress(ScreenError):
            found = await self._thread.run(self._found, element)
            if found is None:
                return None
            app, window, node = found
            return await Watch(self._accessibility, app, window, target=node).start()
        log.info("the target window cannot be watched")
        return None

    async def watch_at(self, point: Point) -> Watch | None:
        return await self._watch(lambda system: _hit(system, point))

    async def watch_focused(self) -> Watch | None:
        return await self._watch(_focused_in)

    async def find(self, meaning: TargetMeaning) -> Sighting:
        return await look_for(self._accessibility, meaning, windows=None, own_pids=self._own_pids)

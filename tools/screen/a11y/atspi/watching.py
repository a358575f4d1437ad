"""The AT-SPI inspector that also watches the window a computer-toolset call acts on.

`AtspiWatchingInspector` answers the gate's two questions as `AtspiInspector` does, and the two
of `effect.Watcher`: a watch of the window under a point (its target the element there) or of
the window with the keyboard focus (its target the focused element). Windows of Deskhand's own
processes are never watched, and any failure answers None: the call then reports no effect.

It is also the `find.Finder` that looks for an element by its meaning (a routine's replayed
step), in the X server's windows as they are stacked now.

`RefreshingAccessibility.refresh` is the cheap look after an action: each element's name and
states, a field's value and a container's children, for the whole window in one batch (about a
third of the calls of reading its tree, whose role and bounds calls do not change). It is the
backend `backend.open_accessibility` opens on Linux.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tools.meaning import TargetMeaning
from tools.screen.a11y.accessible import App, Node
from tools.screen.a11y.atspi.reader import (
    ACCESSIBLE,
    Accessibility,
    AtspiInspector,
    _get,
    _ref,
    _states,
    _value_call,
    _value_text,
)
from tools.screen.a11y.effect import Watch, watch_window
from tools.screen.a11y.find import Sighting, look_for
from tools.screen.errors import ScreenError
from tools.screen.geometry import Point
from tools.screen.windows import Window

log = logging.getLogger(__name__)

__all__ = ["AtspiWatchingInspector", "RefreshingAccessibility"]


class RefreshingAccessibility(Accessibility):
    """The AT-SPI backend with `refresh` (`effect.Refreshes`): a window's elements read again
    after an action in a third of the calls of reading its tree."""

    async def refresh(self, nodes: Sequence[Node]) -> list[Node | None]:
        """Each element's name, states, value (never a password field's) and, for a container,
        its children, read again in one batch; its role, place and bounds kept. None for one
        that is gone."""
        calls: list[tuple[Any, ...]] = []
        asked: list[tuple[bool, bool]] = []  # whether its value and its children were asked
        for node in nodes:
            calls += [_get(node.ref, ACCESSIBLE, "Name"), (*node.ref, ACCESSIBLE, "GetState")]
            value_call = _value_call(node)
            container = node.kind == "G" or bool(node.child_refs)
            calls += [value_call] if value_call is not None else []
            calls += [(*node.ref, ACCESSIBLE, "GetChildren")] if container else []
            asked.append((value_call is not None, container))
        replies = iter(await self._replies(calls))
        out: list[Node | None] = []
        for node, (has_value, has_children) in zip(nodes, asked, strict=True):
            name, states = next(replies), next(replies)
            value = next(replies) if has_value else None
            children = next(replies) if has_children else None
            if name is None or states is None:
                out.append(None)  # gone
                continue
            words = tuple(int(word) for word in states[0])
            kids = node.child_refs
            if children is not None:
                kids = tuple(r for r in (_ref(c) for c in children[0]) if r is not None)
            out.append(
                replace(
                    node,
                    name=str(name[0][1]).strip(),
                    **_states(words),
                    value=_value_text(value) if value is not None else node.value,
                    child_refs=kids,
                )
            )
        return out


class AtspiWatchingInspector(AtspiInspector):
    async def watch_at(self, point: Point) -> Watch | None:
        try:
            return await self._watch(await self._found_at(point))
        except (ScreenError, OSError):
            log.info("the window at %s cannot be watched", point, exc_info=True)
            return None

    async def watch_focused(self) -> Watch | None:
        try:
            return await self._watch(await self._found_focused())
        except (ScreenError, OSError):
            log.info("the focused window cannot be watched", exc_info=True)
            return None

    async def find(self, meaning: TargetMeaning) -> Sighting:
        windows = await self._all_windows()
        return await look_for(self.accessibility, meaning, windows=windows, own_pids=self._own_pids)

    async def _watch(self, found: tuple[Window, tuple[App, Node]] | None) -> Watch | None:
        if found is None:
            return None
        window, (_, node) = found
        return await watch_window(self.accessibility, window, node)

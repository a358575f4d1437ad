"""A screen call's target by meaning: kept when the call is judged, found again when replayed.

A routine replays a recorded `left_click` at `coordinate: [640, 380]` days later, when that point
means nothing: the window moved, or opened elsewhere. So each call that acts on an element keeps
what the element *is* (`meaning_of`: app, window title, role, name and the named element holding
it, as the gate's inspector already resolved them), and `FindsAgain.find_again` (a part of `ScreenComputer`) looks for it in
the accessibility tree as it is now (`a11y/find.py`), waiting up to `within` seconds for it to
appear, and answers the coordinate of its centre in the model's own terms: screenshot pixels of
the display shown (`scaling.py`), so the ordinary member lands on it.

Not found, found several times, or found under another window: the answer says so in words,
with no coordinate, and the step goes to the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from anthropic.tools import ToolError

from tools.meaning import Found, TargetMeaning
from tools.screen.a11y.effect import POLL
from tools.screen.a11y.elements import Element
from tools.screen.a11y.find import NO_ACCESSIBILITY, Finder, Sighting, centre, subject
from tools.screen.displays import display_at
from tools.screen.link import ScreenLink, _in_time
from tools.screen.scaling import ImageFrame
from tools.toolset_driver import CLICK_MEMBERS

__all__ = ["FindsAgain", "meaning_of"]

UNKNOWN = "Nothing is known of what the step acted on, so it cannot be looked for."
# Members whose meaning is the element they act on: at a point (a drag's is where it drops,
# its `coordinate`), or the focused element for keys.
AT_A_POINT = CLICK_MEMBERS | {"left_click_drag"}
FOCUSED = frozenset({"type", "key"})


def meaning_of(
    member: str, params: Mapping[str, Any], element: Element | None
) -> TargetMeaning | None:
    """What a call acts on, by meaning, from the element the gate resolved for it (no more
    reads; a drag's is the one at its drop point, `drop_target`): for clicks, a drag, a scroll
    at a point, and `type`/`key`; None for the rest. A password field is kept by its role and
    label only, marked `secret` (a routine never keeps a step on one): its text is never read."""
    acts = member in AT_A_POINT or member in FOCUSED
    if member == "scroll":
        acts = params.get("coordinate") is not None
    if not acts or element is None:
        return None
    meaning = TargetMeaning(
        app=element.app,
        window=element.window,
        role=element.role,
        name=element.name,
        near=element.near,
        secret=element.secure,
    )
    return meaning if meaning.known else None


class FindsAgain(ScreenLink):
    """`find_again` for the screen: the element a meaning names, where it is now."""

    async def drop_target(self, params: Mapping[str, Any]) -> Element | None:
        """The element under a drag's drop point (`coordinate`), which the gate does not ask
        about (it judges a drag by what it picks up): a replay finds the drop point by it."""
        point, _ = self._known_point(dict(params))
        if point is None or self._inspector is None:
            return None
        return await self._inspect(self._inspector.element_at(point))

    async def find_again(self, meaning: TargetMeaning, *, within: float) -> Found:
        """The element `meaning` names, as a `coordinate` for the recorded member: looked for
        again (every `POLL`) until it is there once, or `within` seconds passed."""
        if not meaning.known:
            return Found(why=UNKNOWN)
        finder = self._inspector
        if not isinstance(finder, Finder):
            return Found(why=NO_ACCESSIBILITY)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, within)
        while True:
            answer = await self._look(finder, meaning)
            if answer.found or loop.time() >= deadline:
                return answer
            await asyncio.sleep(POLL)

    async def _look(self, finder: Finder, meaning: TargetMeaning) -> Found:
        what = subject(meaning)
        sighting: Sighting | None = await _in_time(finder.find(meaning), "Looking for a target")
        if sighting is None:
            return Found(why=f"The {what} could not be looked for: its app did not answer.")
        if sighting.why:
            return Found(why=sighting.why)
        where = sighting.where
        if not sighting.places:
            if sighting.covered:
                return Found(
                    count=sighting.covered,
                    why=f"The {what} in {where} is covered by another window.",
                )
            if sighting.outside:
                return Found(
                    count=sighting.outside,
                    why=f"The {what} in {where} is past the edge of its window.",
                )
            return Found(why=f"No {what} in {where}.")
        if len(sighting.places) > 1:
            count = len(sighting.places)
            return Found(
                count=count,
                why=f"{count} matches for the {what} in {where}, and nothing tells them apart.",
            )
        return await self._coordinate(sighting, what)

    async def _coordinate(self, sighting: Sighting, what: str) -> Found:
        """The screenshot pixel over the one match's centre, on the display it is on (that
        display is shown from now on), so `left_click` there lands on it."""
        point = centre(sighting.places[0])
        displays = await self._refresh_displays()
        display = display_at(displays, point)
        if display is None:
            return Found(count=1, why=f"The {what} in {sighting.where} is off every display.")
        try:
            self._check_point(point)
        except ToolError:
            return Found(count=1, why=f"The {what} in {sighting.where} is under Deskhand's window.")
        if self._current(displays) != display:
            self._chosen = display.index
        frame = self._frames.get(display.index)
        if frame is None or frame.region != display.frame:
            # As the next screenshot of this display will map it: the member maps it back.
            frame = self._frames[display.index] = ImageFrame.for_region(
                display.index, display.frame
            )
        shown = frame.to_image(point)
        return Found(input={"coordinate": [shown.x, shown.y]}, count=1)

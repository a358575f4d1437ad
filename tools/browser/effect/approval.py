"""What an approval covered, and the check that holds a call to it right before it acts.

When the app asks the driver to judge a call, the driver resolves the elements the call
will act on (`resolve_effects`) and keeps what an approval of it covers (`Approved`): the risk
it reported, the page it saw (tab, address, document generation) and the effect of each step (a
click's target, each chord of a key sequence). Right before acting, the driver resolves the
target again, the same way, and holds it to what was approved: an action whose page or element
changed since is not done silently: it raises `errors.PageChanged`, which the model reads as a
fixed phrase (`errors.PAGE_CHANGED`) unless the app describes the call again and asks again.

The steps of a key sequence after the first are predicted (Tab order is simulated), not
seen, so they are held to the risk instead of the element: a step may land elsewhere than
foreseen, as long as what it activates asks for no more than was approved and is not
consequential.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from anthropic.types.beta import BetaBrowserCoordinateTarget
from playwright.async_api import ElementHandle, Locator
from pydantic import Field

from tools.browser import errors
from tools.browser.effect.destination import destination, site_of
from tools.browser.effect.risk import judge
from tools.browser.effect.target import Effect, Mode, effect_of_locator
from tools.browser.page import keys
from tools.browser.page.refs import RefEntry
from tools.browser.tab import Tab
from tools.data import Data
from tools.risk import Risk
from tools.toolset_driver import CLICK_MEMBERS

__all__ = [
    "Approved",
    "ApprovedCalls",
    "effect_of_target",
    "key_chords",
    "ref_locator",
    "resolve_effects",
]

Point = Callable[[BetaBrowserCoordinateTarget], tuple[float, float]]
MAX_KEY_STEPS = 200  # chords of a sequence (repeats included) foreseen; later ones are unknown
KEPT = 64  # approvals of calls that never ran (denied, failed before acting) are dropped after this


class Approved(Data):
    """What the approval of one call covered."""

    member: str
    risk: Risk
    tab_id: str | None = None
    url: str | None = None
    generation: int | None = None
    effects: dict[int, Effect | None] = Field(default_factory=dict)

    def check_page(self, tab: Tab) -> None:
        """Refuse if the tab shows another document than the one the approval saw."""
        if self.tab_id is None:
            return  # there was no page to see: the approval covered an unknown effect
        if (
            tab.tab_id != self.tab_id
            or tab.page.url != self.url
            or tab.refs.main_generation != self.generation
        ):
            raise errors.PageChanged()

    def check(
        self, step: int, actual: Effect | None, *, strict: bool, partly_done: bool = False
    ) -> None:
        """Refuse if step `step` would now act on something the approval did not cover.

        `strict`: the step's target was seen, not predicted, so it must be the same element.
        `partly_done`: earlier steps of the call already acted (keys pressed, text typed)."""
        covered = self.effects.get(step)
        if covered is not None and actual is not None and covered.same_target(actual):
            return
        if strict and covered is not None:
            raise errors.PageChanged(partly_done=partly_done)
        if covered is not None and actual is not None and self._lands_elsewhere(covered, actual):
            raise errors.PageChanged(partly_done=partly_done)
        level, _reason = judge(actual)
        if level.above(self.risk) or (covered is not None and level is Risk.CONSEQUENTIAL):
            raise errors.PageChanged(partly_done=partly_done)

    def _lands_elsewhere(self, covered: Effect, actual: Effect) -> bool:
        """Whether a foreseen step would now send its effect to another site than approved
        (a predicted Return that meets a form posting elsewhere)."""
        return site_of(destination(covered, self.url)) != site_of(destination(actual, self.url))

    def check_field(self, step: int, actual: Effect, *, partly_done: bool) -> None:
        """Refuse if the keys of step `step` would now go to another field than the approved
        one (a page may move the focus while text is typed)."""
        covered = self.effects.get(step)
        if covered is not None and not covered.same_field(actual):
            raise errors.PageChanged(partly_done=partly_done)


class ApprovedCalls:
    """What an approval covers, for each call described and not yet run, by tool_use id."""

    def __init__(self) -> None:
        self._calls: OrderedDict[str, Approved] = OrderedDict()

    def keep(self, tool_use_id: str, approved: Approved) -> None:
        self._calls[tool_use_id] = approved
        self._calls.move_to_end(tool_use_id)
        while len(self._calls) > KEPT:
            self._calls.popitem(last=False)

    def take(self, tool_use_id: str) -> Approved | None:
        return self._calls.pop(tool_use_id, None)


def key_chords(text: str, repeat: int | None) -> list[list[str]]:
    """The chords a `key` call presses, repeats included (at most MAX_KEY_STEPS)."""
    chords = keys.parse_sequence(text)
    times = max(1, min(100, repeat or 1))
    return (chords * times)[:MAX_KEY_STEPS]


def ref_locator(tab: Tab, ref: str) -> tuple[Locator, RefEntry] | None:
    """The element a model ref names in this tab's current document (not yet looked up)."""
    entry = tab.refs.resolve(ref)
    if entry is None:
        return None
    return tab.page.locator(f"aria-ref={entry.pw_ref}"), entry


async def effect_of_target(
    tab: Tab,
    target: Any,
    *,
    point: Point,
    mode: Mode = "click",
    located: tuple[Locator | ElementHandle, RefEntry] | None = None,
) -> Effect | None:
    """The effect of `mode` on a member's target (a ref, or a point on the screenshot)."""
    if getattr(target, "type", None) == "ref":
        located = located or ref_locator(tab, str(target.ref))
        if located is None:
            return None  # a stale ref: refused when it runs, but that is unknown here
        locator, entry = located
        return await effect_of_locator(locator, mode, role=entry.role, name=entry.name)
    try:
        x, y = point(target)
    except Exception:
        return None  # off the viewport: refused when it runs
    return await tab.inspector.at_point(x, y, mode)


async def resolve_effects(
    member: str, input: Any, tab: Tab | None, *, point: Point
) -> dict[int, Effect | None]:
    """The effect of each step of a call, on the page as it is now (None where unknown)."""
    params: Mapping[str, Any] = input.to_dict()
    if member in ("key", "hold_key"):
        try:
            chords = (
                key_chords(str(params.get("text", "")), params.get("repeat"))
                if member == "key"
                else [keys.parse_chord(str(params.get("text", "")))]
            )
        except keys.UnknownKey:
            return {}  # refused when it runs, before any key is pressed
        if tab is None:
            return {index: None for index, chord in enumerate(chords) if _acts(chord)}
        return await tab.inspector.key_effects(chords)
    if tab is None:
        return {0: None}
    if member == "type":
        text = str(params.get("text", ""))
        effects = {0: await tab.inspector.focused("type")}
        if "\n" in text or "\r" in text:
            effects[1] = await tab.inspector.focused("enter")
        return effects
    if member == "left_click_drag":
        return {
            0: await effect_of_target(tab, input.from_, point=point),
            1: await effect_of_target(tab, input.target, point=point),
        }
    if member == "form_input":
        return {0: await effect_of_target(tab, input.target, point=point, mode="fill")}
    if member in CLICK_MEMBERS or member in ("left_mouse_down", "left_mouse_up"):
        return {0: await effect_of_target(tab, input.target, point=point)}
    return {}


def _acts(chord: list[str]) -> bool:
    return keys.activation(chord) is not None or keys.is_text_entry(chord)

"""What a browser call acts on, by meaning: the `TargetMeaning` a routine finds it again by.

`judge` has already resolved the element a call lands on (`approval.resolve_effects`): its
`Effect` carries the role, the accessible name and where it sits (`near`, from the same
page-side description, `scripts.NEAR`). This turns that into a `TargetMeaning`, with the
tab's address; for a ref, the role and name are the ones the model read in the snapshot
(`RefEntry`), which is what `find_again` looks for. Members whose target `judge` does not
resolve for the risk (hover, scroll_to, file_upload) are described here, once.

A meaning never holds what a field contains: the description names a field by its label,
never by its value, and nothing else of the call's input goes in.
"""

from __future__ import annotations

from typing import Any

from tools.browser.effect.approval import Point, effect_of_target
from tools.browser.effect.target import Effect
from tools.browser.tab import Tab
from tools.meaning import TargetMeaning
from tools.toolset_driver import CLICK_MEMBERS

__all__ = ["MEANING_MEMBERS", "target_meaning"]

# Members that act on one element, and whose target a routine looks for again.
MEANING_MEMBERS = CLICK_MEMBERS | {
    "hover",
    "scroll_to",
    "form_input",
    "file_upload",
    "left_click_drag",
    "type",
    "key",
}
# Members whose target `judge` does not resolve for the risk: described here.
_UNJUDGED = frozenset({"hover", "scroll_to", "file_upload"})


async def target_meaning(
    member: str,
    input: Any,
    tab: Tab | None,
    effects: dict[int, Effect | None],
    *,
    point: Point,
) -> TargetMeaning | None:
    """The meaning of what `member` acts on, from `effects` (what `judge` resolved); None when
    it acts on no one element (a key with no text or activation, a navigation) or nothing is
    known of it."""
    if tab is None or member not in MEANING_MEMBERS:
        return None
    effect = await _effect_of(member, input, tab, effects, point=point)
    role, name = (effect.role, effect.name) if effect is not None else ("", "")
    target = getattr(input, "target", None)
    if member != "left_click_drag" and getattr(target, "type", None) == "ref":
        entry = tab.refs.resolve(str(getattr(target, "ref", "")))
        if entry is not None:
            # What the model read: the snapshot's accessible name, which find_again matches.
            role, name = entry.role, entry.name
    if not name and role in ("", "generic") and not (effect is not None and effect.password):
        return None  # the page itself, or a nameless box: nothing to look for again
    return TargetMeaning(
        role=role,
        name=name,
        near=effect.near if effect is not None else "",
        url=tab.page.url,
        # A password field: the call is refused anyway, and a routine never records it.
        secret=effect is not None and effect.password,
    )


async def _effect_of(
    member: str, input: Any, tab: Tab, effects: dict[int, Effect | None], *, point: Point
) -> Effect | None:
    if member in _UNJUDGED:
        return await effect_of_target(tab, input.target, point=point)
    if member == "left_click_drag":
        return effects.get(1)  # where it is dropped
    if member == "key":
        # The first chord that types or activates: the focused element it lands on.
        return next((effects[index] for index in sorted(effects)), None)
    return effects.get(0)

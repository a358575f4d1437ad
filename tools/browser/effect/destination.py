"""Where a browser action's effect lands: the pages and sites it can send data to.

A click on a link lands where the link points; a click, Return or Space that submits a form
lands at the form's action; anything else acts inside the document the element is in (a
cross-origin frame is its own site). A navigation lands at its destination. The gate holds
these places to the chat's plan, so an action on a plan site whose effect leaves the plan
asks. Pure functions over `Effect`s, like `risk`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

if TYPE_CHECKING:
    from tools.browser.effect.model import Effect

__all__ = ["destination", "lands", "site_of"]

HISTORY = ("back", "forward")  # where these land is the tab's history, not the input
# Places that cannot be tied to a site: never inside a plan, so a call reaching them asks.
IN_HISTORY = "a page in this tab's history"
UNKNOWN = "a destination that cannot be told"


def site_of(url: str | None) -> str | None:
    """The host of `url`, or None when it has none (about:blank, a malformed address)."""
    if not url:
        return None
    try:
        return urlsplit(url).hostname or None
    except ValueError:
        return None


def destination(effect: Effect, page: str | None) -> str | None:
    """The page or site acting on `effect` reaches: a followed link, a submitted form's
    action, else the document the element is in. None when it cannot be told."""
    base = effect.frame_url or page or ""
    if effect.action == "activate" and effect.submits:
        return urljoin(base, effect.form_action) if effect.form_action else None
    if effect.action == "activate" and effect.href:
        href = effect.href.strip()
        if href.lower().startswith("javascript:"):
            return base or None  # runs in the page itself
        return urljoin(base, href)
    return base or None


def lands(
    member: str, params: Mapping[str, Any], page: str | None, effects: Mapping[int, Effect | None]
) -> list[str]:
    """Every place a call's effect reaches besides its page (for a navigate, its
    destination), in order. An unknown element adds nothing here: `risk` already makes such
    a call consequential, so it asks."""
    if member == "navigate":
        url = str(params.get("url", "")).strip()
        if url.lower() in HISTORY:
            return [IN_HISTORY]
        return [urljoin(page or "", url)] if url.lower() != "reload" else []
    places = []
    for effect in effects.values():
        if effect is None:
            continue
        place = destination(effect, page)
        places.append(place if place is not None else UNKNOWN)
    return [p for p in dict.fromkeys(places) if p != page]

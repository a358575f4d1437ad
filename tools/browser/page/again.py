"""Finding an element again by what it is: a routine's step, replayed days later, without the model.

A recorded step says `{"target": {"type": "ref", "ref": "ref_12"}}`, which names nothing in a
page built again. Its `TargetMeaning` (role, accessible name, where it sits, the page's address)
does: `find_again` waits, with Playwright's own waiting (no fixed sleeps), up to the step's
budget for an element with that role and exactly that name in the tab as it is now (its
frames and open shadow roots included), or until the page has settled without it (its network
idle and its document unchanged for `QUIET_MS`: a renamed link heals at once, rather than after
the whole budget); reads the
page's aria tree as `read_page` and `find` do; and registers the one match under a fresh model
ref in the tab's `RefTable`, so the ordinary member, given `{"type": "ref", "ref": …}`, acts on it
through the same gate and the same re-check as a call the model made. Several matches are told
apart by where each sits (`near`, the same page-side script that recorded it); a name that
changed at all is not found, and the step goes to the model to heal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, cast
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tools.browser.effect.scripts import NEAR_EVALUATE
from tools.browser.page.snapshot import AriaNode, release
from tools.browser.tab import Tab
from tools.meaning import Found, TargetMeaning

__all__ = ["NO_PAGE", "find_again"]

NO_PAGE = "No page is open in the browser."
NOTHING_KNOWN = "Nothing is known of what this step acted on."
NEAR_TIMEOUT = 2.0  # seconds for where one candidate sits; a page too busy leaves it unknown
# A page whose network is idle and whose document has not changed for this long has drawn what
# it will: a target still missing then is not coming.
QUIET_MS = 1500
# Resolves once the document has gone `quiet` ms without a change (a watcher, kept on the page
# under a symbol as settle.py's is, notes each change's time; the first call starts the count).
QUIET_PREDICATE = """quiet => {
  const KEY = Symbol.for('deskhand.quiet');
  const seen = window[KEY] || (window[KEY] = (() => {
    const state = {at: performance.now()};
    new MutationObserver(() => { state.at = performance.now(); }).observe(
      document, {subtree: true, childList: true, attributes: true, characterData: true});
    return state;
  })());
  return performance.now() - seen.at >= quiet;
}"""
QUIET_POLL_MS = 100
SHOWN = 80  # characters of a name or an address shown in a reason
# Reads the page's aria tree (the toolset's `_snapshot`) and names a node with a model ref.
Read = Callable[[Tab], Awaitable[tuple[AriaNode, set[str]]]]
RefOf = Callable[[AriaNode], str]


async def find_again(
    tab: Tab, meaning: TargetMeaning, *, within: float, read: Read, ref_of: RefOf
) -> Found:
    """The element `meaning` names in `tab`, waited for up to `within` seconds."""
    if not meaning.role:
        return Found(why=NOTHING_KNOWN)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(within, 0.0)

    def left_ms() -> float:
        # Playwright reads a timeout of 0 as "no limit": never pass it.
        return max((deadline - loop.time()) * 1000, 1.0)

    page = tab.page
    try:
        if meaning.url and not _same_host(page.url, meaning.url):
            # A step right after a navigation may find the page still on its way there.
            try:
                await page.wait_for_url(lambda url: _same_host(url, meaning.url), timeout=left_ms())
            except PlaywrightTimeout:
                return Found(why=_elsewhere(page.url, meaning.url))
        if not await _appears(page, meaning, left_ms()):
            return Found(why=_missing(meaning, page.url))
        root, _secret = await read(tab)
        try:
            matches = [
                node
                for node in root.walk()
                if node.pw_ref is not None
                and node.role == meaning.role
                and node.name == meaning.name
            ]
            return await _one_of(tab, matches, meaning, ref_of)
        finally:
            release(root)
    except PlaywrightError:
        # A page that closed or navigated away meanwhile, a role Playwright does not know.
        return Found(why=_missing(meaning, page.url))


async def _appears(page: Page, meaning: TargetMeaning, timeout_ms: float) -> bool:
    """Whether an element of that role and exact name is in the page, or in one of its frames,
    within `timeout_ms` (Playwright's role engine: what the aria tree shows, hidden never), and
    before the page settles without it."""
    waits = {
        asyncio.ensure_future(
            frame.get_by_role(
                cast(Any, meaning.role), name=meaning.name or None, exact=True
            ).first.wait_for(state="attached", timeout=timeout_ms)
        )
        for frame in page.frames
    }
    settled = asyncio.ensure_future(_settled(page, timeout_ms))
    pending: set[asyncio.Future[Any]] = {*waits, settled}
    try:
        while waits & pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for finished in done & waits:
                if finished.exception() is None:  # else not there in time, or its frame went
                    return True
            if settled in done and settled.result():
                return False
        return False
    finally:
        for wait in (*waits, settled):
            wait.cancel()
        await asyncio.gather(*waits, settled, return_exceptions=True)


async def _settled(page: Page, timeout_ms: float) -> bool:
    """Whether the page settles within `timeout_ms`: its network idle, then its document
    unchanged for `QUIET_MS` (False when it does not, or goes away meanwhile)."""
    try:
        await page.wait_for_load_state("networkidle", timeout=timeout_ms)
        await page.wait_for_function(
            QUIET_PREDICATE, arg=QUIET_MS, polling=QUIET_POLL_MS, timeout=timeout_ms
        )
    except PlaywrightError:
        return False
    return True


async def _one_of(
    tab: Tab, matches: list[AriaNode], meaning: TargetMeaning, ref_of: RefOf
) -> Found:
    if not matches:
        return Found(why=_missing(meaning, tab.page.url))
    if len(matches) > 1:
        places = [await _near(tab, node) for node in matches]
        near = [node for node, place in zip(matches, places, strict=True) if place == meaning.near]
        if len(near) != 1 or not meaning.near:
            return Found(count=len(matches), why=_several(meaning, len(matches), len(near)))
        matches = near
    ref = ref_of(matches[0])
    return Found(input={"target": {"type": "ref", "ref": ref}}, count=1)


async def _near(tab: Tab, node: AriaNode) -> str | None:
    """Where one candidate sits (`scripts.NEAR`), None when that could not be read."""
    locator = tab.page.locator(f"aria-ref={node.pw_ref}")
    try:
        place = await asyncio.wait_for(
            locator.evaluate(NEAR_EVALUATE, timeout=NEAR_TIMEOUT * 1000), NEAR_TIMEOUT * 2
        )
    except (PlaywrightError, TimeoutError):
        return None
    return place if isinstance(place, str) else None


# --- the reasons, in words for the person and the model ------------------------------------------


def _what(meaning: TargetMeaning) -> str:
    return f"{meaning.role} “{_cut(meaning.name)}”" if meaning.name else meaning.role


def _missing(meaning: TargetMeaning, url: str) -> str:
    return f"No {_what(meaning)} on this page ({_where(url)})."


def _several(meaning: TargetMeaning, count: int, near: int) -> str:
    what = f"{count} × {_what(meaning)} on this page"
    if not meaning.near:
        return f"{what}, and nothing recorded tells them apart."
    if near == 0:
        return f"{what}, none near {meaning.near}."
    return f"{what}, {near} of them near {meaning.near}."


def _elsewhere(url: str, recorded: str) -> str:
    return f"This page is on {_host(url) or _where(url)}, not {_host(recorded)} as recorded."


def _where(url: str) -> str:
    parts = urlsplit(url)
    return _cut(f"{_host(url)}{parts.path}" if parts.hostname else url)


def _host(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{host}:{parts.port}" if parts.port else host


def _same_host(url: str, recorded: str) -> bool:
    return _host(url) == _host(recorded)


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"

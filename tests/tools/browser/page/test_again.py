"""Finding a target again by its meaning, with real Chromium: what a routine's replayed step does
with no model, in a fresh load of the page.

A found element comes back under a fresh ref that the ordinary `left_click` acts on, through
the app's confirm (which judges the call on the live page) and the re-check before acting.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from anthropic.tools.browser import BetaConfirmContext

from tests.support.page_server import PageServer
from tests.tools.browser.conftest import TEST_POLICY, Driver
from tools.browser import BrowserConfig, BrowserPool, PlaywrightBrowser
from tools.meaning import Found, TargetMeaning

pytestmark = pytest.mark.anyio


class Judging:
    """The app's confirm in short: judge each call on the live page, then allow it."""

    def __init__(self) -> None:
        self.toolset: PlaywrightBrowser | None = None
        self.members: list[str] = []

    async def __call__(self, context: BetaConfirmContext) -> bool:
        assert self.toolset is not None
        await self.toolset.judge(context)
        self.members.append(context.member)
        return True


@pytest.fixture(scope="module")
def person() -> Judging:
    return Judging()


@pytest.fixture(scope="module")
async def again_pool(
    anyio_backend: str,
    chromium: dict[str, Any],
    person: Judging,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[BrowserPool]:
    config = BrowserConfig(
        headless=True,
        url_policy=TEST_POLICY,
        downloads_dir=tmp_path_factory.mktemp("downloads"),
        **chromium,
    )
    pool = BrowserPool(config, confirm=person)
    yield pool
    await pool.close()


_sessions = itertools.count(1)


@pytest.fixture
async def app(again_pool: BrowserPool, person: Judging) -> AsyncIterator[Driver]:
    session_id = f"again-{next(_sessions)}"
    person.toolset = again_pool.for_session(session_id)
    person.members.clear()
    yield Driver(person.toolset)
    await again_pool.close_session(session_id)


def effect_of(result: Any) -> str:
    (section,) = [text for text in result.texts if text.startswith("Effect:")]
    return str(section)


def link(name: str, near: str, pages: PageServer) -> TargetMeaning:
    return TargetMeaning(role="link", name=name, near=near, url=pages.url("again/docs.html"))


async def click_found(app: Driver, found: Found) -> str:
    """The replayed step: the ordinary left_click, addressed as `find_again` said."""
    assert found.found and found.count == 1, found
    result = await app("left_click", **found.input)
    assert not result.is_error, result.text
    return effect_of(result)


async def test_the_same_link_is_found_in_a_fresh_load_and_clicked_by_its_new_ref(
    app: Driver, pages: PageServer, person: Judging
) -> None:
    await app.open(pages.url("again/docs.html"))
    first = (await app("read_page", filter="interactive")).ref('"Guide"')
    await app.open(pages.url("again/docs.html"))  # days later: the page built again
    found = await app.toolset.find_again(link("Guide", 'navigation "Docs"', pages), within=5.0)
    assert found.input["target"]["ref"] != first
    assert await click_found(app, found) == (
        f"Effect:\n→ navigated to {pages.url('again/done.html?from=guide')}"
    )
    assert person.members[-1] == "left_click"  # judged, approved, re-checked, done


async def test_two_links_of_one_name_are_told_apart_by_their_headings(
    app: Driver, pages: PageServer
) -> None:
    for heading, landing in (("Upgrade", "upgrade"), ("Install", "install")):
        await app.open(pages.url("again/docs.html"))
        found = await app.toolset.find_again(
            link("Download", f'heading "{heading}"', pages), within=5.0
        )
        assert await click_found(app, found) == (
            f"Effect:\n→ navigated to {pages.url(f'again/done.html?from={landing}')}"
        )
    await app.open(pages.url("again/docs.html"))
    unplaced = await app.toolset.find_again(link("Download", "", pages), within=5.0)
    assert unplaced == Found(
        count=2, why="2 × link “Download” on this page, and nothing recorded tells them apart."
    )
    elsewhere = await app.toolset.find_again(
        link("Download", 'heading "Remove"', pages), within=5.0
    )
    assert elsewhere == Found(
        count=2, why='2 × link “Download” on this page, none near heading "Remove".'
    )


async def test_a_renamed_link_is_not_found_and_says_so(app: Driver, pages: PageServer) -> None:
    await app.open(pages.url("again/docs.html?rename"))
    started = time.monotonic()
    found = await app.toolset.find_again(link("Guide", 'navigation "Docs"', pages), within=1.0)
    assert time.monotonic() - started < 3.0
    assert found == Found(
        count=0, why=f"No link “Guide” on this page (127.0.0.1:{pages.port}/again/docs.html)."
    )


async def test_a_link_that_comes_late_is_waited_for(app: Driver, pages: PageServer) -> None:
    await app.open(pages.url("again/docs.html"))
    tab = await app.toolset._session.tab(None)
    assert await tab.page.evaluate("addLate()") == 0  # not there yet: 300 ms from now
    found = await app.toolset.find_again(link("Changelog", 'heading "Account"', pages), within=5.0)
    assert await click_found(app, found) == (
        f"Effect:\n→ navigated to {pages.url('again/done.html?from=late')}"
    )


async def test_a_link_that_never_comes_is_not_found_within_the_budget(
    app: Driver, pages: PageServer
) -> None:
    await app.open(pages.url("again/docs.html"))
    started = time.monotonic()
    found = await app.toolset.find_again(link("Changelog", 'heading "Account"', pages), within=1.0)
    waited = time.monotonic() - started
    assert found == Found(
        count=0, why=f"No link “Changelog” on this page (127.0.0.1:{pages.port}/again/docs.html)."
    )
    assert 0.9 <= waited <= 1.5, waited


async def test_a_link_that_is_gone_is_given_up_once_the_page_is_quiet_not_after_the_budget(
    app: Driver, pages: PageServer
) -> None:
    # A renamed link heals as soon as the page has settled without it: a routine's step does
    # not wait out its whole budget for what is not coming.
    await app.open(pages.url("again/docs.html?rename"))
    started = time.monotonic()
    found = await app.toolset.find_again(link("Guide", 'navigation "Docs"', pages), within=60.0)
    assert found == Found(
        count=0, why=f"No link “Guide” on this page (127.0.0.1:{pages.port}/again/docs.html)."
    )
    assert time.monotonic() - started < 15.0  # the page is quiet after QUIET_MS, not 60 s


async def test_a_link_is_waited_for_while_the_page_keeps_changing(
    app: Driver, pages: PageServer
) -> None:
    # A page still drawing (a counter ticking for longer than the quiet time) is not settled:
    # the link it adds afterwards is found and clicked.
    await app.open(pages.url("again/docs.html"))
    tab = await app.toolset._session.tab(None)
    await tab.page.evaluate("addAfterBusy()")
    found = await app.toolset.find_again(link("Changelog", 'heading "Account"', pages), within=10.0)
    assert await click_found(app, found) == (
        f"Effect:\n→ navigated to {pages.url('again/done.html?from=late')}"
    )


async def test_another_site_than_recorded_says_so(app: Driver, pages: PageServer) -> None:
    await app.open(pages.alt_origin + "/again/docs.html")  # localhost: another host
    found = await app.toolset.find_again(link("Guide", 'navigation "Docs"', pages), within=0.5)
    assert found == Found(
        why=f"This page is on localhost:{pages.port}, not 127.0.0.1:{pages.port} as recorded."
    )


async def test_no_page_open_is_not_found(app: Driver) -> None:
    found = await app.toolset.find_again(
        TargetMeaning(role="link", name="Guide", url="http://127.0.0.1/"), within=0.5
    )
    assert found == Found(why="No page is open in the browser.")


async def test_targets_in_a_frame_and_a_shadow_root_are_found_and_clicked(
    app: Driver, pages: PageServer
) -> None:
    framed = pages.url("again/framed.html")
    await app.open(framed)
    button = TargetMeaning(role="button", name="Rebuild", near='heading "Tools"', url=framed)
    found = await app.toolset.find_again(button, within=5.0)
    assert await click_found(app, found) == ('Effect:\n~ paragraph "shadow untouched" → "rebuilt"')
    guide = TargetMeaning(role="link", name="Guide", near='navigation "Docs"', url=framed)
    found = await app.toolset.find_again(guide, within=5.0)
    assert await click_found(app, found) == (
        "Effect:\n"
        '~ heading "Docs" → "Done"\n'
        '- link "Home"\n'
        '- link "Guide"\n'
        '- main "Widget docs Install The first time: Download Upgrade From an older version: Dow…"'
    )

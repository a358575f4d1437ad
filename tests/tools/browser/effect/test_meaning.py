"""Each acting call keeps what it acts on by meaning, with real Chromium: the role and name the
model read, the nearest heading or the landmark it sits in, and the page's address.

The confirm here does what the app's does: it judges every call on the live page before it
runs; the meaning is read off that judgement, as the card keeps it.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest
from anthropic.tools.browser import BetaConfirmContext

from tests.support.page_server import PageServer
from tests.tools.browser.conftest import TEST_POLICY, Driver
from tools.browser import BrowserConfig, BrowserPool, PlaywrightBrowser
from tools.meaning import TargetMeaning
from tools.toolset_driver import Judged

pytestmark = pytest.mark.anyio

SECRET = "hunter2-not-for-routines"


class Judging:
    """The app's confirm in short: judge each call on the live page, keep it, allow it."""

    def __init__(self) -> None:
        self.toolset: PlaywrightBrowser | None = None
        self.judged: list[tuple[str, Judged]] = []

    async def __call__(self, context: BetaConfirmContext) -> bool:
        assert self.toolset is not None
        self.judged.append((context.member, await self.toolset.judge(context)))
        return True

    def meaning(self, member: str) -> TargetMeaning | None:
        return [judged for name, judged in self.judged if name == member][-1].meaning


@pytest.fixture(scope="module")
def person() -> Judging:
    return Judging()


@pytest.fixture(scope="module")
async def meaning_pool(
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
async def app(meaning_pool: BrowserPool, person: Judging) -> AsyncIterator[Driver]:
    session_id = f"meaning-{next(_sessions)}"
    person.toolset = meaning_pool.for_session(session_id)
    person.judged.clear()
    yield Driver(person.toolset)
    await meaning_pool.close_session(session_id)


def effect_of(result: Any) -> str:
    (section,) = [text for text in result.texts if text.startswith("Effect:")]
    return str(section)


async def point_of(app: Driver, selector: str) -> dict[str, Any]:
    """The screenshot coordinate of the middle of the element `selector` finds."""
    tab = await app.toolset._session.tab(None)
    box = await tab.page.locator(selector).bounding_box()
    assert box is not None
    scale = app.toolset._scale
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    return {"type": "coordinate", "x": round(x * scale), "y": round(y * scale)}


async def test_a_click_by_ref_keeps_the_name_read_the_landmark_and_the_page(
    app: Driver, pages: PageServer, person: Judging
) -> None:
    docs = pages.url("again/docs.html")
    await app.open(docs)
    controls = await app("read_page", filter="interactive")
    result = await app("left_click", target={"type": "ref", "ref": controls.ref('"Guide"')})
    assert not result.is_error, result.text
    assert effect_of(result) == f"Effect:\n→ navigated to {pages.url('again/done.html?from=guide')}"
    assert person.meaning("left_click") == TargetMeaning(
        role="link", name="Guide", near='navigation "Docs"', url=docs
    )


async def test_a_click_at_a_point_keeps_the_heading_it_sits_under(
    app: Driver, pages: PageServer, person: Judging
) -> None:
    docs = pages.url("again/docs.html")
    await app.open(docs)
    point = await point_of(app, "a[href$=upgrade]")
    result = await app("left_click", target=point)
    assert not result.is_error, result.text
    assert effect_of(result) == (
        f"Effect:\n→ navigated to {pages.url('again/done.html?from=upgrade')}"
    )
    assert person.meaning("left_click") == TargetMeaning(
        role="link", name="Download", near='heading "Upgrade"', url=docs
    )


async def test_hover_scroll_and_a_drag_keep_their_target_and_a_navigation_none(
    app: Driver, pages: PageServer, person: Judging
) -> None:
    docs = pages.url("again/docs.html")
    await app.open(docs)
    assert person.meaning("navigate") is None
    controls = await app("read_page", filter="interactive")
    await app("hover", target={"type": "ref", "ref": controls.ref('"Home"')})
    assert person.meaning("hover") == TargetMeaning(
        role="link", name="Home", near='navigation "Docs"', url=docs
    )
    await app("scroll_to", target={"type": "ref", "ref": controls.ref('"Password"')})
    assert person.meaning("scroll_to") == TargetMeaning(
        role="textbox", name="Password", near='heading "Account"', url=docs, secret=True
    )
    start, end = await point_of(app, "h1"), await point_of(app, "a[href$=install]")
    result = await app("left_click_drag", target=end, **{"from": start})
    assert not result.is_error, result.text
    assert person.meaning("left_click_drag") == TargetMeaning(
        role="link", name="Download", near='heading "Install"', url=docs
    )


async def test_a_password_fields_meaning_holds_no_value(
    app: Driver, pages: PageServer, person: Judging
) -> None:
    docs = pages.url("again/docs.html")
    await app.open(docs)
    # The person typed their password by hand; the model then acts on the field.
    tab = await app.toolset._session.tab(None)
    await tab.page.fill("#secret", SECRET)
    controls = await app("read_page", filter="interactive")
    field = {"type": "ref", "ref": controls.ref('"Password"')}
    await app("left_click", target=field)
    for member, input in (("type", {"text": "guess"}), ("key", {"text": "g"})):
        refused = await app(member, **input)
        assert refused.is_error, member  # never typed into a password field
    await app("form_input", target=field, value="guess")
    expected = TargetMeaning(
        role="textbox", name="Password", near='heading "Account"', url=docs, secret=True
    )
    for member in ("left_click", "type", "key", "form_input"):
        meaning = person.meaning(member)
        assert meaning == expected, member
        assert SECRET not in meaning.model_dump_json()
    assert await tab.page.input_value("#secret") == SECRET


async def test_keys_with_nothing_focused_keep_no_meaning(
    app: Driver, pages: PageServer, person: Judging
) -> None:
    await app.open(pages.url("again/docs.html"))
    await app("key", text="Return")  # on the page itself: no element to find again
    assert person.meaning("key") is None

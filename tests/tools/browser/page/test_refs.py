"""References the model was given hold only for the page and tab they came from, with real
Chromium: a stale one never clicks something else."""

from __future__ import annotations

import pytest

from tests.support.page_server import PageServer
from tests.tools.browser.conftest import Driver
from tools.browser import errors

pytestmark = pytest.mark.anyio


async def test_stale_ref_after_navigation_never_clicks_something_else(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("form.html"))
    form = await browser("read_page", filter="interactive")
    sign_up = form.ref('"Sign up"')
    await browser.open(pages.url("second.html"))
    # the second page has its own first button under Playwright's same internal number
    await browser("read_page", filter="interactive")
    clicked = await browser("left_click", target={"type": "ref", "ref": sign_up})
    assert clicked.is_error and clicked.text == errors.STALE_REF
    unknown = await browser("scroll_to", target={"type": "ref", "ref": "ref_99999"})
    assert unknown.is_error and unknown.text == errors.STALE_REF
    subtree = await browser("read_page", ref=sign_up)
    assert subtree.is_error and subtree.text == errors.STALE_REF


async def test_refs_from_another_tab_are_refused(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("form.html"))
    form = await browser("read_page", filter="interactive")
    await browser("new_tab")
    await browser.open(pages.url("form.html"))
    clicked = await browser("left_click", target={"type": "ref", "ref": form.ref('"Sign up"')})
    assert clicked.is_error and clicked.text == errors.STALE_REF

"""Refused addresses however a page reaches them, with real Chromium (navigation, redirects, meta
refresh, page scripts, frames, names that resolve inside), and the fixed phrases the model reads
instead of raw errors."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.support.page_server import PageServer
from tests.tools.browser.conftest import TEST_POLICY, Driver, Gate
from tools.browser import errors
from tools.browser.network.check import EgressChecker
from tools.browser.network.guard import RequestGuard
from tools.browser.network.refused import RefusedRequests
from tools.browser.network.url_policy import Refusal, UrlPolicy

pytestmark = pytest.mark.anyio
REFUSED_LINE = "A navigation was refused."


def secrets_hit(sentinel: PageServer) -> list[str]:
    return [path for path in sentinel.paths() if "secret" in path]


async def test_model_navigation_to_a_refused_address_never_starts(
    browser: Driver, sentinel: PageServer, gate: Gate
) -> None:
    for url in (
        sentinel.url("secret-direct"),
        "javascript:alert(1)",
        " file:///etc/passwd",
        "http://0x7f000002/",
        "http://169.254.169.254/latest/meta-data/",
    ):
        result = await browser("navigate", url=url)
        assert result.is_error and result.text.startswith("The address was refused")
    assert gate.members() == []  # refused before the person is asked
    assert secrets_hit(sentinel) == []
    assert not browser.toolset.pool.session(browser.toolset.session_id).launched


async def test_redirect_to_a_refused_address_is_stopped(
    browser: Driver, pages: PageServer, sentinel: PageServer
) -> None:
    await browser.open(pages.url("form.html"))
    result = await browser(
        "navigate", url=pages.url("redirect?to=" + quote(sentinel.url("secret-redirect")))
    )
    assert result.is_error
    assert result.texts == [errors.NAV_REFUSED, REFUSED_LINE]
    assert secrets_hit(sentinel) == []
    state = await browser("list_tabs")
    assert state.active["url"] == pages.url("form.html")  # the tab stayed where it was


async def test_second_redirect_hop_is_checked_too(
    browser: Driver, pages: PageServer, sentinel: PageServer
) -> None:
    inner = "/redirect?to=" + quote(sentinel.url("secret-second-hop"))
    result = await browser("navigate", url=pages.url("redirect?to=" + quote(inner)))
    assert result.is_error and REFUSED_LINE in result.texts
    assert secrets_hit(sentinel) == []
    assert "/redirect" in "".join(pages.paths())  # the allowed hops did happen


async def test_meta_refresh_to_a_refused_address(
    browser: Driver, pages: PageServer, sentinel: PageServer
) -> None:
    opened = await browser.open(pages.url("meta-refresh.html"))
    waited = await browser.until(lambda results: any(REFUSED_LINE in r.texts for r in results))
    assert REFUSED_LINE in opened.texts + [text for r in waited for text in r.texts]
    assert waited[-1].active["url"] == pages.url("meta-refresh.html")
    assert secrets_hit(sentinel) == []


async def test_page_scripts_cannot_reach_refused_addresses(
    browser: Driver, pages: PageServer, sentinel: PageServer
) -> None:
    await browser.open(pages.url("popups.html"))
    page = await browser("read_page", filter="interactive")

    popup = await browser(
        "left_click", target={"type": "ref", "ref": page.ref("Open refused popup")}
    )
    settled = await browser("wait", duration=0.3)
    assert REFUSED_LINE in popup.texts + settled.texts
    assert [tab["tab_id"] for tab in settled.tabs] == ["tab_1"]  # the empty popup was closed
    assert settled.active["tab_id"] == "tab_1"

    moved = await browser(
        "left_click", target={"type": "ref", "ref": page.ref("Go to refused address")}
    )
    assert REFUSED_LINE in moved.texts
    assert moved.active["url"] == pages.url("popups.html")

    resources = await browser("navigate", url=pages.url("subresources.html"))
    await browser.until(lambda results: "blocked" in results[-1].active["title"])
    assert not resources.is_error
    assert secrets_hit(sentinel) == []


async def test_dns_names_that_point_inside_are_refused() -> None:
    async def resolver(host: str) -> list[str]:
        table = {"rebind.example": ["127.0.0.1"], "public.example": ["93.184.215.14"]}
        if host not in table:
            raise OSError("no such host")
        return table[host]

    def guard_for(policy: UrlPolicy) -> tuple[RequestGuard, RefusedRequests]:
        refused = RefusedRequests()
        checker = EgressChecker(lambda _key: policy, resolver=resolver)
        return RequestGuard(checker, refused, lambda _page: None), refused

    guard, refused = guard_for(UrlPolicy())
    verdict = guard.verdict
    assert await verdict("http://rebind.example/", navigation=True, key="a") is Refusal.PRIVATE
    assert await verdict("https://public.example/x", navigation=False, key="a") is None
    assert await verdict("https://unknown.example/", navigation=True, key="a") is Refusal.UNRESOLVED
    assert await verdict("ws://127.0.0.1:9222/", navigation=False, key="a") is Refusal.PRIVATE
    assert await verdict("data:text/plain,hi", navigation=False, key="a") is None
    assert [(r.host, r.reason, r.count) for r in refused.take("a")] == [
        ("rebind.example", Refusal.PRIVATE, 1),
        ("127.0.0.1", Refusal.PRIVATE, 1),
    ]  # the failed lookup is not a refused local address
    allowed, _ = guard_for(TEST_POLICY)
    assert await allowed.verdict("http://127.0.0.1:8000/", navigation=True, key="a") is None


async def test_frames_cannot_be_redirected_to_refused_addresses(
    browser: Driver, pages: PageServer, sentinel: PageServer
) -> None:
    # cross-origin frames whose first hop is allowed and whose redirects (one or two hops) are not
    def redirects() -> int:
        return sum(path.startswith("/redirect") for path in pages.paths())

    before = redirects()
    await browser.open(pages.url("frame-redirect.html"))
    await browser.until(lambda _results: redirects() - before >= 3)
    await browser("wait", duration=0.3)
    assert redirects() - before == 3  # both frames' allowed hops happened
    assert secrets_hit(sentinel) == []

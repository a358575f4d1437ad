"""The network choke point with real Chromium: pages on a public-looking host cannot reach a local
listener by any route (popups, frames, workers, sockets, speculation, beacons, downloads).

Pages are served from `site.example` (and its subdomain `frames.site.example`, another origin):
Chromium maps those names to 127.0.0.1 with `--host-resolver-rules`, and the checker's test
resolver answers the same, while the person's allow list holds `site.example`. The listener
that must stay untouched is a raw TCP socket on 127.0.0.1 (another port): anything that
reaches it, over any protocol, is recorded. `rebind.example` is a public-looking name that
resolves to 127.0.0.1, for both Chromium and the checker. Each page also does the same thing
once to an allowed address (`/marker/...`), so a test knows the attempt really ran.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from tests.support.listener import Listener
from tests.support.page_server import PageServer
from tests.tools.browser.conftest import Driver, Gate
from tools.browser import BrowserConfig, BrowserPool, UrlPolicy
from tools.browser.network.url_policy import Refusal

pytestmark = pytest.mark.anyio

SITE = "site.example"
RESOLVES = {SITE: "127.0.0.1", f"frames.{SITE}": "127.0.0.1", "rebind.example": "127.0.0.1"}


async def resolver(host: str) -> list[str]:
    if host not in RESOLVES:
        raise OSError("no such host")  # nothing leaves this machine in tests
    return [RESOLVES[host]]


@pytest.fixture(scope="module")
def local_listener() -> Iterator[Listener]:
    with Listener() as listener:
        yield listener


@pytest.fixture(scope="module")
def site(local_listener: Listener) -> Iterator[PageServer]:
    with PageServer(sentinel=local_listener.url().rstrip("/")) as server:
        yield server


def site_url(site: PageServer, path: str) -> str:
    return f"http://{SITE}:{site.port}/{path.lstrip('/')}"


@pytest.fixture(scope="module")
async def egress_pool(
    anyio_backend: str,
    chromium: dict[str, Any],
    gate: Gate,
    site: PageServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[BrowserPool]:
    rules = ", ".join(f"MAP {name} {address}" for name, address in RESOLVES.items())
    # Chromium only preloads from trustworthy origins: let the test site count as one, as an
    # https site would, so speculation rules would run if preloading were on.
    trusted = f"http://{SITE}:{site.port}"
    config = BrowserConfig(
        headless=True,
        url_policy=UrlPolicy(allow_hosts=(SITE,)),
        downloads_dir=tmp_path_factory.mktemp("egress-downloads"),
        extra_args=(
            f"--host-resolver-rules={rules}",
            f"--unsafely-treat-insecure-origin-as-secure={trusted}",
        ),
        **chromium,
    )
    pool = BrowserPool(config, confirm=gate, resolver=resolver)
    yield pool
    await pool.close()


_chats = itertools.count(1)


@pytest.fixture
async def chat(egress_pool: BrowserPool) -> AsyncIterator[Driver]:
    session_id = f"egress-{next(_chats)}"
    yield Driver(egress_pool.for_session(session_id))
    await egress_pool.close_session(session_id)


async def attempt(chat: Driver, site: PageServer, page: str, marker: str) -> None:
    """Open `page` and wait until its allowed twin request (`marker`) arrived, and a bit more."""
    await chat.open(site_url(site, page))
    await chat.until(lambda _results: any(marker in path for path in site.paths()), limit=8)
    assert any(marker in path for path in site.paths()), f"{page} never ran its requests"
    await chat("wait", duration=0.5)


async def test_an_allowed_public_looking_host_loads_through_the_proxy(
    chat: Driver, site: PageServer, egress_pool: BrowserPool
) -> None:
    opened = await chat.open(site_url(site, "form.html"))
    assert opened.active["title"] == "Sign-up form"
    assert (f"{SITE}:{site.port}", "/form.html") in site.hits
    assert egress_pool.take_refused(chat.toolset.session_id) == []


async def test_popups_that_redirect_to_a_local_address_never_reach_it(
    chat: Driver, site: PageServer, local_listener: Listener
) -> None:
    await attempt(chat, site, "egress/popups.html", "/marker/popup")
    assert local_listener.connections == []


async def test_cross_origin_frames_navigating_through_redirects_never_reach_it(
    chat: Driver, site: PageServer, local_listener: Listener
) -> None:
    await attempt(chat, site, "egress/frames.html", "/marker/frame")
    await chat.until(lambda _results: sum("/redirect" in p for p in site.paths()) >= 2)
    assert local_listener.connections == []


async def test_shared_worker_fetches_never_reach_it(
    chat: Driver, site: PageServer, local_listener: Listener, egress_pool: BrowserPool
) -> None:
    await attempt(chat, site, "egress/shared-worker.html", "/marker/shared-worker")
    assert local_listener.connections == []
    refused = egress_pool.take_refused(chat.toolset.session_id)
    hosts = {entry.host for entry in refused}
    assert {"127.0.0.1", "rebind.example"} <= hosts
    assert all(entry.local for entry in refused)


async def test_worker_websockets_never_reach_it(
    chat: Driver, site: PageServer, local_listener: Listener
) -> None:
    await attempt(chat, site, "egress/worker-ws.html", "/marker/worker-ws")
    assert local_listener.connections == []


async def test_speculative_loading_is_off_and_never_reaches_it(
    chat: Driver, site: PageServer, local_listener: Listener
) -> None:
    await chat.open(site_url(site, "egress/speculation.html"))
    hover = await chat("find", query="Hover target")
    assert not hover.is_error
    await chat("hover", target={"type": "ref", "ref": hover.ref("Hover target")})
    await chat("wait", duration=2)
    assert local_listener.connections == []
    assert not any("spec-target" in path for path in site.paths())  # not even allowed ones


async def test_beacons_downloads_event_streams_and_webrtc_never_reach_it(
    chat: Driver, site: PageServer, local_listener: Listener
) -> None:
    await attempt(chat, site, "egress/others.html", "/marker/beacon")
    await chat("wait", duration=1)
    assert local_listener.connections == []


async def test_refusals_are_counted_per_chat_and_the_person_can_allow_one(
    egress_pool: BrowserPool, site: PageServer, local_listener: Listener
) -> None:
    first, second = (
        Driver(egress_pool.for_session("count-a")),
        Driver(egress_pool.for_session("count-b")),
    )
    try:
        await attempt(first, site, "egress/shared-worker.html", "/marker/shared-worker")
        refused = egress_pool.take_refused("count-a")
        assert sum(entry.count for entry in refused) >= 3
        assert {entry.reason for entry in refused} == {Refusal.PRIVATE}
        assert egress_pool.take_refused("count-a") == []  # taken once
        assert egress_pool.take_refused("count-b") == []  # another chat saw nothing

        # The person lets this chat reach the listener: only this chat gets through.
        assert egress_pool.allow_local(f"127.0.0.1:{local_listener.port}", session="count-b") == (
            "127.0.0.1"
        )
        await second.open(site_url(site, "form.html"))
        fetched = await second.eval(
            f"fetch('{local_listener.url('granted')}', {{mode: 'no-cors'}})"
            ".then(() => 'sent', () => 'failed')"
        )
        assert fetched in ("sent", "failed")  # the raw listener speaks no HTTP
        assert len(local_listener.connections) == 1
        assert b"/granted" in local_listener.connections[0]
        local_listener.connections.clear()

        blocked = await first.eval(
            f"fetch('{local_listener.url('not-granted')}', {{mode: 'no-cors'}})"
            ".then(() => 'sent', () => 'failed')"
        )
        assert blocked == "failed" and local_listener.connections == []
    finally:
        local_listener.connections.clear()
        await egress_pool.close_session("count-a")
        await egress_pool.close_session("count-b")

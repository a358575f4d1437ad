"""The egress proxy and its checker without a browser: what a raw client gets for each address.

A real proxy listener on 127.0.0.1 is driven with raw HTTP (CONNECT and absolute-form GET),
with a local page server as the allowed site and a raw TCP listener as the address that must
never be reached.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from tests.support.listener import Listener
from tests.support.page_server import PageServer
from tools.browser.network.check import EgressChecker
from tools.browser.network.proxy import EgressProxy
from tools.browser.network.refused import RefusedRequests
from tools.browser.network.url_policy import Refusal, UrlPolicy, UrlRefused

pytestmark = pytest.mark.anyio

POLICY = UrlPolicy(allow_hosts=("site.example",))


class Resolver:
    """A scripted name lookup: answers, failures and slow answers, and how often it was asked."""

    def __init__(self) -> None:
        self.answers: dict[str, list[str]] = {
            "site.example": ["127.0.0.1"],
            "rebind.example": ["127.0.0.1"],
        }
        self.failing: set[str] = set()
        self.slow: set[str] = set()
        self.asked: list[str] = []

    async def __call__(self, host: str) -> list[str]:
        self.asked.append(host)
        if host in self.slow:
            await asyncio.sleep(5)
        if host in self.failing or host not in self.answers:
            raise OSError("lookup failed")
        return self.answers[host]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def local_listener() -> Iterator[Listener]:
    with Listener() as listener:
        yield listener


@pytest.fixture
def resolver() -> Resolver:
    return Resolver()


@pytest.fixture
async def proxy(resolver: Resolver) -> AsyncIterator[tuple[str, RefusedRequests]]:
    refused = RefusedRequests()
    checker = EgressChecker(lambda _key: POLICY, resolver=resolver, timeout=0.2)
    egress = EgressProxy(checker, refused.note)
    url = await egress.listen("chat")
    yield url, refused
    await egress.close()


async def exchange(proxy_url: str, request: str) -> bytes:
    host, port = proxy_url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(request.encode())
    await writer.drain()
    try:
        if request.startswith("CONNECT"):  # a tunnel stays open: its answer's head is enough
            return await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        return await asyncio.wait_for(reader.read(), 5)
    finally:
        writer.close()


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


async def test_an_allowed_host_is_fetched_through_the_proxy(
    proxy: tuple[str, RefusedRequests],
) -> None:
    with PageServer() as site:
        answer = await exchange(
            proxy[0],
            f"GET http://site.example:{site.port}/form.html HTTP/1.1\r\n"
            f"Host: site.example:{site.port}\r\nProxy-Connection: keep-alive\r\n\r\n",
        )
        assert status(answer) == 200 and b"Sign-up form" in answer
        assert b"\r\nConnection: close\r\n" in answer  # never reused for another host
        assert site.hits == [(f"site.example:{site.port}", "/form.html")]
        tunnel = await exchange(proxy[0], f"CONNECT site.example:{site.port} HTTP/1.1\r\n\r\n")
        assert status(tunnel) == 200


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "[::ffff:127.0.0.1]",  # IPv4-mapped
        "[::ffff:7f00:1]",
        "[64:ff9b::7f00:1]",  # NAT64
        "[2002:7f00:1::1]",  # 6to4
        "[2001:0:4136:e378:8000:63bf:80ff:fffe]",  # Teredo, client 127.0.0.1
        "[::1]",
        "rebind.example",  # a public-looking name that resolves to loopback
        "0x7f.1",
    ],
)
async def test_local_addresses_in_any_spelling_are_refused(
    proxy: tuple[str, RefusedRequests], local_listener: Listener, address: str
) -> None:
    url, refused = proxy
    port = local_listener.port
    tunnel = await exchange(url, f"CONNECT {address}:{port} HTTP/1.1\r\n\r\n")
    plain = await exchange(url, f"GET http://{address}:{port}/secret HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status(tunnel) == status(plain) == 403
    assert b"secret" not in plain and b"127.0.0.1" not in plain
    assert local_listener.connections == []
    (entry,) = refused.take("chat")
    assert entry.count == 2 and entry.reason is Refusal.PRIVATE and entry.local


@pytest.mark.parametrize("address", ["192.0.0.192", "169.254.169.254", "[::ffff:a9fe:a9fe]"])
async def test_cloud_metadata_addresses_are_refused(
    proxy: tuple[str, RefusedRequests], address: str
) -> None:
    url, refused = proxy
    answer = await exchange(url, f"GET http://{address}/latest/ HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status(answer) == 403
    assert [entry.reason for entry in refused.take("chat")] == [Refusal.METADATA]


async def test_a_failed_lookup_is_refused_and_not_remembered(
    proxy: tuple[str, RefusedRequests], resolver: Resolver
) -> None:
    with PageServer() as site:
        request = f"CONNECT flaky.example:{site.port} HTTP/1.1\r\n\r\n"
        resolver.failing.add("flaky.example")
        assert status(await exchange(proxy[0], request)) == 502
        assert proxy[1].take("chat") == []  # not a local address the person could allow
        resolver.failing.clear()
        resolver.answers["flaky.example"] = resolver.answers["site.example"]
        # the next request looks the name up again (the failure was not cached as an allow or
        # a refusal), and now vets the fresh answer: loopback, refused
        assert status(await exchange(proxy[0], request)) == 403
        assert resolver.asked.count("flaky.example") == 2


async def test_a_slow_lookup_times_out_closed_and_is_not_remembered(resolver: Resolver) -> None:
    checker = EgressChecker(lambda _key: UrlPolicy(), resolver=resolver, timeout=0.1)
    resolver.slow.add("slow.example")
    resolver.answers["slow.example"] = ["93.184.215.14"]
    with pytest.raises(UrlRefused) as caught:
        await checker.destination("slow.example", "chat")
    assert caught.value.reason is Refusal.UNRESOLVED
    resolver.slow.clear()
    assert [str(a) for a in await checker.destination("slow.example", "chat")] == ["93.184.215.14"]
    # a successful answer is reused for a while: the proxy connects to what was checked
    await checker.destination("slow.example", "chat")
    assert resolver.asked.count("slow.example") == 2


async def test_every_resolved_address_is_vetted(resolver: Resolver) -> None:
    checker = EgressChecker(lambda _key: UrlPolicy(), resolver=resolver)
    resolver.answers["mixed.example"] = ["93.184.215.14", "10.0.0.5"]
    with pytest.raises(UrlRefused) as caught:
        await checker.destination("mixed.example", "chat")
    assert caught.value.reason is Refusal.PRIVATE


async def test_requests_a_browser_would_not_send_a_proxy_are_refused(
    proxy: tuple[str, RefusedRequests], local_listener: Listener
) -> None:
    url = proxy[0]
    # origin-form: what a web page elsewhere could send to this port
    assert status(await exchange(url, "GET /secret HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")) == 400
    assert status(await exchange(url, "GET ftp://site.example/ HTTP/1.1\r\n\r\n")) == 400
    assert status(await exchange(url, "CONNECT site.example HTTP/1.1\r\n\r\n")) == 400
    user = await exchange(url, f"CONNECT a@127.0.0.1:{local_listener.port} HTTP/1.1\r\n\r\n")
    assert status(user) == 400
    assert local_listener.connections == []

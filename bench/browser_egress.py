"""Benchmark: what the browser's network checker adds to each request (target: median < 5 ms).

Against a small page server on 127.0.0.1 it measures, for N requests each (bounded, loopback
only, nothing leaves the machine):

- proxy: a raw HTTP client fetching a page directly, then through the egress proxy (a new
  connection each time, as the proxy serves one request per connection), with the checker
  resolving a test host name through its cache;
- browser: `fetch()` timed inside a page, in plain Chromium (no proxy, no routes), in
  Chromium behind the egress proxy only, and in a Deskhand `BrowserPool` (egress proxy plus
  the per-tab route layer, whose Playwright round trips are a cost of their own).

    .venv/bin/python bench/browser_egress.py [--requests 200]

It prints median and p95 for each, and the added latency (median of the differences of the
medians); it always exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright  # noqa: E402

from tools.browser import BrowserConfig, BrowserPool, UrlPolicy, find_browser  # noqa: E402
from tools.browser.launch import launch_args  # noqa: E402
from tools.browser.network.check import EgressChecker  # noqa: E402
from tools.browser.network.proxy import EgressProxy  # noqa: E402
from tools.browser.network.refused import RefusedRequests  # noqa: E402

HOST = "bench.example"  # the checker's resolver and Chromium both map it to 127.0.0.1
PAGE = b"<!doctype html><title>bench</title><p>" + b"x" * 2000
MAX_REQUESTS = 2000


async def resolver(host: str) -> list[str]:
    if host != HOST:
        raise OSError("only the bench host resolves")
    return ["127.0.0.1"]


@contextmanager
def page_server() -> Iterator[int]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            # one write for head and body: split writes on a kept-alive connection meet
            # delayed ACKs and add 40 ms that have nothing to do with what is measured
            self.wfile.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nCache-Control: no-store\r\n"
                + f"Content-Length: {len(PAGE)}\r\n\r\n".encode()
                + PAGE
            )

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


async def fetch_once(connect_port: int, request: bytes) -> float:
    start = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", connect_port)
    writer.write(request)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
    await reader.readexactly(length)
    writer.close()
    return (time.perf_counter() - start) * 1000


async def proxy_figures(port: int, count: int) -> tuple[list[float], list[float]]:
    refused = RefusedRequests()
    checker = EgressChecker(lambda _key: UrlPolicy(allow_hosts=(HOST,)), resolver=resolver)
    proxy = EgressProxy(checker, refused.note)
    proxy_port = int((await proxy.listen("bench")).rsplit(":", 1)[1])
    direct_request = f"GET /page HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode()
    proxied_request = (
        f"GET http://{HOST}:{port}/page HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode()
    )
    direct, proxied = [], []
    try:
        for _ in range(count):  # interleaved, so both see the same machine load
            direct.append(await fetch_once(port, direct_request))
            proxied.append(await fetch_once(proxy_port, proxied_request))
    finally:
        await proxy.close()
    return direct, proxied


TIMED_FETCHES = """async ([url, count]) => {
  const times = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const response = await fetch(url + '?n=' + i, { cache: 'no-store' });
    await response.text();
    times.push(performance.now() - start);
  }
  return times;
}"""


async def browser_figures(
    port: int, count: int, chromium: dict[str, Any]
) -> tuple[list[float], list[float], list[float]]:
    rules = f"--host-resolver-rules=MAP {HOST} 127.0.0.1"
    url = f"http://{HOST}:{port}/page"
    checker = EgressChecker(lambda _key: UrlPolicy(allow_hosts=(HOST,)), resolver=resolver)
    proxy = EgressProxy(checker, RefusedRequests().note)
    proxy_url = await proxy.listen("bench")
    runs: list[list[float]] = []
    async with async_playwright() as playwright:
        config = BrowserConfig(headless=True)
        for via_proxy in (False, True):
            options: dict[str, Any] = {"headless": True, "args": [*launch_args(config), rules]}
            if via_proxy:
                options["proxy"] = {"server": proxy_url, "bypass": "<-loopback>"}
            browser = await playwright.chromium.launch(**options, **chromium)
            page = await browser.new_page()
            await page.goto(url)
            runs.append([float(t) for t in await page.evaluate(TIMED_FETCHES, [url, count])])
            await browser.close()
    await proxy.close()
    pool = BrowserPool(
        BrowserConfig(
            headless=True,
            url_policy=UrlPolicy(allow_hosts=(HOST,)),
            extra_args=(rules,),
            **chromium,
        ),
        resolver=resolver,
    )
    try:
        tab = await pool.session("bench").new_tab()
        await tab.page.goto(url)
        checked = await tab.page.evaluate(TIMED_FETCHES, [url, count])
    finally:
        await pool.close()
    return runs[0], runs[1], [float(t) for t in checked]


def line(label: str, times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"  {label:<34} median {statistics.median(times):7.2f} ms   p95 {p95:7.2f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    count = max(1, min(args.requests, MAX_REQUESTS))
    with page_server() as port:
        print(f"{count} requests each to a page server on 127.0.0.1:{port}\n")
        direct, proxied = await proxy_figures(port, count)
        print("Raw HTTP client (new connection per request):")
        print(line("direct", direct))
        print(line("through the egress proxy", proxied))
        added = statistics.median(proxied) - statistics.median(direct)
        print(f"  added by the proxy and checker: {added:.2f} ms (target < 5 ms)\n")
        if args.no_browser:
            return
        choice = find_browser(None)
        if choice is None:
            print("No Chromium found: the in-browser figures are skipped.")
            return
        chromium = {"executable_path": choice.path} if choice.path else {"channel": choice.channel}
        plain, proxied, full = await browser_figures(port, count, chromium)
        print("fetch() inside a page:")
        print(line("plain Chromium", plain))
        print(line("through the egress proxy", proxied))
        print(line("Deskhand (proxy + route layer)", full))
        added = statistics.median(proxied) - statistics.median(plain)
        print(f"  added by the proxy and checker: {added:.2f} ms (target < 5 ms)")
        layer = statistics.median(full) - statistics.median(proxied)
        print(f"  added by the per-tab route layer (Playwright routes): {layer:.2f} ms")


if __name__ == "__main__":
    asyncio.run(main())

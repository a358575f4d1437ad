"""The egress proxy: every connection the browser opens goes through here and the checker.

Chromium is started with `--proxy-server` pointing at a listener on 127.0.0.1 (a random port)
and `--proxy-bypass-list=<-loopback>`, so nothing bypasses it, loopback included; each chat's
browser context gets its own listener, which is how a connection is tied to a chat. Pages,
popups, frames, every redirect hop, dedicated, shared and service workers, WebSockets,
prefetches, beacons and downloads all share the context's network stack, so all of them
arrive here. Chromium does not resolve names itself when a proxy is set: it hands the host
to the proxy, which asks `EgressChecker` for the addresses and connects to exactly those.

It speaks just enough HTTP/1.1 for a browser's forward proxy:

- `CONNECT host:port` (https, wss): checked, then a byte tunnel;
- `GET http://host/path` (plain http): checked, the request line rewritten to origin form,
  one request per connection (`Connection: close` both ways, so a reused connection can never
  carry a request for another host to this upstream).

Anything else (origin-form requests such as a web page elsewhere could send, other schemes,
oversized heads) is answered 400 and closed. A refused host gets 403, a name that did not
resolve or an upstream that did not answer 502, each with a short fixed text and no detail.

No per-launch secret guards the listener: it only ever connects where the policy allows, so a
local process gains nothing it could not do directly, and the credentials route (407 and
Proxy-Authorization) would leave shared workers, which Playwright cannot answer for, stuck on
a login prompt. Well-kept proxy libraries (proxy.py, mitmproxy) run their own loops or
threads and bring far more than this needs, so it is written here, small, on asyncio.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from urllib.parse import urlsplit

from tools.browser.network.check import EgressChecker
from tools.browser.network.grants import host_text
from tools.browser.network.url_policy import IPAddress, Refusal, UrlRefused, canonical_host
from tools.race import first_done

log = logging.getLogger(__name__)

__all__ = ["NETWORK_ERROR_HEADER", "EgressProxy"]

HEAD_LIMIT = 64 * 1024
HEAD_TIMEOUT = 30.0
CONNECT_TIMEOUT = 10.0
BUFFER = 64 * 1024
# On an answer of the proxy's own (plain http only: a tunnel's failure is Chromium's
# ERR_TUNNEL_CONNECTION_FAILED), the Chromium error code that says what went wrong, so the
# driver can tell the model "The site refused the connection." rather than show a 502 page.
NETWORK_ERROR_HEADER = "X-Deskhand-Network-Error"
_HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-connection",
        b"proxy-authorization",
        b"te",
        NETWORK_ERROR_HEADER.lower().encode(),  # a site must not pass for the proxy
    }
)

OnRefused = Callable[[str, str, Refusal], None]
"""`(key, host, reason)`: called for every connection refused by the policy."""


class BadRequest(Exception):
    """The client sent something this proxy does not forward."""


class EgressProxy:
    """Listeners on 127.0.0.1, one per key (a chat, or `SHARED`), all judged by one checker."""

    def __init__(self, checker: EgressChecker, on_refused: OnRefused) -> None:
        self._checker = checker
        self._on_refused = on_refused
        self._servers: dict[str, asyncio.Server] = {}
        self._connections: set[asyncio.Task[None]] = set()
        self._lock = asyncio.Lock()

    async def listen(self, key: str) -> str:
        """The proxy address for `key` (`http://127.0.0.1:PORT`), opening its listener once."""
        async with self._lock:
            server = self._servers.get(key)
            if server is None:
                server = await asyncio.start_server(
                    lambda reader, writer: self._accept(key, reader, writer),
                    host="127.0.0.1",
                    port=0,
                    limit=HEAD_LIMIT,
                )
                self._servers[key] = server
            port = server.sockets[0].getsockname()[1]
            return f"http://127.0.0.1:{port}"

    async def forget(self, key: str) -> None:
        """Stop listening for `key` (its chat was closed)."""
        server = self._servers.pop(key, None)
        if server is not None:
            server.close()

    def close_now(self) -> None:
        """Stop every listener and connection without waiting (also works with no running loop)."""
        for server in self._servers.values():
            server.close()
        self._servers.clear()
        for task in list(self._connections):
            task.cancel()

    async def close(self) -> None:
        self.close_now()
        if self._connections:
            await asyncio.wait(set(self._connections), timeout=2.0)

    # --- one client connection ---------------------------------------------------------------

    def _accept(self, key: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.get_running_loop().create_task(self._serve(key, reader, writer))
        self._connections.add(task)
        task.add_done_callback(self._connections.discard)

    async def _serve(
        self, key: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        upstream: asyncio.StreamWriter | None = None
        try:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT)
                method, target, lines = _parse_head(head)
                tunnel = method == b"CONNECT"
                raw_host, port, path = _target(target, tunnel=tunnel)
            except (
                BadRequest,
                asyncio.IncompleteReadError,
                asyncio.LimitOverrunError,
                TimeoutError,
            ):
                await _answer(writer, 400, "Bad request.", "ERR_INVALID_HTTP_RESPONSE")
                return
            try:
                host = canonical_host(raw_host)
                addresses = await self._checker.destination(host, key)
            except UrlRefused as refused:
                self._refused(key, raw_host, refused.reason)
                if refused.reason is Refusal.UNRESOLVED:
                    text = "Deskhand could not look up this site's address."
                    await _answer(writer, 502, text, "ERR_NAME_NOT_RESOLVED")
                else:
                    text = "Deskhand blocked this request: " + _WHY
                    await _answer(writer, 403, text, "ERR_BLOCKED_BY_CLIENT")
                return
            up_reader, upstream, failure = await _connect(addresses, port)
            if up_reader is None or upstream is None:
                await _answer(writer, 502, "The site could not be reached.", failure)
                return
            if tunnel:
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                upstream.write(_request_head(method, path, lines))
                await upstream.drain()
            await _relay(reader, writer, up_reader, upstream, rewrite_response=not tunnel)
        except (ConnectionError, OSError):
            pass
        except Exception:
            log.exception("The egress proxy failed on a connection")
        finally:
            for stream in (writer, upstream):
                if stream is not None:
                    stream.close()

    def _refused(self, key: str, raw_host: str, reason: Refusal) -> None:
        if reason is Refusal.UNRESOLVED:
            return  # a failed lookup is not a refused address: the person has nothing to allow
        try:
            text = host_text(canonical_host(raw_host))
        except UrlRefused:
            text = "(unreadable address)"
        self._on_refused(key, text, reason)


_WHY = "the address is on this computer or a private network, or the person blocked it."


def _parse_head(head: bytes) -> tuple[bytes, bytes, list[bytes]]:
    request_line, *lines = head[:-4].split(b"\r\n")
    parts = request_line.split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
        raise BadRequest
    return parts[0].upper(), parts[1], lines


def _target(target: bytes, *, tunnel: bool) -> tuple[str, int, str]:
    """`(host as written, port, origin-form path)` of a CONNECT authority or an absolute URL."""
    try:
        text = target.decode("ascii")
    except UnicodeDecodeError as exc:
        raise BadRequest from exc
    if tunnel:
        parts = urlsplit("//" + text)
        default_port = None
    elif text.lower().startswith("http://"):
        parts = urlsplit(text)
        default_port = 80
    else:
        raise BadRequest  # origin-form or another scheme: not a proxy request from the browser
    try:
        port = parts.port or default_port
    except ValueError as exc:
        raise BadRequest from exc
    raw_host = parts.netloc.rsplit("@", 1)[-1]
    if raw_host.endswith(f":{parts.port}"):
        raw_host = raw_host[: -len(f":{parts.port}")]
    if port is None or not raw_host or "@" in parts.netloc:
        raise BadRequest
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return raw_host, port, path


def _request_head(method: bytes, path: str, lines: list[bytes]) -> bytes:
    kept = [line for line in lines if line.split(b":", 1)[0].strip().lower() not in _HOP_BY_HOP]
    upgrade = [line for line in lines if line.split(b":", 1)[0].strip().lower() == b"connection"]
    if any(b"upgrade" in line.lower() for line in upgrade):
        kept.append(b"Connection: Upgrade")
    else:
        kept.append(b"Connection: close")
    return b"\r\n".join([method + b" " + path.encode("ascii") + b" HTTP/1.1", *kept]) + b"\r\n\r\n"


def _response_head(head: bytes) -> bytes:
    status_line, *lines = head[:-4].split(b"\r\n")
    parts = status_line.split(b" ", 2)
    if len(parts) >= 2 and parts[1] == b"101":
        return head  # switching protocols: a tunnel from here on
    kept = [line for line in lines if line.split(b":", 1)[0].strip().lower() not in _HOP_BY_HOP]
    if not (len(parts) >= 2 and parts[1].startswith(b"1")):
        kept.append(b"Connection: close")
    return b"\r\n".join([status_line, *kept]) + b"\r\n\r\n"


async def _connect(
    addresses: tuple[IPAddress, ...], port: int
) -> tuple[asyncio.StreamReader | None, asyncio.StreamWriter | None, str]:
    """A connection to the first of the checked addresses that answers (never a new lookup).

    On failure, the Chromium error code that says why (for `NETWORK_ERROR_HEADER`).
    """
    failure = "ERR_ADDRESS_UNREACHABLE"
    for address in addresses:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(str(address), port, limit=HEAD_LIMIT), CONNECT_TIMEOUT
            )
            return reader, writer, ""
        except ConnectionRefusedError:
            failure = "ERR_CONNECTION_REFUSED"
        except TimeoutError:
            failure = "ERR_CONNECTION_TIMED_OUT"
        except OSError:
            failure = "ERR_ADDRESS_UNREACHABLE"
    return None, None, failure


async def _answer(writer: asyncio.StreamWriter, status: int, text: str, code: str) -> None:
    reasons = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}
    body = (text + "\n").encode()
    writer.write(
        f"HTTP/1.1 {status} {reasons[status]}\r\n".encode()
        + f"{NETWORK_ERROR_HEADER}: {code}\r\n".encode()
        + b"Content-Type: text/plain; charset=utf-8\r\n"
        + b"Cache-Control: no-store\r\n"
        + f"Content-Length: {len(body)}\r\n".encode()
        + b"Connection: close\r\n\r\n"
        + body
    )
    with contextlib.suppress(ConnectionError, OSError):
        await writer.drain()


async def _relay(
    client_reader: asyncio.StreamReader,
    client: asyncio.StreamWriter,
    upstream_reader: asyncio.StreamReader,
    upstream: asyncio.StreamWriter,
    *,
    rewrite_response: bool,
) -> None:
    """Copy both ways until either side closes; plain http responses get `Connection: close`."""

    async def downstream() -> None:
        if rewrite_response:
            while True:
                head = await upstream_reader.readuntil(b"\r\n\r\n")
                client.write(_response_head(head))
                status = head.split(b" ", 2)[1:2]
                if not (status and status[0].startswith(b"1")) or status[0] == b"101":
                    break  # interim (1xx) heads are passed on and the final head follows
        await _copy(upstream_reader, client)

    async def upstream_copy() -> None:
        await _copy(client_reader, upstream)

    try:
        await first_done(downstream(), upstream_copy())
    finally:
        with contextlib.suppress(ConnectionError, OSError):
            await client.drain()


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError, asyncio.IncompleteReadError):
        while True:
            chunk = await reader.read(BUFFER)
            if not chunk:
                return
            writer.write(chunk)
            await writer.drain()

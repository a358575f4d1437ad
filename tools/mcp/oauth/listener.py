"""The loopback listener a sign-in's code comes back to: 127.0.0.1 on a random port.

It answers one path on one host (`http://127.0.0.1:PORT/callback`); any other path or Host
header (a page trying DNS rebinding) gets a 404 and changes nothing. The first answer on the
path settles the sign-in: a code with the state this sign-in sent, or a refusal (a state that
differs, an error the authorization server sent). The SDK checks the state and PKCE again.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import parse_qs, urlsplit

from mcp.shared.auth import AuthorizationCodeResult

from tools.mcp.oauth.errors import SignInProblem

HOST = "127.0.0.1"
PATH = "/callback"
MAX_HEAD = 16_384  # bytes of request line and headers read before giving up on a client
READ_TIMEOUT = 10.0

PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Deskhand</title></head>"
    "<body style='font-family:sans-serif;margin:3em'><h1>{title}</h1><p>{text}</p></body></html>"
)
DONE = PAGE.format(title="Signed in", text="You can close this tab and go back to Deskhand.")
REFUSED = PAGE.format(
    title="Not signed in", text="Deskhand refused this answer. Go back to Deskhand."
)
NOT_HERE = PAGE.format(title="Not found", text="")


class LoopbackListener:
    """`await start()`, then `redirect_uri`; `expect(state)` once the authorization URL is
    known; `await result(timeout)` for the code; `await close()` always."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._port = 0
        self._state: str | None = None
        self._answer: asyncio.Future[AuthorizationCodeResult] | None = None

    async def start(self) -> None:
        self._answer = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, HOST, 0)
        self._port = int(self._server.sockets[0].getsockname()[1])

    @property
    def redirect_uri(self) -> str:
        return f"http://{HOST}:{self._port}{PATH}"

    def expect(self, state: str) -> None:
        """The state the authorization URL carries: only an answer with it is taken."""
        self._state = state

    async def result(self, within: float) -> AuthorizationCodeResult:
        """The code, or SignInProblem: `abandoned` after `within` seconds, `state_mismatch`,
        `declined`."""
        assert self._answer is not None, "start() first"
        try:
            return await asyncio.wait_for(asyncio.shield(self._answer), within)
        except TimeoutError:
            raise SignInProblem("abandoned", minutes=_minutes(within)) from None
        finally:
            await self.close()

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2.0)

    def _settle(self, query: dict[str, list[str]]) -> bool:
        """Take an answer on the callback path; returns whether it was a code."""
        answer = self._answer
        if answer is None or answer.done():
            return False
        state = next(iter(query.get("state") or []), None)
        if "error" in query:
            answer.set_exception(SignInProblem("declined"))
            return False
        code = (query.get("code") or [""])[0]
        if self._state is None or state != self._state:
            answer.set_exception(SignInProblem("state_mismatch"))
            return False
        if not code:
            answer.set_exception(SignInProblem("failed"))
            return False
        iss = next(iter(query.get("iss") or []), None)
        answer.set_result(AuthorizationCodeResult(code=code, state=state, iss=iss))
        return True

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_TIMEOUT)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, OSError):
            writer.close()
            return
        lines = head[:MAX_HEAD].decode("latin-1").split("\r\n")
        method, _, rest = lines[0].partition(" ")
        target = rest.rpartition(" ")[0]
        headers = {
            name.strip().lower(): value.strip()
            for name, sep, value in (line.partition(":") for line in lines[1:])
            if sep
        }
        parts = urlsplit(target)
        ours = headers.get("host") == f"{HOST}:{self._port}" and parts.path == PATH
        if method != "GET" or not ours:
            status, page = "404 Not Found", NOT_HERE
        else:
            taken = self._settle(parse_qs(parts.query))
            status, page = "200 OK", DONE if taken else REFUSED
        body = page.encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n"
            "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(OSError):
            await writer.drain()
        writer.close()


def _minutes(seconds: float) -> str:
    if seconds >= 60:
        minutes = round(seconds / 60)
        return f"{minutes} minute" + ("s" if minutes != 1 else "")
    return f"{seconds:g} second" + ("s" if seconds != 1 else "")

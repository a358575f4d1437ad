"""One MCP server, started, listed, called and stopped through the `mcp` SDK's `Client`.

A connection lives in a task of its own (the "owner"): the SDK's transports are anyio task
groups that must be entered and left by the same task, so the owner enters the client, lists
the tools, and waits until it is asked to stop or the server goes away. Calls come from any
task (a reply's turn); cancelling the caller makes the SDK send `notifications/cancelled`.

A stdio server's stderr goes to a log file; its tail is what the person reads when the server
fails. The SDK gives a stdio child only a few variables (HOME, PATH, ...) plus the config's
`env`; PATH is this process's, which the app has already extended with the login shell's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx2
import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from tools.mcp.errors import CallRefused, ServerGone, ServerUnavailable
from tools.mcp.spec import ServerSpec, ServerState, ServerStatus, StdioSpec
from tools.race import first_done

log = logging.getLogger(__name__)

START_TIMEOUT = 60.0  # `npx -y` may download the server on its first start
STOP_TIMEOUT = 10.0  # the SDK closes stdin, waits 2 s, then terminates and kills the process group
MAX_PAGES = 50  # a tools/list that never ends cannot hang a start
STDERR_TAIL = 2000  # characters of stderr the person sees for a failed server
LOG_LIMIT = 1_000_000  # a server's stderr log is emptied at a start when it grew past this
PROGRESS_LINE = 120

Progress = Callable[[str], None]


class _StoppedOnItsOwn(Exception):
    """A server that was running went away without being asked to stop."""


@dataclass(eq=False)
class ServerConnection:
    """One server: `start()`, `call(...)`, `stop()`; `status` and `tools` say where it stands."""

    name: str
    spec: ServerSpec
    _: KW_ONLY
    stderr_log: Path | None = None
    on_change: Callable[[], None] = lambda: None
    client_info: mcp_types.Implementation | None = None
    start_timeout: float = START_TIMEOUT
    auth: httpx2.Auth | None = None  # a signed-in server's (tools/mcp/oauth/)
    error: BaseException | None = field(default=None, init=False)  # why it last failed
    status: ServerStatus = field(default_factory=ServerStatus, init=False)
    tools: list[mcp_types.Tool] = field(default_factory=list, init=False)
    _client: Client | None = field(default=None, init=False)
    _owner: asyncio.Task[None] | None = field(default=None, init=False)
    _stop: asyncio.Event = field(default_factory=asyncio.Event, init=False)
    _settled: asyncio.Event = field(default_factory=asyncio.Event, init=False)

    @property
    def running(self) -> bool:
        return self._owner is not None and not self._owner.done()

    def _set(self, **changes: Any) -> None:
        self.status = self.status.model_copy(update=changes)
        self.on_change()

    async def start(self) -> ServerStatus:
        """Start the server (if it is not running) and wait until it is ready or has failed."""
        if not self.running:
            self._stop = asyncio.Event()
            self._settled = asyncio.Event()
            self.error = None
            self._set(state=ServerState.STARTING, problem="", stderr="", tools=len(self.tools))
            self._owner = asyncio.ensure_future(self._own())
        await self._settled.wait()
        return self.status

    async def stop(self, *, state: ServerState = ServerState.OFF) -> None:
        """Stop the server (the SDK's shutdown: stdin closed, then terminate, then kill)."""
        owner = self._owner
        if owner is not None and not owner.done():
            self._stop.set()
            if self.status.state is not ServerState.READY:
                owner.cancel()  # still starting: give up the start (the SDK still ends the child)
                await asyncio.gather(owner, return_exceptions=True)
            else:
                try:
                    await asyncio.wait_for(asyncio.shield(owner), STOP_TIMEOUT)
                except TimeoutError:
                    owner.cancel()
                    await asyncio.gather(owner, return_exceptions=True)
        self._owner = None
        self._client = None
        self._set(state=state)

    def idle(self, tools: list[mcp_types.Tool]) -> None:
        """Known from an earlier run; it starts on its first call."""
        self.tools = list(tools)
        self._set(state=ServerState.IDLE, tools=len(self.tools), problem="", stderr="")

    async def restart(self) -> ServerStatus:
        await self.stop()
        return await self.start()

    async def call(
        self, tool: str, arguments: dict[str, Any], *, progress: Progress | None = None
    ) -> mcp_types.CallToolResult:
        """Call one tool. Raises ServerUnavailable, ServerGone or CallRefused."""
        client = self._client
        if client is None or self.status.state is not ServerState.READY:
            raise ServerUnavailable(self.name)

        report = progress

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if report is not None:
                report(progress_line(progress, total, message))

        try:
            return await client.call_tool(tool, arguments, progress_callback=on_progress)
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                raise ServerGone(self.name) from exc
            raise CallRefused(exc.code) from exc
        except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            raise ServerGone(self.name) from exc
        except (RuntimeError, ValidationError) as exc:  # a result that breaks its own schema
            raise CallRefused(mcp_types.INTERNAL_ERROR) from exc

    # -- the owner task ----------------------------------------------------------------

    async def _own(self) -> None:
        errlog: TextIO | None = None
        try:
            async with AsyncExitStack() as stack:
                ended = asyncio.Event()
                if isinstance(self.spec, StdioSpec):
                    errlog = self._open_stderr_log()
                transport = _watched(self._transport(stack, errlog), ended)
                client = Client(transport, client_info=self.client_info, cache=None)
                async with asyncio.timeout(self.start_timeout):
                    await stack.enter_async_context(client)
                    self.tools = await _list_tools(client)
                self._client = client
                self._set(state=ServerState.READY, tools=len(self.tools), problem="")
                self._settled.set()
                await first_done(self._stop.wait(), ended.wait())
                self._client = None
                if not self._stop.is_set():
                    # Said once the process is gone, so its last words are in the status too.
                    raise _StoppedOnItsOwn
        except Exception as exc:  # anything the server or its transport did: a failed status
            self._client = None
            self.error = _leaf(exc)
            self._fail(self._problem(_leaf(exc)))
            if not isinstance(_leaf(exc), OSError | TimeoutError | MCPError | _StoppedOnItsOwn):
                log.warning("MCP server %s failed", self.name, exc_info=True)
        finally:
            self._client = None
            if errlog is not None:
                errlog.close()
                if self.status.state is ServerState.FAILED:
                    self._set(stderr=self.stderr_tail())
            self._settled.set()

    def _transport(
        self, stack: AsyncExitStack, errlog: TextIO | None
    ) -> contextlib.AbstractAsyncContextManager[Any]:
        if isinstance(self.spec, StdioSpec):
            params = StdioServerParameters(
                command=self.spec.command,
                args=list(self.spec.args),
                env=dict(self.spec.env) or None,
                cwd=self.spec.cwd or None,
            )
            return stdio_client(params, errlog=errlog) if errlog else stdio_client(params)
        http = httpx2.AsyncClient(
            headers=dict(self.spec.headers),
            timeout=httpx2.Timeout(30.0, read=300.0),
            auth=self.auth,
        )
        stack.push_async_callback(http.aclose)
        return streamable_http_client(self.spec.url, http_client=http)

    def _fail(self, problem: str) -> None:
        self._set(state=ServerState.FAILED, problem=problem)

    def _problem(self, exc: BaseException) -> str:
        """What went wrong, in words the person can act on."""
        if isinstance(exc, _StoppedOnItsOwn):
            return "The server stopped on its own."
        signing_in = getattr(self.auth, "problem", None)  # what a sign-in found, in words
        if signing_in is not None:
            return str(signing_in)
        command = self.spec.command if isinstance(self.spec, StdioSpec) else ""
        if isinstance(exc, FileNotFoundError):
            return f"The command “{command}” was not found. Install it, or give its full path."
        if isinstance(exc, PermissionError):
            return f"The command “{command}” cannot be run (permission denied)."
        if isinstance(exc, TimeoutError):
            return f"The server did not answer within {self.start_timeout:g} seconds."
        if isinstance(exc, MCPError) and exc.code == mcp_types.CONNECTION_CLOSED:
            return "The server exited while starting."
        if isinstance(exc, MCPError):
            return f"The server refused to start a session: {exc.error.message}"
        if isinstance(exc, httpx2.HTTPError):
            return "The server could not be reached at its URL."
        return "The server could not be started."

    def _open_stderr_log(self) -> TextIO | None:
        if self.stderr_log is None:
            return None
        self.stderr_log.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            if self.stderr_log.stat().st_size > LOG_LIMIT:
                self.stderr_log.unlink()
        # Append mode: the child writes at the end whatever this side reads.
        errlog = self.stderr_log.open("a", encoding="utf-8", errors="replace")
        errlog.write(f"--- {self.name} started {time.strftime('%Y-%m-%d %H:%M:%S')} ---\n")
        errlog.flush()
        return errlog

    def stderr_tail(self) -> str:
        """The end of what the server wrote to stderr since it last started."""
        if self.stderr_log is None:
            return ""
        try:
            text = self.stderr_log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        text = text.rpartition(f"--- {self.name} started ")[2].partition("---\n")[2]
        return text[-STDERR_TAIL:].strip()


def progress_line(done: float, total: float | None, message: str | None) -> str:
    """A progress notification as one line of the card: "3/10 · Indexing"."""
    amount = f"{done:g}/{total:g}" if total else f"{done:g}"
    line = f"{amount} · {message.strip()}" if message and message.strip() else amount
    return line[:PROGRESS_LINE]


async def _list_tools(client: Client) -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


@asynccontextmanager
async def _watched(
    transport: contextlib.AbstractAsyncContextManager[Any], ended: asyncio.Event
) -> AsyncIterator[Any]:
    """The transport's streams, with `ended` set when the server's side closes (it exited)."""
    async with transport as (read, write):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            async with send:
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                    async for item in read:
                        await send.send(item)
            ended.set()

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            try:
                yield receive, write
            finally:
                group.cancel_scope.cancel()


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc

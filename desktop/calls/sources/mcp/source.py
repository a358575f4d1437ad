"""MCP servers' tools as one tool source: every configured server, its status, its tools.

Tools are offered as ``mcp__<server>__<tool>`` with the server's description and input schema
passed through as data. A call is described for the gate like any other: tools from outside
are consequential unless the person marked the server trusted (then the server's own
`readOnlyHint`/`destructiveHint` set the default) or set a rule; the hints always show on the
sheet as what "the server says". When all sources together offer more than `DEFER_OVER`
tools, the MCP tools are sent with `defer_loading` and the API's tool search finds them.

A result is the server's word: Deskhand cannot look at what a server's tool did, so a call
that acts is `unconfirmed`, reported by its server (the card says "reported by *server*").

Servers start behind the window (`start`), or on their first call when the config says so
(their tools are then known from the last run); all stop on `close`. Only servers the person
approved as they are start (`approved.py`); the others wait for them. The config file is read
here and written only by `save`, which Settings → Connectors calls on an explicit Save.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import desktop  # `desktop.__version__` reads the package's metadata when first asked for
from desktop.calls import contract
from desktop.calls.gate import denial_text
from desktop.calls.permissions import ToolCall
from desktop.calls.sources.mcp.approved import FILE_NAME as APPROVED_FILE
from desktop.calls.sources.mcp.approved import ConnectorApprovals
from desktop.calls.sources.mcp.config import (
    ConfigRead,
    McpConfig,
    ServerEntry,
    read_config,
    write_config,
)
from desktop.calls.sources.mcp.sign_ins import SignIns, SignInStatus
from desktop.system import heavy
from desktop.system.settings.signed import KEY_NAME, Seal
from tools.base import ActionInfo, InvalidInput, Risk
from tools.mcp.errors import CallRefused, ServerGone, ServerUnavailable
from tools.mcp.names import api_name, rules_action, rules_tool, server_key

# Re-exported: Settings → Connectors reads server states from here, since ui never imports tools.
from tools.mcp.spec import ServerState as ServerState
from tools.mcp.spec import ServerStatus as ServerStatus
from tools.outcome import Outcome

if TYPE_CHECKING:  # the SDK loads when the first server starts, not before the window shows
    import mcp_types

    from tools.mcp.connection import ServerConnection

log = logging.getLogger(__name__)

DEFER_OVER = 30  # more tools than this in one request: MCP tools are found by tool search
TOOL_SEARCH = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
MAX_DESCRIPTION = 10_000
TARGET_LENGTH = 160
ALLOWED_DIRS = "list_allowed_directories"  # the filesystem server's own report of its folders

SERVER_OFF = (
    "The MCP server “{server}” is not running, so this tool cannot run now. Tell the person: "
    "they can start it in Settings → Connectors."
)
SERVER_GONE = (
    "The MCP server “{server}” stopped while running this tool, so it did not finish. Tell the "
    "person: they can restart it in Settings → Connectors."
)
BAD_ARGUMENTS = (
    "The MCP server refused the arguments. Check them against the tool's schema and call again."
)
NO_SUCH_TOOL = "The MCP server no longer offers this tool. Use one of the tools listed."
REFUSED = "The MCP server could not run this call. Tell the person, and try another way."
SIGN_IN_AGAIN = (
    "The connector “{server}” needs the person to sign in again (its sign-in expired or was "
    "revoked), so this tool did not run. Tell the person: Settings → Connectors → “{server}” → "
    "Sign in again."
)
SERVERS_WORD = "Not confirmed: reported by the MCP server “{server}”; Deskhand cannot look."


def judge(server: str, tool: mcp_types.Tool, *, trusted: bool) -> tuple[Risk, str]:
    """A call's risk and the reason the sheet shows: the server's hints count only if trusted."""
    hints = tool.annotations
    read_only = bool(hints and hints.read_only_hint)
    harmless = bool(hints and hints.destructive_hint is False)
    if read_only:
        says = "the server says it only reads"
    elif harmless:
        says = "the server says it changes things but deletes or overwrites nothing"
    elif hints and hints.destructive_hint:
        says = "the server says it may delete or overwrite"
    else:
        says = "the server says nothing about its effects"
    if not trusted:
        return Risk.CONSEQUENTIAL, f"MCP server “{server}”, not trusted; {says}"
    risk = Risk.READ if read_only else Risk.CHANGE if harmless else Risk.CONSEQUENTIAL
    return risk, f"MCP server “{server}”, trusted; {says}"


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells a changed file apart (inode, size, modification time), or None if absent."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _schema(tool: mcp_types.Tool) -> dict[str, Any]:
    schema = dict(tool.input_schema)
    schema.setdefault("type", "object")
    return schema


class McpSource(contract.ToolSource):
    """The source of every MCP server in the config."""

    name = "mcp"

    def __init__(
        self,
        config_path: Path,
        *,
        logs_dir: Path,
        others: Callable[[], int] = lambda: 0,
        can_defer: Callable[[], bool] = lambda: True,
        cache_path: Path | None = None,
        sign_ins: SignIns | None = None,
    ) -> None:
        self.config_path = config_path
        self.logs_dir = logs_dir
        self.cache_path = cache_path or config_path.with_name("mcp-tools.json")
        self._others = others
        self._can_defer = can_defer
        # Read now (reading never writes), so Settings shows the servers before they start.
        self.read = read_config(config_path)
        self.approvals = ConnectorApprovals(
            config_path.with_name(APPROVED_FILE), Seal(config_path.with_name(KEY_NAME))
        )
        if self.read.problem is None:
            self.approvals.adopt(self.config.servers)
        self._stamp = _stamp(config_path)
        self.connections: dict[str, ServerConnection] = {}
        self._listeners: list[Callable[[], None]] = []
        self._background: set[asyncio.Future[Any]] = set()
        self._reconciling = asyncio.Lock()
        self._folders: dict[str, list[Path]] = {}  # what each server reported (path_bases)
        # Connectors that sign in: their tokens, kept in the keychain or an owner-only file.
        self.sign_ins = sign_ins or SignIns(config_path)
        self.live = False  # started (`start`): changes start and stop servers at once

    # -- what the person configured ---------------------------------------------------

    @property
    def config(self) -> McpConfig:
        return self.read.config

    def entry(self, server: str) -> ServerEntry | None:
        return self.config.servers.get(server)

    def waiting(self) -> dict[str, ServerEntry]:
        """Servers that are on but not approved as they are now: they wait for the person."""
        return {
            name: entry
            for name, entry in self.config.servers.items()
            if not entry.disabled and not self.approvals.approved(name, entry)
        }

    def approve(self, server: str, shown: ServerEntry) -> bool:
        """The person lets `server` start, as `shown` to them; if the file says something else
        by now, nothing is approved (the new version is asked about). Returns whether it was."""
        entry = self.entry(server)
        if entry is None or entry != shown:
            return False
        self.approvals.approve({server: entry})
        self._in_background(self._reconcile())
        self._changed()
        return True

    def notice_file_change(self) -> bool:
        """Re-read mcp.json if it changed on disk since it was read or written (a text editor,
        another program); a file that cannot be read now is left for Reload. New or changed
        servers wait for the person's approval. Returns whether anything was taken."""
        stamp = _stamp(self.config_path)
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        read = read_config(self.config_path)
        if read.problem is not None or read.text == self.read.text:
            return False
        self.read = read
        # `deskhand connector add` approves what it adds: the approvals file, which only
        # Deskhand can sign, is read again with the list.
        self.approvals.reread()
        self._in_background(self._reconcile())
        self._changed()
        return True

    def status(self, server: str) -> ServerStatus:
        connection = self.connections.get(server)
        return connection.status if connection is not None else ServerStatus()

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """`listener()` runs whenever a server's status or tools change; returns how to stop."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    changed = _changed  # for remote.py: a sign-in or sign-out changed a row

    def connection_for(self, server: str, entry: ServerEntry) -> ServerConnection:
        """A connection to `server` as configured, not kept here (remote.py lists its tools)."""
        return self._connection(server, entry)

    def reload(self) -> ConfigRead:
        """Read the file again (never writing it); servers that changed start or stop."""
        self.read = read_config(self.config_path)
        self._stamp = _stamp(self.config_path)
        if self.read.problem is None:
            self._in_background(self._reconcile())
        self._changed()
        return self.read

    def save(self, config: McpConfig) -> None:
        """Write the file (Settings → Connectors, on Save); servers that changed start or stop.

        Raises OSError when the file cannot be written, and ConfigChanged when it changed on
        disk since it was read; nothing changes then.
        """
        before = self.config.servers
        text = write_config(self.config_path, config, read=self.read)
        self._stamp = _stamp(self.config_path)
        # What the person added or changed here is theirs: approved as saved. Servers they left
        # as they were keep the approval they had (a server added by hand still waits).
        self.approvals.approve(
            {name: e for name, e in config.servers.items() if before.get(name) != e}
        )
        self.read = ConfigRead(config=config, text=text)
        self._in_background(self._reconcile())
        self._changed()

    def put(self, name: str, entry: ServerEntry | None) -> None:
        """One connector added or changed (approved as it is: the person did it) or removed (its
        approval goes too), written at once; a started source starts or stops it.

        Raises OSError, or ConfigChanged when the file changed on disk since it was read."""
        config = self.config.model_copy(deep=True)
        if entry is None:
            config.servers.pop(name, None)
        else:
            config.servers[name] = entry
        text = write_config(self.config_path, config, read=self.read)
        self._stamp = _stamp(self.config_path)
        if entry is None:
            self.approvals.forget(name)
        else:
            self.approvals.approve({name: entry})
        self.read = ConfigRead(config=config, text=text)
        if self.live:
            self._in_background(self._reconcile())
        self._changed()

    def known_tools(self, server: str) -> list[mcp_types.Tool] | None:
        """The server's tools: running, or as last listed (None: never listed)."""
        connection = self.connections.get(server)
        if connection is not None and connection.tools:
            return list(connection.tools)
        return self._cached_tools().get(server)

    def learned(self, server: str, tools: list[mcp_types.Tool]) -> None:
        """Remember the tools a server listed outside a connection (a sign-in's)."""
        entry = self.entry(server)
        try:
            data = json.loads(self.cache_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict):
            data = {}
        data.pop(server, None)
        if entry is not None:
            data[server] = {
                "where": entry.spec().model_dump(),
                "tools": [t.model_dump(mode="json", by_alias=True) for t in tools],
            }
        try:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            self.cache_path.write_text(json.dumps(data), encoding="utf-8")
        except OSError:
            log.warning("could not keep the MCP tool list", exc_info=True)

    def restart(self, server: str) -> None:
        """Start a server again (the Restart button), with the saved config."""
        connection = self.connections.get(server)
        entry = self.entry(server)
        if connection is not None and entry is not None and not entry.disabled:
            self._in_background(self._started(server, connection.restart()))

    def _in_background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _connection(self, server: str, entry: ServerEntry) -> ServerConnection:
        import mcp_types

        from tools.mcp.connection import ServerConnection

        auth = None
        if entry.oauth and entry.url:
            from tools.mcp.oauth.flow import running_auth

            auth = running_auth(entry.url, self.sign_ins.keeper(server), self._changed, name=server)
        return ServerConnection(
            server,
            entry.spec(),
            stderr_log=self.logs_dir / "mcp" / f"{server_key(server)}.log",
            on_change=self._changed,
            client_info=mcp_types.Implementation(name="Deskhand", version=desktop.__version__),
            auth=auth,
        )

    async def _reconcile(self) -> None:
        """Make the running servers match the config: stop what went, start what came.

        A server that failed stays failed until its Restart (or a change to it).
        """
        async with self._reconciling:
            await self._reconcile_now()

    async def _reconcile_now(self) -> None:
        # Only what the person approved runs; a server waiting for them is as if absent.
        wanted = {
            name: entry
            for name, entry in self.config.servers.items()
            if self.approvals.approved(name, entry)
        }
        # A connector that signs in starts once signed in (without, it could only fail).
        for name in [n for n, e in wanted.items() if e.oauth]:
            if not await asyncio.to_thread(self._signed_in, name):
                del wanted[name]
        if wanted:
            await heavy.ready(heavy.MCP)  # the MCP client, imported off the loop in one place
        stops = []
        for server, connection in list(self.connections.items()):
            entry = wanted.get(server)
            if entry is None or entry.spec() != connection.spec or entry.disabled:
                stops.append(connection.stop())
                if entry is None or entry.spec() != connection.spec:
                    del self.connections[server]
        await asyncio.gather(*stops)
        cached = self._cached_tools() if self.config.lazy_start else {}
        starts = []
        for server, entry in wanted.items():
            if server not in self.connections:
                self.connections[server] = self._connection(server, entry)
            current = self.connections[server]
            if entry.disabled or current.status.state is not ServerState.OFF:
                continue
            if server in cached:
                current.idle(cached[server])
            else:
                starts.append(self._started(server, current.start()))
        self._changed()
        await asyncio.gather(*starts)

    def _signed_in(self, server: str) -> bool:
        entry = self.config.servers.get(server)
        url = (entry.url or "") if entry is not None else ""
        return self.sign_ins.state(server, url).status is SignInStatus.SIGNED_IN

    async def _started(self, server: str, starting: Any) -> None:
        status = await starting
        if status.state is ServerState.READY:
            self._remember_tools()
            await self._learn_folders(server)

    async def _learn_folders(self, server: str) -> None:
        """The folders a server reports it reads relative paths from (the filesystem server's
        allowed directories): Deskhand's own places are looked for in them too."""
        connection = self.connections.get(server)
        if connection is None or not any(t.name == ALLOWED_DIRS for t in connection.tools):
            return
        try:
            result = await connection.call(ALLOWED_DIRS, {})
        except Exception:  # a server that cannot say: its working folder and arguments remain
            log.info("%s did not list its folders", server, exc_info=True)
            return
        lines = "\n".join(getattr(item, "text", "") for item in result.content).splitlines()
        self._folders[server] = [Path(line.strip()) for line in lines if line.strip()[:1] == "/"]

    def path_bases(self, use: contract.ToolUse) -> list[Path]:
        """Where the server of `use` reads a relative path from: the folders it reported, the
        folders among its arguments, its working folder (see desktop/calls/own_places/guard.py)."""
        found = self._offered().get(use.name)
        entry = self.entry(found[0]) if found else None
        if found is None or entry is None:
            return []
        cwd = Path(entry.cwd or os.getcwd()).expanduser()
        folders = [cwd / arg for arg in entry.args if (cwd / arg).is_dir()]
        return [*self._folders.get(found[0], []), *folders, cwd]

    # -- the lazy start's memory of each server's tools -------------------------------

    def _cached_tools(self) -> dict[str, list[mcp_types.Tool]]:
        import mcp_types

        try:
            data = json.loads(self.cache_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        tools: dict[str, list[mcp_types.Tool]] = {}
        for server, entry in self.config.servers.items():
            saved = data.get(server) if isinstance(data, dict) else None
            if not isinstance(saved, dict) or saved.get("where") != entry.spec().model_dump():
                continue  # the server changed since: its old tools say nothing
            try:
                tools[server] = [mcp_types.Tool.model_validate(t) for t in saved.get("tools", [])]
            except ValueError:
                continue
        return tools

    def _remember_tools(self) -> None:
        data = {
            server: {
                "where": connection.spec.model_dump(),
                "tools": [t.model_dump(mode="json", by_alias=True) for t in connection.tools],
            }
            for server, connection in self.connections.items()
            if connection.tools
        }
        try:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            self.cache_path.write_text(json.dumps(data), encoding="utf-8")
        except OSError:
            log.warning("could not keep the MCP tool list for a lazy start", exc_info=True)

    # -- the tools --------------------------------------------------------------------

    def _offered(self) -> dict[str, tuple[str, mcp_types.Tool]]:
        """Every tool that can be called now, by API name: (server, tool)."""
        offered: dict[str, tuple[str, mcp_types.Tool]] = {}
        for server, connection in self.connections.items():
            entry = self.entry(server)
            if entry is None or entry.disabled:
                continue
            for tool in connection.tools:
                name = api_name(server, tool.name)
                if name in offered:  # two names that read the same once made API-safe
                    log.warning("MCP tool %s of %s hidden: its name is taken", tool.name, server)
                    continue
                offered[name] = (server, tool)
        return offered

    def _lookup(self, use: contract.ToolUse) -> tuple[str, mcp_types.Tool]:
        found = self._offered().get(use.name)
        if found is None:  # the server went away since the reply was written
            raise InvalidInput(use.name)
        return found

    def api_tools(self) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        for name, (server, tool) in self._offered().items():
            connection = self.connections[server]
            if connection.status.state not in (ServerState.READY, ServerState.IDLE):
                continue
            entries.append(
                {
                    "name": name,
                    "description": (tool.description or tool.title or "")[:MAX_DESCRIPTION],
                    "input_schema": _schema(tool),
                }
            )
        if entries and len(entries) + self._others() > DEFER_OVER and self._can_defer():
            for entry in entries:
                entry["defer_loading"] = True
            entries.append(dict(TOOL_SEARCH))  # last: the request's cache breakpoint lands here
        return entries

    def handles(self, use: contract.ToolUse) -> bool:
        return use.toolset_name is None and use.name in self._offered()

    def label(self, use: contract.ToolUse) -> str:
        found = self._offered().get(use.name)
        return f"{found[0]}: {found[1].name}" if found else use.name

    def call_source(self, use: contract.ToolUse) -> contract.CallSource:
        found = self._offered().get(use.name)  # as its label: the server, or the name used
        return contract.CallSource(name=self.name, title=found[0] if found else use.name)

    async def describe(self, use: contract.ToolUse, session_id: int) -> ToolCall:
        import jsonschema  # loaded with the first MCP call, not at start

        server, tool = self._lookup(use)
        try:
            schema = _schema(tool)
            jsonschema.Draft202012Validator.check_schema(schema)
            valid = jsonschema.Draft202012Validator(schema).is_valid(use.arguments)
        except Exception:  # a schema from outside that cannot be applied: the server judges
            valid = True
        if not valid:
            raise InvalidInput(use.name)
        entry = self.entry(server)
        risk, reason = judge(server, tool, trusted=bool(entry and entry.trusted))
        shown = contract.input_line(use.arguments)
        where = entry.where() if entry else server
        return ToolCall(
            session_id=session_id,
            tool_use_id=use.id,
            tool=rules_tool(server),
            action=rules_action(server, tool.name),
            label=f"{server}: {tool.name}",
            input=use.arguments,
            risk=risk,
            reason=reason,
            summary=f"Run “{tool.title or tool.name}” on {server}"
            + (f": {shown}" if shown else ""),
            target=where if len(where) <= TARGET_LENGTH else where[: TARGET_LENGTH - 1] + "…",
        )

    async def run(
        self, use: contract.ToolUse, call: ToolCall, ctx: contract.CallContext
    ) -> contract.CallResult:
        import mcp_types

        from tools.mcp.results import read_result

        server, tool = self._lookup(use)
        decision = await ctx.approve(call)
        if decision.verdict != "allow":
            return contract.CallResult.failure(denial_text(decision))
        entry = self.entry(server)
        signs_in = bool(entry and entry.oauth)
        if signs_in and not await asyncio.to_thread(self._signed_in, server):
            return contract.CallResult.failure(SIGN_IN_AGAIN.format(server=server))
        connection = self.connections[server]
        if connection.status.state is ServerState.IDLE:  # a lazy server's first call
            await self._started(server, connection.start())
        try:
            result = await connection.call(tool.name, use.arguments, progress=ctx.progress)
        except (ServerUnavailable, ServerGone, CallRefused) as exc:
            # A connector whose sign-in lapsed meanwhile (revoked, refresh refused) says so.
            if signs_in and not await asyncio.to_thread(self._signed_in, server):
                await connection.stop(state=ServerState.FAILED)  # until signed in again
                return contract.CallResult.failure(SIGN_IN_AGAIN.format(server=server))
            if isinstance(exc, ServerUnavailable):
                return contract.CallResult.failure(SERVER_OFF.format(server=server))
            if isinstance(exc, ServerGone):
                return contract.CallResult.failure(SERVER_GONE.format(server=server))
            phrase = {
                mcp_types.INVALID_PARAMS: BAD_ARGUMENTS,
                mcp_types.METHOD_NOT_FOUND: NO_SUCH_TOOL,
            }.get(exc.code, REFUSED)
            return contract.CallResult.failure(phrase)
        output = await asyncio.to_thread(read_result, result)
        acted = not output.is_error and call.risk is not Risk.READ
        said = Outcome(kind="unconfirmed", note=SERVERS_WORD.format(server=server))
        return contract.CallResult(
            content=output.content, is_error=output.is_error, outcome=said if acted else None
        )

    def action_groups(self) -> list[contract.ActionGroup]:
        groups: dict[str, contract.ActionGroup] = {}
        for server, tool in self._offered().values():
            entry = self.entry(server)
            risk, reason = judge(server, tool, trusted=bool(entry and entry.trusted))
            group = groups.setdefault(
                server,
                contract.ActionGroup(tool=rules_tool(server), title=f"{server} (MCP)", actions=[]),
            )
            group.actions.append(
                ActionInfo(name=rules_action(server, tool.name), risk=risk, description=reason)
            )
        return list(groups.values())

    # -- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Read the config and start the servers (behind the window: they may take seconds)."""
        self.live = True
        self.read = read_config(self.config_path)
        self._stamp = _stamp(self.config_path)
        if self.read.problem is not None:
            log.warning("MCP config not used: %s", self.read.problem)
            self._changed()
            return
        await self._reconcile()

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        await asyncio.gather(*(c.stop() for c in self.connections.values()))

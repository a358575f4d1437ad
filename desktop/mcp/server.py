"""`deskhand mcp`: this machine's tools for MCP clients, over stdio, behind the same gate.

Each call is described by its source, settled by a Never rule before any work, and approved
through a `Gate` on the same settings, rules (`--permission-mode` applies) and audit log as
the window's. A call the gate would ask about is asked:

- through MCP elicitation when the client supports it, with the summary, target and exact
  input the window's sheet shows. On handshake-era connections (Claude Desktop's) it asks at
  the moment the gate asks, about the call as it will land. On 2026-era connections a request
  cannot ask mid-call: the question goes back as an input request before anything runs, and
  the answer, when the client calls again, covers only that exact input up to the risk shown
  (a call that turns out riskier when it runs, e.g. a click on a Buy button, is not run);
- otherwise it is refused with what to change in Deskhand to allow it. Never silently allowed.

Besides this machine's tools, `run_routine` runs one of the person's routines in the app
(`routine_tool.py`), asked about like any consequential call.

Only tools that can run here are listed (`offer.py`); the instructions say, a sentence each,
what is left out and why. Every refusal says what happened and what the person can change: a
Never rule, their "no", a question no one could answer, a tool not offered here or no longer
usable (its reason: no display, a permission, a setting).

Before either, when a Deskhand window runs on the same data dir, the question goes to its
approval sheet over the command-line socket (`window_ask.py`), naming the client that asks; the
window decides, and a window that closes mid-question refuses the call. "Always allow" there is
saved by the window; this process takes the rule at once and re-reads the settings file before
each call, so it never writes the person's settings itself.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import sys
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import mcp_types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from desktop import __version__
from desktop.calls.approvals import ApprovalQueue, ApprovalRequest
from desktop.calls.contract import CallResult, ToolSource
from desktop.calls.gate import Gate, denial_text
from desktop.calls.gated import refused_as_own_place, run_gated
from desktop.calls.permissions import (
    NO_APPROVER,
    RISK_TITLES,
    Answer,
    Decision,
    ToolCall,
    input_for_approver,
)
from desktop.calls.sources.function_tools import FunctionTools
from desktop.chat import images
from desktop.command.protocol import read_info
from desktop.command.running import Running
from desktop.mcp.offer import Missing, Offered, missing, offered_tools, why_missing
from desktop.mcp.routine_tool import RunRoutine
from desktop.mcp.window_ask import WINDOW_GONE, WindowAsk, could_not_ask
from tools.base import BAD_INPUT, UNKNOWN_TOOL, InvalidInput, ToolImage, ToolRegistry

if TYPE_CHECKING:
    from pathlib import Path

log = logging.getLogger(__name__)


SESSION = 0  # the chat id of calls that came over MCP (audit rows, the browser's tabs)
INSTRUCTIONS = (
    "Deskhand's tools on this computer: a browser (browser_*), the screen (computer_*, and "
    "screen for other apps' elements by id), on a Mac its apps, and run_routine for the "
    "person's saved routines. Every call passes the person's permission rules in Deskhand; "
    "some ask the person first."
)
LEFT_OUT = "Not offered here:"
NOT_HERE = (
    "Refused: this tool is not offered here. {why} Tell the person; it cannot run until they "
    "change that."
)
NOT_NOW = (
    "Refused: this tool cannot be used now. {why} Tell the person; it cannot run until they "
    "change that."
)
GONE = "It stopped being usable after Deskhand started; `deskhand doctor` says why."
NEVER_HERE = (
    "Refused: the person set “{label}” to Never in Deskhand → Settings → Permissions, so it did "
    "not run. Do not try it again in another way; tell them: they can change that rule there."
)
SAID_NO = (
    "Refused: the person said no when Deskhand asked about this action. Do not try it again in "
    "another way unless they ask; if they want it to run, they can allow it when asked, or set "
    "“{label}” to Always allow in Deskhand → Settings → Permissions."
)
ASK_AGAIN = (
    "Tell the person; with Deskhand's window open, calling again asks them again, or they can "
    "set “{label}” to Always allow in Deskhand → Settings → Permissions."
)
TOO_LONG = (
    "Stopped: the call did not finish within {limit:g} s (the limit `deskhand mcp --timeout` "
    "sets). The person can start it with a longer --timeout."
)
NEEDS_APPROVAL = (
    "This action needs the person's approval, and this MCP client cannot ask them. To allow "
    "it, open Deskhand → Settings → Permissions and set “{label}” to Always allow, keep "
    "Deskhand's window open so it can ask, or start `deskhand mcp --permission-mode "
    "autonomous` (consequential actions still ask)."
)
RISKIER = "It turned out riskier when it ran than what they approved."
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "allow": {
            "type": "boolean",
            "title": "Allow this action once",
            "default": False,
        },
        "reason": {"type": "string", "title": "Reason, if you deny (Claude reads it)"},
    },
    "required": ["allow"],
}

Context = ServerRequestContext[Any, Any]


def approval_message(call: ToolCall) -> str:
    """What the person reads: the sheet's summary, target, risk and the exact input."""
    lines = ["Deskhand asks before this action runs.", call.label or call.rule_key, call.summary]
    if call.target:
        lines.append(f"Target: {call.target}")
    lines.append(f"Risk: {RISK_TITLES[call.risk]} · {call.reason}")
    lines.append("Input:\n" + input_for_approver(call))
    return "\n".join(lines)


def approval_key(call: ToolCall) -> str:
    """An approval's name on 2026-era connections: bound to the action and its exact input."""
    exact = json.dumps([call.tool, call.action, call.input], sort_keys=True, ensure_ascii=True)
    return "deskhand-approval-" + hashlib.sha256(exact.encode()).hexdigest()[:24]


def answer_of(result: mcp_types.ElicitResult) -> Answer:
    """Allowed only by an explicit "allow": true; declining, cancelling or a default denies."""
    content = result.content or {}
    allow = result.action == "accept" and content.get("allow") is True
    reason = content.get("reason")
    return Answer(allow=allow, reason=reason if isinstance(reason, str) and not allow else "")


def can_elicit(ctx: Context) -> bool:
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    # An empty elicitation capability means form mode (the spec's default).
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def client_name(ctx: Context) -> str:
    """What the MCP client calls itself (its title, else its name), for the window's sheet."""
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    if info is None:
        return ""
    return info.title or info.name


def _text(text: str, *, error: bool = False) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=text)], is_error=error
    )


def instructions(left_out: list[Missing]) -> str:
    """The server's instructions: what it offers, then what it does not and why."""
    if not left_out:
        return INSTRUCTIONS
    return "\n".join([INSTRUCTIONS, LEFT_OUT, *(f"- {entry.why}" for entry in left_out)])


class RunningCalls:
    """Runs the calls MCP clients make, each through its source and the gate.

    `left_out()` says what is not offered here now, and why; `limit` bounds each call
    (`--timeout`)."""

    def __init__(
        self,
        workspace: Running,
        tools: dict[str, Offered],
        left_out: Callable[[], list[Missing]] = list,
        limit: float | None = None,
    ) -> None:
        self.workspace = workspace
        self.tools = tools
        self.left_out = left_out
        self.limit = limit
        self._warned: str | None = None

    def warn_outside(self) -> None:
        """Say once on stderr (stdout carries MCP) what was changed outside Deskhand and is
        therefore ignored."""
        change = self.workspace.live.outside_change
        warning = change.warning() if change is not None else None
        if warning is not None and warning != self._warned:
            print(warning, file=sys.stderr, flush=True)
        self._warned = warning

    def list(self) -> mcp_types.ListToolsResult:
        """The tools that can run now (Settings as the window last saved them)."""
        self.workspace.live.refresh()
        tools = [tool.mcp_tool() for tool in self.tools.values() if tool.available()]
        return mcp_types.ListToolsResult(tools=tools)

    def _gate(self, viewer: Callable[[ApprovalRequest], None] | None) -> Gate:
        """The window's gate on the same settings, rules and audit; asks go to `viewer`."""
        approvals = ApprovalQueue()
        if viewer is not None:
            approvals.subscribe(viewer)
        ws = self.workspace
        # An "Always allow" is only ever answered in the window, which saves it: here it is
        # taken into force without writing the settings file a second time.
        return Gate(
            settings=ws.live.permissions,
            store=ws.store,
            remember=ws.live.adopt_rule,
            approvals=approvals,
        )

    def _from_window(
        self,
        window: WindowAsk,
        client: str,
        fallback: Callable[[ApprovalRequest], None] | None,
    ) -> Callable[[ApprovalRequest], None]:
        """Questions go to the running window's sheet; if it has none to show, to `fallback`
        (the client's elicitation), or, with none, they are refused as having no one to ask."""

        def from_window(request: ApprovalRequest) -> None:
            async def ask() -> None:
                answer = await window.ask(request.call, client)
                if could_not_ask(answer) and fallback is not None:
                    fallback(request)
                    return
                request.answer(answer)

            task = asyncio.ensure_future(ask())

            def stop_asking() -> None:
                task.cancel()  # closes the connection: the window closes its sheet

            request.on_cancel.append(stop_asking)

        return from_window

    def _viewer(
        self, ctx: Context, params: mcp_types.CallToolRequestParams, described: ToolCall
    ) -> Callable[[ApprovalRequest], None] | None:
        """Who answers this call's questions, or None when no one can (then the gate denies)."""
        if not can_elicit(ctx):
            return None
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            answers = params.input_responses or {}
            asked = described.risk

            def from_answers(request: ApprovalRequest) -> None:
                answer = answers.get(approval_key(request.call))
                if not isinstance(answer, mcp_types.ElicitResult):
                    # Not asked (a window ran when the call came, then could not ask): no one
                    # answered, which is not the person saying no.
                    request.answer(Answer(allow=False, by="mode", reason=NO_APPROVER))
                elif request.call.risk.above(asked):
                    request.answer(Answer(allow=False, reason=RISKIER))
                else:
                    request.answer(answer_of(answer))

            return from_answers

        def elicit(request: ApprovalRequest) -> None:
            async def ask() -> None:
                try:
                    result = await ctx.session.elicit_form(
                        approval_message(request.call),
                        APPROVAL_SCHEMA,
                        related_request_id=ctx.request_id,
                    )
                    request.answer(answer_of(result))
                except Exception:  # the client failed to ask: not a yes, nor the person's no
                    log.warning("elicitation failed", exc_info=True)
                    request.answer(Answer(allow=False, by="mode", reason=NO_APPROVER))

            task = asyncio.ensure_future(ask())

            def stop_asking() -> None:
                task.cancel()

            request.on_cancel.append(stop_asking)

        return elicit

    def _question(
        self, ctx: Context, params: mcp_types.CallToolRequestParams, call: ToolCall
    ) -> mcp_types.InputRequiredResult | None:
        """On a 2026-era connection, a call that will ask goes back to the client as a question
        first (nothing has run); it comes again with the answer."""
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS or not can_elicit(ctx):
            return None
        key = approval_key(call)
        if not self._gate(None).will_ask(call):
            return None
        if key in (params.input_responses or {}):
            return None
        if read_info(self.workspace.paths.root) is not None:
            return None  # a window runs: it asks when the call reaches the gate
        form = mcp_types.ElicitRequestFormParams(
            message=approval_message(call), requested_schema=APPROVAL_SCHEMA
        )
        return mcp_types.InputRequiredResult(
            input_requests={key: mcp_types.ElicitRequest(params=form)}
        )

    async def call(
        self, ctx: Context, params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult | mcp_types.InputRequiredResult:
        self.workspace.live.refresh()  # rules and switches the window saved since
        offered = self.tools.get(params.name)
        if offered is None:
            why = why_missing(params.name, self.left_out())
            return _text(NOT_HERE.format(why=why) if why else UNKNOWN_TOOL, error=True)
        if not offered.available():
            return self._not_now(offered)
        use = offered.tool_use(f"mcp_{uuid.uuid4().hex[:20]}", dict(params.arguments or {}))
        try:
            call = await offered.source.describe(use, SESSION)
        except InvalidInput:
            return _text(BAD_INPUT, error=True)
        self.warn_outside()
        own = await refused_as_own_place(use, call, offered.source, self._gate(None))
        if own is not None:  # Deskhand's own places: no one is asked, nothing runs
            return await mcp_result(own.result)
        refused = self._gate(None).refusal(call)  # before anyone is asked anything
        if refused is not None and refused.by == "rule":
            return _text(NEVER_HERE.format(label=call.label or call.rule_key), error=True)
        if refused is not None:
            return _text(denial_text(refused), error=True)
        question = self._question(ctx, params, call)
        if question is not None:
            return question
        try:
            result = await asyncio.wait_for(self._run(ctx, params, offered, call), self.limit)
        except TimeoutError:
            return _text(TOO_LONG.format(limit=self.limit or 0), error=True)
        if result.is_error and not offered.available():  # it became unusable while it ran
            return self._not_now(offered)
        return result

    def _not_now(self, offered: Offered) -> mcp_types.CallToolResult:
        """A listed tool that cannot run now (the display went away, a setting changed)."""
        why = why_missing(offered.name, self.left_out()) or GONE
        return _text(NOT_NOW.format(why=why), error=True)

    async def _run(
        self,
        ctx: Context,
        params: mcp_types.CallToolRequestParams,
        offered: Offered,
        call: ToolCall,
    ) -> mcp_types.CallToolResult:
        fallback = self._viewer(ctx, params, call)

        async def check(asked: ToolCall, approved: ToolCall | None) -> tuple[Decision, int]:
            viewer = fallback
            if self._gate(None).will_ask(asked, approved):
                window = await WindowAsk.connect(self.workspace.paths.root)
                if window is not None:
                    viewer = self._from_window(window, client_name(ctx), fallback)
            return await self._gate(viewer).check(asked, approved=approved)

        sent: list[asyncio.Future[None]] = []  # kept until the call ends

        def progress(line: str) -> None:
            sent.append(
                asyncio.ensure_future(ctx.session.report_progress(len(sent) + 1, None, line))
            )

        settled = await run_gated(
            offered.tool_use(call.tool_use_id, call.input),
            call,
            offered.source,
            gate=self._gate(None),
            session_id=SESSION,
            attachments_dir=self.workspace.paths.attachments,
            progress=progress,
            check=check,
        )
        decision = settled.decision
        label = call.label or call.rule_key
        if decision is not None and decision.by == "mode" and decision.reason == NO_APPROVER:
            return _text(NEEDS_APPROVAL.format(label=label), error=True)
        if decision is not None and decision.verdict == "deny":
            if decision.by == "rule":
                return _text(NEVER_HERE.format(label=label), error=True)
            if decision.by == "person" and decision.reason != RISKIER:
                because = f" Their reason: {decision.reason}" if decision.reason else ""
                return _text(SAID_NO.format(label=label) + because, error=True)
            if decision.by == "stop" and decision.reason == WINDOW_GONE:
                return _text(f"{WINDOW_GONE} {ASK_AGAIN.format(label=label)}", error=True)
        return await mcp_result(settled.result)


async def mcp_result(result: CallResult) -> mcp_types.CallToolResult:
    """A pipeline result as MCP content: text, bounded images, anything else as JSON text."""
    content: list[mcp_types.TextContent | mcp_types.ImageContent] = []
    for item in result.content:
        if isinstance(item, ToolImage):
            data, media_type, _, _ = await asyncio.to_thread(
                images.bound, item.data, item.media_type
            )
            encoded = base64.b64encode(data).decode()
            content.append(mcp_types.ImageContent(type="image", data=encoded, mime_type=media_type))
        elif item.get("type") == "text":
            content.append(mcp_types.TextContent(type="text", text=str(item.get("text", ""))))
        else:  # a toolset's own block (the browser's tabs): data the client can read
            content.append(mcp_types.TextContent(type="text", text=json.dumps(item)))
    if not content:
        content.append(mcp_types.TextContent(type="text", text="Done."))
    return mcp_types.CallToolResult(content=content, is_error=result.is_error)


def build_server(calls: RunningCalls) -> Server[Any]:
    async def list_tools(
        ctx: Context, params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return calls.list()

    async def call_tool(
        ctx: Context, params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult | mcp_types.InputRequiredResult:
        return await calls.call(ctx, params)

    return Server(
        "deskhand",
        version=__version__,
        title="Deskhand",
        instructions=instructions(calls.left_out()),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve(
    workspace: Running, limit: float | None = None, data_dir: Path | None = None
) -> None:
    """Serve over this process's stdin/stdout until the client closes them; each call has at
    most `limit` seconds (none by default). `data_dir`: as given on the command line, for the
    app a routine's run starts."""
    from tools.mac.macos import macos_status

    toolbox = workspace.toolbox
    sources: list[ToolSource] = [
        source for source in toolbox.sources() if source is not toolbox.mcp
    ]
    for source in sources:
        await source.start()
    sources.append(FunctionTools(ToolRegistry([RunRoutine(data_dir)])))

    def left_out() -> list[Missing]:
        return missing(workspace.settings, toolbox.screen, macos_status())

    await workspace.keys.aget()  # known from now on: no result sent to a client carries it
    calls = RunningCalls(workspace, offered_tools(sources), left_out, limit)
    calls.warn_outside()
    server = build_server(calls)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await workspace.close()

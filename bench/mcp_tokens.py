"""Benchmark: prompt tokens of a request with 5 and with 100 MCP tools.

Real tool definitions are taken from the two reference servers the tests install
(@modelcontextprotocol/server-everything and server-filesystem, 27 tools), then served N at
a time (renamed copies) by a small stdio MCP server this script starts for itself. Deskhand's
own McpSource connects to it, and the request is built exactly as a turn builds it
(`desktop.chat.request.build_request`, with the browser toolset entry too).

Tokens are ESTIMATED from the request JSON at 3.5 characters per token: the scripted test
server has no count_tokens route and this machine has no network. Tools sent with
`defer_loading` are not part of the prompt until the tool search returns them, so the
estimate counts the system prompt, the messages and the tools that are not deferred. With
`--count` and ANTHROPIC_API_KEY set, the real API's count_tokens is asked instead.

    .venv/bin/python bench/mcp_tokens.py [--sizes 5 100] [--count]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHARS_PER_TOKEN = 3.5
NODE_BIN = ROOT / "tests" / "support" / "mcp" / "node_modules" / ".bin"


async def reference_tools(folder: Path) -> list[dict[str, Any]]:
    """The real tool definitions of the two reference servers."""
    from tools.mcp.connection import ServerConnection
    from tools.mcp.spec import StdioSpec

    tools: list[dict[str, Any]] = []
    for name, args in (
        ("mcp-server-everything", ["stdio"]),
        ("mcp-server-filesystem", [str(folder)]),
    ):
        command = NODE_BIN / name
        if not command.exists():
            sys.exit(f"{name} is not installed: npm ci --prefix tests/support/mcp")
        spec = StdioSpec(command=str(command), args=args)
        server = ServerConnection(name, spec, stderr_log=folder / f"{name}.log")
        await server.start()
        tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in server.tools]
        await server.stop()
    return tools


def serve(templates: Path, count: int) -> None:
    """`--serve`: an MCP server over stdio offering `count` renamed copies of the templates."""
    import mcp_types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    source = json.loads(templates.read_text())
    tools = []
    for index in range(count):
        tool = dict(source[index % len(source)])
        tool["name"] = f"{tool['name']}_{index}"
        tools.append(mcp_types.Tool.model_validate(tool))

    async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="ok")])

    server = Server("bench", on_list_tools=list_tools, on_call_tool=call_tool)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    asyncio.run(run())


def prompt_chars(request: dict[str, Any]) -> tuple[int, int]:
    """(characters in the prompt, characters of tool definitions left out by deferral)."""
    tools = request.get("tools", [])
    deferred = [t for t in tools if t.get("defer_loading")]
    loaded = [t for t in tools if not t.get("defer_loading")]
    prompt = {k: v for k, v in request.items() if k != "tools"} | {"tools": loaded}
    return len(json.dumps(prompt)), len(json.dumps(deferred))


async def measure(count: int, templates: Path, real_count: bool) -> dict[str, Any]:
    from desktop.chat.request import build_request
    from desktop.system.store import StoredMessage
    from desktop.workspace import Workspace

    with tempfile.TemporaryDirectory() as data:
        ws = Workspace.open(Path(data))
        entry = {
            "command": sys.executable,
            "args": [__file__, "--serve", str(templates), str(count)],
        }
        ws.paths.mcp_config.write_text(json.dumps({"mcpServers": {"bench": entry}}))
        await ws.toolbox.start()
        try:
            history = [
                StoredMessage(
                    id=1,
                    session_id=1,
                    role="user",
                    content=[{"type": "text", "text": "What can you do?"}],
                    status="complete",
                    created_at=0.0,
                )
            ]
            request = build_request(ws.settings, history, ws.calls.api_tools())
            mcp_tools = sum(1 for t in request["tools"] if t.get("name", "").startswith("mcp__"))
            chars, left_out = prompt_chars(request)
            tokens = round(chars / CHARS_PER_TOKEN)
            how = "estimated"
            if real_count:
                from anthropic import AsyncAnthropic

                async with AsyncAnthropic() as client:
                    counted = await client.beta.messages.count_tokens(
                        **{k: v for k, v in request.items() if k != "max_tokens"}
                    )
                tokens, how = counted.input_tokens, "counted"
            return {
                "mcp_tools": mcp_tools,
                "deferred": any(t.get("defer_loading") for t in request["tools"]),
                "request_bytes": len(json.dumps(request)),
                "prompt_tokens": tokens,
                "how": how,
                "without_deferral": round((chars + left_out) / CHARS_PER_TOKEN),
            }
        finally:
            await ws.close()


async def main_async(sizes: list[int], real_count: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        templates = Path(folder) / "tools.json"
        templates.write_text(json.dumps(await reference_tools(Path(folder))))
        print(
            f"{'MCP tools':>9}  {'deferred':>8}  {'request bytes':>13}  {'prompt tokens':>13}"
            f"  {'if all were sent':>16}"
        )
        for size in sizes:
            row = await measure(size, templates, real_count)
            print(
                f"{row['mcp_tools']:>9}  {'yes' if row['deferred'] else 'no':>8}  "
                f"{row['request_bytes']:>13,}  {row['prompt_tokens']:>9,} ({row['how'][:3]})"
                f"  {row['without_deferral']:>16,}"
            )
    if not real_count:
        print(
            f"Tokens estimated at {CHARS_PER_TOKEN} characters per token from the request JSON "
            "(deferred tool definitions are not in the prompt)."
        )


def main() -> int:
    if sys.argv[1:2] == ["--serve"]:
        serve(Path(sys.argv[2]), int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 100])
    parser.add_argument("--count", action="store_true", help="ask the API's count_tokens")
    args = parser.parse_args()
    if args.count and not os.environ.get("ANTHROPIC_API_KEY"):
        parser.error("--count needs ANTHROPIC_API_KEY")
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    asyncio.run(main_async(args.sizes, args.count))
    return 0


if __name__ == "__main__":
    sys.exit(main())

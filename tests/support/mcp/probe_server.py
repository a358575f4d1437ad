"""A small real MCP server over stdio (the `mcp` SDK's MCPServer), for what the npm servers
cannot show a test: whether a cancellation reached the server, a crash in the middle of a
call, and as many tools as a test asks for.

    python probe_server.py MARKER_DIR [--tools N]

- `wait(seconds)`: says it only reads; reports progress every 0.1 s; if the client cancels
  it, it writes MARKER_DIR/cancelled before it stops.
- `crash()`: the process exits at once, in the middle of the call.
- `tool_1` … `tool_N`: each returns its own name.

At start it writes its environment to MARKER_DIR/environ.json.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

markers = Path(sys.argv[1])
count = int(sys.argv[sys.argv.index("--tools") + 1]) if "--tools" in sys.argv else 0
server = MCPServer("probe")
markers.mkdir(parents=True, exist_ok=True)
(markers / "environ.json").write_text(json.dumps(dict(os.environ)))


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def wait(seconds: float, ctx: Context) -> str:
    """Wait, reporting progress, and note a cancellation."""
    steps = max(1, int(seconds * 10))
    (markers / "waiting").write_text("waiting")  # tests know the call is under way
    try:
        for step in range(steps):
            await ctx.report_progress(step + 1, steps, f"step {step + 1}")
            await anyio.sleep(0.1)
    except anyio.get_cancelled_exc_class():
        (markers / "cancelled").write_text("cancelled")
        raise
    return "waited"


@server.tool()
def crash() -> str:
    """Exit in the middle of the call."""
    print("probe: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


def numbered(number: int) -> None:
    def tool(text: str = "") -> str:
        return f"tool_{number}"

    server.add_tool(tool, name=f"tool_{number}", description=f"Numbered tool {number} for tests.")


for n in range(1, count + 1):
    numbered(n)

if __name__ == "__main__":
    server.run("stdio")

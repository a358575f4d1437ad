"""The real MCP servers tests start: two from npm (installed into tests/support/mcp by
scripts/test, pinned in its package.json) and a small Python one (probe_server.py).

Nothing here downloads anything: a missing install fails the test with the command to run.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent / "mcp"
BIN = HERE / "node_modules" / ".bin"
PROBE = HERE / "probe_server.py"


def npm_server(name: str) -> str:
    """The path of an installed npm server's executable (`mcp-server-everything`...)."""
    path = BIN / name
    if not path.exists():
        pytest.fail(
            f"{name} is not installed. Run `npm ci --prefix tests/support/mcp` "
            "(scripts/test does it)."
        )
    return str(path)


def everything() -> dict[str, Any]:
    """An mcp.json entry for @modelcontextprotocol/server-everything over stdio."""
    return {"command": npm_server("mcp-server-everything"), "args": ["stdio"]}


def filesystem(folder: Path) -> dict[str, Any]:
    """An mcp.json entry for @modelcontextprotocol/server-filesystem on `folder`."""
    return {"command": npm_server("mcp-server-filesystem"), "args": [str(folder)]}


def probe(markers: Path, tools: int = 0) -> dict[str, Any]:
    """An mcp.json entry for the Python probe server (wait, crash, tool_1..tool_N)."""
    markers.mkdir(parents=True, exist_ok=True)
    return {"command": sys.executable, "args": [str(PROBE), str(markers), "--tools", str(tools)]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def running_with(marker: str) -> list[int]:
    """Pids of live processes whose command line holds `marker` (Linux: reads /proc)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().split(") ")[-1][:1]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def write_approved(source: Any, data: dict[str, Any] | str) -> None:
    """Write mcp.json as a text editor would, and approve its servers as the person does on
    the window's sheet (a server written by hand starts only once approved)."""
    from desktop.calls.sources.mcp.config import parse_config

    text = data if isinstance(data, str) else json.dumps(data)
    source.config_path.write_text(text)
    read = parse_config(text, source.config_path)
    if read.problem is None:
        source.approvals.approve(read.config.servers)

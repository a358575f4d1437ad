"""`deskhand mcp` as a real subprocess for tests: a data folder with its settings, the server's
stdio parameters, a session of the `mcp` SDK's own client, and what the client and the audit
read back."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any, TextIO

import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[2]
Elicit = Any


def data_dir(tmp_path: Path, browser: dict[str, Any] | None = None, **settings: Any) -> Path:
    folder = tmp_path / "data"
    folder.mkdir(exist_ok=True)
    browser = {"headless": True, "allow_hosts": "127.0.0.1", **(browser or {})}
    (folder / "settings.json").write_text(json.dumps({"browser": browser, **settings}))
    return folder


def served(folder: Path, *options: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """The server with no display (no DISPLAY), unless `env` gives it one."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "desktop", "--data-dir", str(folder), "mcp", *options],
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", **(env or {})},
    )


def session(
    params: StdioServerParameters,
    work: Any,
    *,
    mode: str = "legacy",
    elicit: Elicit = None,
    errlog: TextIO = sys.stderr,
) -> Any:
    async def go() -> Any:
        async with Client(
            stdio_client(params, errlog=errlog), mode=mode, elicitation_callback=elicit, cache=None
        ) as client:
            return await work(client)

    return asyncio.run(go())


def text(result: mcp_types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, mcp_types.TextContent))


def audit(folder: Path) -> list[tuple[str, str, str, str]]:
    with sqlite3.connect(folder / "deskhand.db") as db:
        rows = db.execute("SELECT tool, action, decision, decided_by FROM audit ORDER BY id")
        return [tuple(row) for row in rows]

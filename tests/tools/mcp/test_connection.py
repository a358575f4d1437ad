"""One MCP server's life against real servers: the npm reference servers and the Python probe.

Each test starts a real process (or an HTTP server) and checks what the person or the model
would notice: the tools listed, a result, progress lines, a cancellation that reached the
server, a crash that reads as one, and no process left behind.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import mcp_servers
from tests.support.waiting import wait_until
from tools.mcp.connection import ServerConnection
from tools.mcp.errors import ServerGone, ServerUnavailable
from tools.mcp.results import read_result
from tools.mcp.spec import HttpSpec, ServerState, StdioSpec


def connection(entry: dict[str, object], tmp_path: Path, name: str = "server") -> ServerConnection:
    spec = StdioSpec.model_validate(entry)
    return ServerConnection(name, spec, stderr_log=tmp_path / "logs" / f"{name}.log")


def test_everything_starts_lists_its_tools_and_echoes(tmp_path: Path) -> None:
    server = connection(mcp_servers.everything(), tmp_path)
    changes: list[ServerState] = []
    server.on_change = lambda: changes.append(server.status.state)

    async def go() -> str:
        status = await server.start()
        assert status.state is ServerState.READY and status.tools == len(server.tools)
        result = await server.call("echo", {"message": "hello"})
        await server.stop()
        return read_result(result).content[0]["text"]  # type: ignore[index]

    assert asyncio.run(go()) == "Echo: hello"
    names = {tool.name for tool in server.tools}
    assert {"echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"} <= names
    echo = next(tool for tool in server.tools if tool.name == "echo")
    assert echo.annotations is not None and echo.annotations.read_only_hint
    assert changes[0] is ServerState.STARTING and ServerState.READY in changes
    assert server.status.state is ServerState.OFF


def test_progress_arrives_as_lines(tmp_path: Path) -> None:
    server = connection(mcp_servers.everything(), tmp_path)
    lines: list[str] = []

    async def go() -> None:
        await server.start()
        await server.call(
            "trigger-long-running-operation", {"duration": 0.4, "steps": 4}, progress=lines.append
        )
        await server.stop()

    asyncio.run(go())
    assert lines == ["1/4", "2/4", "3/4", "4/4"]


def test_a_cancelled_call_tells_the_server(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    server = connection(mcp_servers.probe(markers, tools=1), tmp_path)
    lines: list[str] = []

    async def go() -> None:
        await server.start()
        call = asyncio.ensure_future(server.call("wait", {"seconds": 30}, progress=lines.append))
        await wait_until(lambda: len(lines) >= 2, 10, "progress")
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await wait_until(lambda: (markers / "cancelled").exists(), 10, "the server's note")
        # The connection is still good for the next call.
        assert read_result(await server.call("tool_1", {})).is_error is False
        await server.stop()

    asyncio.run(go())
    assert lines[0] == "1/300 · step 1"


def test_a_server_that_dies_mid_call_is_a_clear_failure(tmp_path: Path) -> None:
    server = connection(mcp_servers.probe(tmp_path / "markers"), tmp_path, name="probe")

    async def go() -> None:
        await server.start()
        with pytest.raises(ServerGone):
            await server.call("crash", {})
        await wait_until(lambda: server.status.state is ServerState.FAILED, 10, "the failure")
        with pytest.raises(ServerUnavailable):
            await server.call("wait", {"seconds": 0.1})
        await server.stop(state=ServerState.FAILED)

    asyncio.run(go())
    assert server.status.problem == "The server stopped on its own."
    assert server.status.stderr == "probe: crashing on purpose"


def test_a_command_that_does_not_exist_says_so(tmp_path: Path) -> None:
    server = connection({"command": "deskhand-no-such-server"}, tmp_path)
    status = asyncio.run(server.start())
    assert status.state is ServerState.FAILED
    assert status.problem == (
        "The command “deskhand-no-such-server” was not found. Install it, or give its full path."
    )


def test_a_server_that_exits_at_start_shows_the_end_of_its_stderr(tmp_path: Path) -> None:
    script = "import sys; print('GITHUB_TOKEN is not set', file=sys.stderr); sys.exit(2)"
    entry = {"command": sys.executable, "args": ["-c", script]}
    server = connection(entry, tmp_path, name="github")
    log_file = tmp_path / "logs" / "github.log"
    log_file.parent.mkdir(parents=True)
    log_file.write_text("--- github started earlier ---\nan older run's line\n")
    status = asyncio.run(server.start())
    assert status.state is ServerState.FAILED
    assert status.problem == "The server exited while starting."
    assert status.stderr == "GITHUB_TOKEN is not set"  # this run's lines only


def test_the_config_env_reaches_the_child_and_stop_leaves_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    markers = tmp_path / "env-markers"
    entry = mcp_servers.probe(markers)
    entry["env"] = {"DESKHAND_TEST_VALUE": "from-config"}
    server = connection(entry, tmp_path)
    monkeypatch.setenv("DESKHAND_SECRET_OF_PARENT", "parent-only")

    async def go() -> None:
        assert (await server.start()).state is ServerState.READY
        assert mcp_servers.running_with(str(markers))
        await server.stop()

    asyncio.run(go())
    environ = json.loads((markers / "environ.json").read_text())
    # Only the SDK's few variables (PATH among them) and the config's env reach a server.
    assert environ["DESKHAND_TEST_VALUE"] == "from-config"
    assert environ["PATH"] == os.environ["PATH"]
    assert "DESKHAND_SECRET_OF_PARENT" not in environ
    assert mcp_servers.running_with(str(markers)) == []


def test_a_streamable_http_server_is_reached_by_url(tmp_path: Path) -> None:
    port = mcp_servers.free_port()
    process = subprocess.Popen(
        [mcp_servers.npm_server("mcp-server-everything"), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        assert "listening on port" in process.stderr.readline()
        spec = HttpSpec(url=f"http://127.0.0.1:{port}/mcp", headers={"X-Test": "1"})
        server = ServerConnection("remote", spec)

        async def go() -> str:
            await server.start()
            result = await server.call("get-sum", {"a": 2, "b": 3})
            await server.stop()
            return read_result(result).content[0]["text"]  # type: ignore[index]

        assert asyncio.run(go()) == "The sum of 2 and 3 is 5."
        assert server.status.state is ServerState.OFF

        unreachable = ServerConnection("gone", HttpSpec(url="http://127.0.0.1:9/mcp"))
        status = asyncio.run(unreachable.start())
        assert status.state is ServerState.FAILED
        assert status.problem == "The server could not be reached at its URL."
    finally:
        process.terminate()
        process.wait(timeout=10)

"""Quitting the real app, whatever it is doing: exit code 0, nothing on stderr, nothing left running.

Each test starts `python -m desktop` offscreen against the scripted model server, lets it reach
the moment under test (a reply streaming, a tool call running, the browser open), and quits it
the way the system does: SIGTERM, or Ctrl+C in the terminal it was started from.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop.system.store import Store, StoredMessage
from tests.support import mcp_servers
from tests.support.model_server import (
    Hang,
    ScriptedModelServer,
    ToolUse,
    browser_use,
    text_reply,
    tool_reply,
)
from tests.support.page_server import PageServer
from tools.browser import find_browser

ROOT = Path(__file__).resolve().parents[2]
START_LIMIT = 90.0  # the first request comes after Qt, the SDK and the stream process load
QUIT_LIMIT = 30.0

pytestmark = pytest.mark.slow

needs_browser = pytest.mark.skipif(
    find_browser() is None, reason="no Chromium-family browser installed"
)


class RunningApp:
    """`deskhand --data-dir DIR ARGS…` in a process of its own (and a process group of its own,
    as a terminal gives it), talking to the scripted model server."""

    def __init__(self, data_dir: Path, server: ScriptedModelServer, *args: str) -> None:
        # Everything the app starts inherits this mark, so whatever outlives it can be found.
        self.mark = uuid.uuid4().hex
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "QT_QPA_PLATFORM": "offscreen",
            "ANTHROPIC_API_KEY": "sk-test-key",
            "ANTHROPIC_BASE_URL": server.base_url,
            "DESKHAND_TEST_MARK": self.mark,
        }
        self.data_dir = data_dir
        self.process = subprocess.Popen(
            [sys.executable, "-m", "desktop", "--data-dir", str(data_dir), *args],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def wait_for(self, condition: Callable[[], object], what: str) -> None:
        deadline = time.monotonic() + START_LIMIT
        while not condition():
            if self.process.poll() is not None:
                _out, err = self.process.communicate()
                raise AssertionError(f"the app ended while waiting for {what}:\n{err}")
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.05)

    def quit(self, how: str = "SIGTERM") -> subprocess.CompletedProcess[str]:
        """SIGTERM to the app, or Ctrl+C in its terminal: SIGINT to its whole process group."""
        if how == "Ctrl+C":
            os.killpg(self.process.pid, signal.SIGINT)
        else:
            self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=QUIT_LIMIT)
        return subprocess.CompletedProcess(self.process.args, self.process.returncode, out, err)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.communicate()

    def leftovers(self) -> list[str]:
        """Processes the app started that are still running: the stream process, the browser…
        (Linux's /proc tells; elsewhere nothing is found.)"""
        found: list[str] = []
        proc = Path("/proc")
        for entry in proc.iterdir() if proc.is_dir() else ():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes()
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue  # ended meanwhile, or not ours to read
            if f"DESKHAND_TEST_MARK={self.mark}".encode() in environ.split(b"\0"):
                found.append(command[:120])
        return found

    def stored_count(self, role: str) -> int:
        """Messages of `role` the running app has saved (read-only: the app holds the store)."""
        database = self.data_dir / "deskhand.db"
        if not database.exists():
            return 0
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
            try:
                query = "SELECT count(*) FROM messages WHERE role = ?"
                return int(db.execute(query, (role,)).fetchone()[0])
            except sqlite3.OperationalError:
                return 0  # not created yet, or busy for a moment

    def messages(self) -> list[StoredMessage]:
        store = Store.open(self.data_dir / "deskhand.db")
        try:
            [session] = store.sessions()
            return store.messages(session.id)
        finally:
            store.close()

    def log_problems(self) -> list[str]:
        log = (self.data_dir / "logs" / "deskhand.log").read_text(encoding="utf-8")
        return [line for line in log.splitlines() if " ERROR " in line or "Traceback" in line]


def assert_quit_cleanly(app: RunningApp, result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert app.log_problems() == []
    deadline = time.monotonic() + 10
    while (left := app.leftovers()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == [], "still running after the app quit"


@pytest.fixture
def start(data_dir: Path, model_server: ScriptedModelServer) -> Iterator[Callable[..., RunningApp]]:
    started: list[RunningApp] = []

    def start(*args: str, browser: dict[str, object] | None = None) -> RunningApp:
        data_dir.mkdir(parents=True, exist_ok=True)
        settings: dict[str, object] = {"model": {"max_retries": 0}}
        if browser is not None:
            settings["browser"] = browser
        (data_dir / "settings.json").write_text(json.dumps(settings))
        app = RunningApp(data_dir, model_server, *args)
        started.append(app)
        return app

    yield start
    for app in started:
        app.kill()


BROWSER = {"headless": True, "allow_hosts": "127.0.0.1"}


@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl+C"])
def test_quitting_mid_reply_keeps_the_words_so_far(
    start: Callable[..., RunningApp], model_server: ScriptedModelServer, how: str
) -> None:
    model_server.enqueue(Hang(text="The beginning of an answer", seconds=60))
    app = start("--send", "Tell me a story")
    app.wait_for(lambda: model_server.message_requests, "the reply to start")
    time.sleep(1.0)  # the first words travel server -> stream process -> window; a second is ample

    assert_quit_cleanly(app, app.quit(how))
    assert [(m.role, m.status, m.text) for m in app.messages()] == [
        ("user", "complete", "Tell me a story"),
        ("assistant", "stopped", "The beginning of an answer"),
    ]


def test_quitting_while_a_tool_call_waits_for_approval(
    start: Callable[..., RunningApp], model_server: ScriptedModelServer, pages: PageServer
) -> None:
    model_server.enqueue(tool_reply(browser_use("navigate", url=pages.url("form.html"))))
    app = start("--permission-mode", "ask", "--send", "Open the form", browser=BROWSER)
    # The reply is saved before its tool call goes to the gate, which opens the approval sheet.
    app.wait_for(lambda: app.stored_count("assistant") == 1, "the tool call")

    assert_quit_cleanly(app, app.quit())
    assert pages.paths() == []  # nobody approved: the page was never opened
    stored = app.messages()
    [use] = stored[1].content
    [result] = stored[2].content
    assert result["tool_use_id"] == use["id"] and result.get("is_error") is True


@needs_browser
def test_quitting_while_the_browser_loads_a_page(
    start: Callable[..., RunningApp], model_server: ScriptedModelServer, pages: PageServer
) -> None:
    model_server.enqueue(tool_reply(browser_use("navigate", url=pages.url("stall?seconds=60"))))
    app = start("--permission-mode", "autonomous", "--send", "Open the slow page", browser=BROWSER)
    app.wait_for(lambda: "/stall?seconds=60" in pages.paths(), "the browser to ask for the page")

    assert_quit_cleanly(app, app.quit())
    stored = app.messages()
    [use] = stored[1].content
    [result] = stored[2].content
    assert result["tool_use_id"] == use["id"] and result.get("is_error") is True


@needs_browser
@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl+C"])
def test_quitting_with_the_browser_open(
    start: Callable[..., RunningApp],
    model_server: ScriptedModelServer,
    pages: PageServer,
    how: str,
) -> None:
    model_server.enqueue(
        tool_reply(browser_use("navigate", url=pages.url("form.html"))),
        text_reply("The form is open."),
    )
    app = start("--permission-mode", "autonomous", "--send", "Open the form", browser=BROWSER)
    app.wait_for(lambda: app.stored_count("assistant") == 2, "the reply after the page opened")
    assert "/form.html" in pages.paths()

    assert_quit_cleanly(app, app.quit(how))
    assert app.messages()[-1].text == "The form is open."


def test_quitting_while_an_mcp_tool_runs_stops_every_server(
    start: Callable[..., RunningApp], model_server: ScriptedModelServer, data_dir: Path
) -> None:
    # MCP servers get only a few variables from the app, so they are found by their markers.
    markers = data_dir / "probe-markers"
    servers = {
        "probe": {**mcp_servers.probe(markers), "trusted": True},
        "idle": mcp_servers.probe(data_dir / "idle-markers", tools=2),
    }
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    model_server.enqueue(tool_reply(ToolUse(name="mcp__probe__wait", input={"seconds": 60})))
    app = start("--send", "Wait a minute")
    app.wait_for(lambda: app.stored_count("assistant") == 1, "the tool call")
    app.wait_for(lambda: (data_dir / "idle-markers" / "environ.json").exists(), "both servers")
    assert mcp_servers.running_with(str(markers)) and mcp_servers.running_with("idle-markers")
    app.wait_for(lambda: (markers / "waiting").exists(), "the call to be under way")

    assert_quit_cleanly(app, app.quit())
    assert mcp_servers.running_with(str(data_dir)) == []
    [use] = app.messages()[1].content
    [result] = app.messages()[2].content
    assert result["tool_use_id"] == use["id"] and result.get("is_error") is True
    assert (markers / "cancelled").exists()  # the server was told, not just killed

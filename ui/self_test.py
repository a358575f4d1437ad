"""`deskhand --self-test`: start Deskhand offscreen and check what an install or a bundle can get wrong.

It opens the real main window on a throwaway data dir (or the one given), then checks that

- the window shows and paints,
- the store writes a session and a second connection reads it back,
- the settings file saves and loads,
- the API client (the SDK and its HTTP stack) talks to a stub server on 127.0.0.1, both
  here and in the model stream process (which a bundle starts as a copy of itself),
- the browser launches and loads a page served from 127.0.0.1,

and prints one line: `self-test ok: window, store, settings, api client, browser (chromium 156),
page load in 84 ms`. Otherwise it says, per failed check, what failed and what to do, and
exits 1. Nothing leaves the machine. Everything runs on the qasync loop; the little web
server runs in a thread.
"""

from __future__ import annotations

import asyncio
import dataclasses
import http.server
import json
import os
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import qasync
from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

from desktop.calls.sources.browser.source import browser_config
from desktop.model_stream.client import ClientConfig, list_models, make_client
from desktop.model_stream.errors import ModelCallFailed
from desktop.model_stream.worker import shared_worker
from desktop.system.browser_setup import BrowserPool, UrlPolicy, install_hint
from desktop.system.login_path import restore_library_path
from desktop.system.playwright_env import configure_playwright, is_frozen, preferred_browser
from desktop.system.settings.model import Settings, SettingsFile
from desktop.system.store import Store
from desktop.workspace import Workspace
from ui.window.main_window import MainWindow

SUMMARY_PREFIX = "self-test ok:"
FAILED_PREFIX = "self-test failed:"
STUB_MODEL = "claude-self-test"


class CheckFailed(Exception):
    """A check did not pass: what happened, and what the person can do about it."""

    def __init__(self, detail: str, advice: str = "") -> None:
        super().__init__(detail)
        self.detail = detail
        self.advice = advice


@dataclass
class CheckResult:
    """How one self-test check went."""

    name: str
    ok: bool
    text: str  # passed: its part of the summary line; failed: what went wrong
    advice: str = ""


# --- a page and a stub models API on 127.0.0.1 ------------------------------------------------


def _streamed_reply(text: str) -> bytes:
    """A Messages API reply as server-sent events, the way the API streams it."""
    first, *rest = text.split(" ")
    pieces = [first, *(f" {word}" for word in rest)]
    message: dict[str, object] = {
        "id": "msg_self_test",
        "type": "message",
        "role": "assistant",
        "model": STUB_MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    events = [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        *(
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": word},
                },
            )
            for word in pieces
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 3},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


class LocalSite:
    """A tiny web server in a thread: `/` is a page titled with the token, `/v1/models` and
    `/v1/messages` (streamed) stubs of the API."""

    def __init__(self, token: str) -> None:
        self.title = f"Deskhand self-test {token}"
        self.reply = f"Self-test reply {token}"
        reply = _streamed_reply(self.reply)
        page = f"<!doctype html><title>{self.title}</title><p>{self.title}</p>".encode()
        models = json.dumps(
            {
                "data": [
                    {
                        "id": STUB_MODEL,
                        "type": "model",
                        "display_name": "Self-test",
                        "created_at": "2025-01-01T00:00:00Z",
                    }
                ],
                "has_more": False,
                "first_id": STUB_MODEL,
                "last_id": STUB_MODEL,
            }
        ).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path.split("?")[0] == "/v1/models":
                    self._send(models, "application/json")
                elif self.path == "/":
                    self._send(page, "text/html; charset=utf-8")
                else:
                    self.send_error(404)

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.split("?")[0] == "/v1/messages":
                    self._send(reply, "text/event-stream; charset=utf-8")
                else:
                    self.send_error(404)

            def _send(self, body: bytes, content_type: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet: the summary line is the output

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="self-test-site", daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> None:
        self._thread.start()

    async def stop(self) -> None:
        # shutdown() waits for serve_forever to notice: off the GUI thread.
        await asyncio.to_thread(self._server.shutdown)
        self._server.server_close()


# --- the checks --------------------------------------------------------------------------------


class SelfTest:
    """Runs the checks against one workspace and collects their outcomes."""

    def __init__(self, data_dir: Path, scratch: Path) -> None:
        self.data_dir = data_dir
        self.scratch = scratch
        self.token = secrets.token_hex(4)
        self.site = LocalSite(self.token)
        self.outcomes: list[CheckResult] = []
        self.window: MainWindow | None = None

    async def _check(
        self, name: str, check: Callable[[], Awaitable[str]], within: float, advice: str
    ) -> bool:
        try:
            summary = await asyncio.wait_for(check(), within)
        except CheckFailed as failure:
            self.outcomes.append(CheckResult(name, False, failure.detail, failure.advice or advice))
            return False
        except TimeoutError:
            self.outcomes.append(
                CheckResult(name, False, f"no answer within {within:.0f} s", advice)
            )
            return False
        except Exception as exc:  # a self-test reports every failure; it never crashes
            detail = f"{type(exc).__name__}: {exc}".strip().splitlines()[0]
            self.outcomes.append(CheckResult(name, False, detail, advice))
            return False
        self.outcomes.append(CheckResult(name, True, summary))
        return True

    async def run(self) -> list[CheckResult]:
        try:
            workspace = Workspace.open(self.data_dir)
        except OSError as exc:
            self.outcomes.append(
                CheckResult(
                    "data dir",
                    False,
                    f"{self.data_dir} is not usable ({exc.strerror or exc})",
                    "choose a writable folder with --data-dir",
                )
            )
            return self.outcomes
        self.site.start()
        try:
            await self._check(
                "window",
                lambda: self._open_window(workspace),
                20,
                "check that the Qt libraries are installed (Debian: sudo apt-get install "
                "libegl1 libgl1 libxkbcommon0 libfontconfig1); run with QT_DEBUG_PLUGINS=1 for details",
            )
            await self._check(
                "store",
                lambda: self._store(workspace),
                10,
                f"make sure {workspace.paths.database.parent} is writable and the disk is not full",
            )
            await self._check(
                "settings",
                lambda: self._settings(workspace),
                10,
                f"make sure {workspace.paths.settings.parent} is writable",
            )
            await self._check(
                "api client",
                self._api_client,
                20,
                "reinstall Deskhand; the Anthropic SDK in this install is incomplete",
            )
            await self._check("browser", lambda: self._browser(workspace), 90, _browser_advice())
        finally:
            if self.window is not None:
                await _close_window(self.window)
            await workspace.close()
            await shared_worker().close()
            await self.site.stop()
        return self.outcomes

    async def _open_window(self, workspace: Workspace) -> str:
        self.window = window = MainWindow(workspace)
        window.show()
        deadline = time.monotonic() + 15
        while not (window.isVisible() and window.windowHandle() is not None):
            if time.monotonic() > deadline:
                raise CheckFailed("the main window did not appear")
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.05)  # let the first layout and paint events run
        picture = window.grab()
        if picture.isNull() or picture.width() < 100 or picture.height() < 100:
            raise CheckFailed(
                f"the main window did not paint (platform {QApplication.platformName()})"
            )
        return "window"

    async def _store(self, workspace: Workspace) -> str:
        store = workspace.store
        text = f"self-test message {self.token}"
        session = store.create_session("Deskhand self-test")
        try:
            store.add_message(session.id, "user", [{"type": "text", "text": text}])
            # A second connection sees it only if it was committed to the file.
            reader = Store.open(workspace.paths.database)
            try:
                read_back = [m.text for m in reader.messages(session.id)]
            finally:
                reader.close()
        finally:
            await workspace.delete_session(session.id)
        if read_back != [text]:
            raise CheckFailed(f"a message written to {store.path} read back as {read_back!r}")
        return "store"

    async def _settings(self, workspace: Workspace) -> str:
        path = workspace.paths.settings
        existed = path.exists()
        original = workspace.settings
        probe = original.model_copy(deep=True)
        probe.model.system_prompt_extra = f"self-test {self.token}"
        workspace.live.file.save(probe)
        try:
            loaded = SettingsFile(path).load()
        finally:  # leave the person's settings exactly as they were
            if existed:
                workspace.live.file.save(original)
            else:
                path.unlink(missing_ok=True)
        if loaded != probe:
            raise CheckFailed(f"settings saved to {path} did not load back the same")
        return "settings"

    async def _api_client(self) -> str:
        settings = Settings()
        settings.model.base_url = self.site.url
        settings.model.max_retries = 0
        client = make_client(settings, "self-test-key")
        try:
            ids = await list_models(client)
        finally:
            await client.close()
        if ids != [STUB_MODEL]:
            raise CheckFailed(f"the API client read {ids!r} from the stub server")
        received: list[str] = []
        try:
            result = await shared_worker().stream(
                client=ClientConfig.of(settings, "self-test-key"),
                request={
                    "model": STUB_MODEL,
                    "max_tokens": 16,
                    "messages": [{"role": "user", "content": "self-test"}],
                },
                on_text=received.append,
            )
        except ModelCallFailed as failure:
            raise CheckFailed(f"the model stream process failed: {failure.report.title}") from None
        streamed = "".join(received)
        if streamed != self.site.reply or result.content != [
            {"type": "text", "text": self.site.reply}
        ]:
            raise CheckFailed(f"the model stream process read {streamed!r} from the stub server")
        return "api client"

    async def _browser(self, workspace: Workspace) -> str:
        settings = workspace.settings.browser
        configured = settings.executable_path.strip() or None
        choice = preferred_browser(configured)
        if choice is None:
            if configured:
                raise CheckFailed(
                    f"the browser set in Settings → Browser ({configured}) is missing"
                )
            raise CheckFailed("no Chrome, Edge or Chromium was found")
        # The person's browser settings, except what a self-test must not do: show a window,
        # use their persistent profile, or refuse the page it serves itself on 127.0.0.1.
        config = dataclasses.replace(
            browser_config(settings, self.scratch / "downloads"),
            executable_path=choice.path,
            channel=None if choice.path else choice.channel,
            headless=True,
            profile_dir=None,
            url_policy=UrlPolicy(allow_hosts=("127.0.0.1",)),
        )
        pool = BrowserPool(config)
        try:
            tab = await pool.session("self-test").new_tab()
            browser = tab.page.context.browser
            version = browser.version if browser is not None else "?"
            label = f"{_browser_name(choice.source)} {version.split('.')[0]}"
            started = time.monotonic()
            await tab.page.goto(self.site.url + "/", wait_until="load", timeout=20_000)
            load_ms = int((time.monotonic() - started) * 1000)
            title = await tab.page.title()
        finally:
            await pool.close()
        if title != self.site.title:
            raise CheckFailed(f"{label} loaded the test page but read the title {title!r}")
        return f"browser ({label}), page load in {load_ms} ms"


def _browser_advice() -> str:
    if is_frozen():  # no `python -m playwright` in a bundle: the app offers the download itself
        return (
            "install Google Chrome (Deskhand prefers it), or open Deskhand and let it download "
            "Chromium the first time it needs the browser"
        )
    return f"install Google Chrome (Deskhand prefers it), or Chromium: {install_hint()}"


def _browser_name(source: str) -> str:
    return source if source in ("chrome", "msedge") else "chromium"


async def _close_window(window: MainWindow) -> None:
    shutdown = getattr(window, "shutdown", None)  # the window's own clean-up, where it has one
    if shutdown is not None:
        await shutdown()
    window.close()
    window.deleteLater()
    await asyncio.sleep(0)


# --- running it --------------------------------------------------------------------------------


def report(outcomes: list[CheckResult], qt_messages: list[str]) -> int:
    """Print the one-line summary (exit 0) or what failed and what to do (exit 1)."""
    failed = [o for o in outcomes if not o.ok]
    if not failed and outcomes:
        print(f"{SUMMARY_PREFIX} {', '.join(o.text for o in outcomes)}")
        return 0
    for outcome in failed:
        print(f"{FAILED_PREFIX} {outcome.name}: {outcome.text}", file=sys.stderr)
        if outcome.advice:
            print(f"  what to do: {outcome.advice}", file=sys.stderr)
    passed = [o.name for o in outcomes if o.ok]
    if passed:
        print(f"  passed: {', '.join(passed)}", file=sys.stderr)
    for message in qt_messages[-10:]:
        print(f"  qt: {message}", file=sys.stderr)
    return 1


def run_self_test(data_dir: Path | None) -> int:
    """The `--self-test` command: 0 when every check passed, 1 otherwise."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before the QApplication exists
    configure_playwright()
    restore_library_path()  # the browser must start as the app would start it
    qt_messages: list[str] = []

    def keep_qt_message(kind: QtMsgType, _context: object, message: str) -> None:
        if kind != QtMsgType.QtDebugMsg:
            qt_messages.append(message)  # shown only when a check fails

    previous_handler = qInstallMessageHandler(keep_qt_message)
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)  # closing the window at the end must not stop the loop
    with tempfile.TemporaryDirectory(
        prefix="deskhand-self-test-", ignore_cleanup_errors=True
    ) as tmp:
        scratch = Path(tmp)
        target = data_dir if data_dir is not None else scratch / "data"
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            outcomes = runner.run(SelfTest(target, scratch).run())
    qInstallMessageHandler(previous_handler)
    return report(outcomes, qt_messages)

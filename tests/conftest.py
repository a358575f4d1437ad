"""Shared fixtures: offscreen Qt, a qasync loop, the scripted model server, a throwaway data dir,
a private session bus with a notification service on it."""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

# Before Qt or keyring load: no screen needed, and tests never touch the person's real keychain.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from desktop.model_stream.worker import shared_worker
from desktop.system import heavy
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer
from tests.support.notification_server import NotificationService
from tests.support.page_server import PageServer
from tests.support.turns import turn_log


@pytest.fixture(scope="session", autouse=True)
def stream_process() -> Iterator[None]:
    """The model stream process starts with the run, as the app starts it with its window:
    loading the SDK takes seconds, which no test's wait should have to cover."""
    worker = shared_worker()
    worker.start()
    # The app loads these after its first paint (desktop/system/heavy.py): tests load them up
    # front, so that no test's wait has to cover the seconds they take on a busy machine.
    heavy.wait()
    yield
    asyncio.run(worker.close())


@pytest.fixture
def model_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def pages() -> Iterator[PageServer]:
    """Test pages served from 127.0.0.1 (tests/support/pages/)."""
    with PageServer() as server:
        yield server


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def api_env(
    monkeypatch: pytest.MonkeyPatch, model_server: ScriptedModelServer
) -> ScriptedModelServer:
    """Key and base URL from the environment, as a person would set them; the server answers."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", model_server.base_url)
    return model_server


@pytest.fixture
def no_api_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


@pytest.fixture
def workspace(data_dir: Path, api_env: ScriptedModelServer) -> Iterator[Workspace]:
    """A workspace talking to the scripted server, with SDK retries off so failures show at once."""
    ws = Workspace.open(data_dir)
    settings = ws.settings.model_copy(deep=True)
    settings.model.max_retries = 0
    ws.live.apply(settings)
    turn_log(ws.conversations)  # from the start, so a window's test can wait for its turns
    yield ws
    ws.store.close()


@pytest.fixture
def aloop(qapp):  # type: ignore[no-untyped-def]
    """A qasync event loop on the test's QApplication: `aloop.run_until_complete(coro)` drives both."""
    import qasync

    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    _keep_running_loop_between_calls(loop)
    yield loop
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.close()  # now, while Qt objects live; closing at garbage collection would fail
    asyncio.set_event_loop(None)
    gc.collect()  # drop Qt wrappers of this test now, not during a later test or at exit


def _keep_running_loop_between_calls(loop: asyncio.AbstractEventLoop) -> None:
    """qasync's `run_until_complete` processes events once more after `run_forever` cleared the
    running loop; a stream callback landing there finds no asyncio loop (httpcore raises
    AsyncLibraryNotFoundError). Keep the loop set until `run_until_complete` returns."""
    run_forever = loop.run_forever
    run_until_complete = loop.run_until_complete

    def run_forever_keeping_the_loop() -> None:
        try:
            run_forever()
        finally:
            asyncio.events._set_running_loop(loop)

    def run_until_complete_then_clear(future):  # type: ignore[no-untyped-def]
        try:
            return run_until_complete(future)
        finally:
            asyncio.events._set_running_loop(None)

    loop.run_forever = run_forever_keeping_the_loop  # type: ignore[method-assign]
    loop.run_until_complete = run_until_complete_then_clear  # type: ignore[method-assign]


@pytest.fixture
def notifications(monkeypatch: pytest.MonkeyPatch) -> Iterator[NotificationService]:
    """A private session bus (dbus-daemon) with the notification service stand-in on it."""
    if not shutil.which("dbus-daemon"):
        pytest.skip("needs dbus-daemon (Debian: dbus-daemon)")
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    service = NotificationService(address)
    try:
        yield service
    finally:
        service.close()
        daemon.terminate()
        daemon.wait(5)

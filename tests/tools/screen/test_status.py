"""Whether the screen can be used here, in words a person can act on, and what the model reads
when it cannot; checked against a real X server and against none."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest
from anthropic.types.beta import BetaToolUseBlock

from tests.support.x11 import Xvfb, xvfb_missing
from tools.screen import ScreenComputer, errors, screen_status
from tools.screen.backends.x11.backend import X11Backend
from tools.screen.displays import number_displays
from tools.screen.errors import BackendError

pytestmark = pytest.mark.anyio
NO_SERVER = ":987"  # a display number no test starts a server on


@pytest.fixture
def no_session(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_a_running_x_server_is_available(xvfb: Xvfb, no_session: pytest.MonkeyPatch) -> None:
    no_session.setenv("DISPLAY", xvfb.display)
    status = screen_status()
    assert status.available and status.backend == "x11" and status.reason == ""


def test_no_display_says_why_and_what_to_do(no_session: pytest.MonkeyPatch) -> None:
    status = screen_status()
    assert not status.available
    assert status.reason == "No graphical display was found (DISPLAY is not set)."
    assert status.fix == "Start Deskhand from a desktop session."


def test_wayland_without_xwayland(no_session: pytest.MonkeyPatch) -> None:
    no_session.setenv("WAYLAND_DISPLAY", "wayland-0")
    status = screen_status()
    assert not status.available
    assert "Wayland session without XWayland" in status.reason
    assert "X11 (Xorg) session" in status.fix


def test_wayland_with_xwayland_works_for_x11_apps(
    xvfb: Xvfb, no_session: pytest.MonkeyPatch
) -> None:
    no_session.setenv("WAYLAND_DISPLAY", "wayland-0")
    no_session.setenv("DISPLAY", xvfb.display)
    status = screen_status()
    assert status.available
    assert status.reason == "Wayland session: only X11 applications can be seen and controlled."


def test_an_unreachable_display(no_session: pytest.MonkeyPatch) -> None:
    no_session.setenv("DISPLAY", NO_SERVER)
    status = screen_status()
    assert not status.available
    assert status.reason == "The X display could not be reached."


def test_an_x_server_without_xtest(no_session: pytest.MonkeyPatch) -> None:
    if xvfb_missing():
        pytest.skip(xvfb_missing())
    with Xvfb(640, 480, "-extension", "XTEST") as server:
        no_session.setenv("DISPLAY", server.display)
        status = screen_status()
    assert not status.available
    assert status.reason == "The X server does not offer the XTEST extension, which input needs."


async def test_the_model_reads_a_fixed_phrase_when_there_is_no_screen(
    anyio_backend: str, no_session: pytest.MonkeyPatch
) -> None:
    screen = ScreenComputer(confirm=lambda context: True)
    try:
        for member, extra in [("screenshot", {}), ("left_click", {"coordinate": [1, 1]})]:
            use = BetaToolUseBlock(
                type="tool_use", id="toolu_1", name=member, input=extra, toolset_name="computer"
            )
            block = await screen.tool_result(use)
            assert block.get("is_error") and block["content"] == [
                {"type": "text", "text": errors.UNAVAILABLE}
            ]
    finally:
        await screen.close()


def test_x11_reports_the_screen_as_one_primary_display(xvfb: Xvfb) -> None:
    backend = X11Backend(xvfb.display)
    try:
        (display,) = number_displays(backend.displays())
        assert display.frame == (0, 0, 1280, 800) and display.primary and display.index == 0
        assert display.scale == 1.0
    finally:
        backend.close()


def test_a_display_that_closes_the_handshake_is_tried_again_then_reported_unreachable() -> None:
    """A server starting up or at its client limit closes new connections: a moment later it
    may take them; one that keeps closing them is unreachable, said plainly (not Xlib's error)."""
    sockets = Path("/tmp/.X11-unix")
    sockets.mkdir(mode=0o1777, exist_ok=True)
    number = next(
        n
        for n in range(940, 980)  # clear of NO_SERVER
        if not (sockets / f"X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists()
    )
    path = sockets / f"X{number}"
    accepted: list[int] = []
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen(8)

        def close_each() -> None:
            while True:
                try:
                    client, _ = server.accept()
                except OSError:
                    return
                accepted.append(1)
                with client:
                    client.recv(64)

        threading.Thread(target=close_each, daemon=True).start()
        try:
            with pytest.raises(BackendError, match="could not be reached"):
                X11Backend(f":{number}")
        finally:
            path.unlink()
    assert len(accepted) == 3

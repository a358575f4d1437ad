"""The Accessibility API backend on a real Mac: TextEdit's window, and a window with a password.

Marked `macos` (skipped elsewhere). They need the terminal running them to hold the
Accessibility permission, and say so when it does not. TextEdit opens a scratch file; the
password window is a small AppKit app started here (pyobjc), which writes what its secure field
holds to a file, so a test can see that nothing was typed into it.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tools.screen.a11y.accessible import App, Node
from tools.screen.backends.mac_permissions import GRANT_ACCESSIBILITY
from tools.screen.geometry import Point

if TYPE_CHECKING:
    from tools.screen.a11y.ax.reader import AxAccessibility

pytestmark = [
    pytest.mark.macos,
    pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS"),
]

TEXT = "Hello from Deskhand"
GREETING = "Grüße, Ωmega 42!"
SECRET = "hunter2"


def trusted() -> None:
    from tools.screen.a11y.ax import reader as ax

    status = ax.status()
    if not status.available:
        pytest.skip(f"{status.reason} {status.fix}")


def test_the_status_is_available_or_says_where_to_grant_accessibility() -> None:
    from tools.screen.a11y.ax import reader as ax

    status = ax.status()
    assert status.available or status.fix == GRANT_ACCESSIBILITY


@pytest.fixture
async def accessibility() -> AsyncIterator[AxAccessibility]:
    trusted()
    from tools.screen.a11y.ax.reader import AxAccessibility

    made = AxAccessibility()
    yield made
    await made.close()


def _quit(bundle_id: str) -> None:
    from AppKit import NSRunningApplication

    for app in NSRunningApplication.runningApplicationsWithBundleIdentifier_(bundle_id):
        app.forceTerminate()


@pytest.fixture
def textedit(tmp_path: Path) -> Iterator[Path]:
    document = tmp_path / "deskhand-ax-test.txt"
    document.write_text(TEXT)
    subprocess.run(["/usr/bin/open", "-a", "TextEdit", str(document)], check=True)
    yield document
    _quit("com.apple.TextEdit")


async def _window(accessibility: AxAccessibility, bundle_id: str, title: str) -> tuple[App, Node]:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for app in await accessibility.apps():
            if app.bundle_id == bundle_id:
                for frame in await accessibility.frames(app):
                    if title in frame.name:
                        return app, frame
        await asyncio.sleep(0.2)
    raise AssertionError(f"no {bundle_id} window titled {title!r} appeared")


def _as_window(app: App, frame: Node) -> Any:
    from tools.screen.windows import Window

    assert frame.bounds is not None
    return Window(id=1, title=frame.name, app=app.name, pid=app.pid, rect=frame.bounds)


@pytest.mark.anyio
async def test_textedits_window_is_seen_with_its_text_and_buttons(
    accessibility: AxAccessibility, textedit: Path
) -> None:
    app, frame = await _window(accessibility, "com.apple.TextEdit", textedit.name)
    assert app.name == "TextEdit" and app.pid is not None
    nodes, _ = await accessibility.tree([frame.ref])
    assert len([n for n in nodes if n.listed]) <= 400
    assert max(len(n.path) for n in nodes) <= 12
    text = next(n for n in nodes if n.kind == "T")
    assert text.value is not None and TEXT in text.value and text.showing
    assert frame.bounds is not None and text.bounds is not None
    assert frame.bounds.intersection(text.bounds) == text.bounds
    assert any(n.kind == "B" for n in nodes)  # the close, minimize and zoom buttons
    # The same window is found from Quartz's window list.
    window = _as_window(app, frame)
    found = await accessibility.frame_of(window)
    assert found is not None and found[1].name == frame.name


@pytest.mark.anyio
async def test_the_gate_sees_the_text_under_a_point_and_with_the_focus(
    accessibility: AxAccessibility, textedit: Path
) -> None:
    from AppKit import NSApplicationActivateIgnoringOtherApps, NSRunningApplication

    from tools.screen.a11y.ax.reader import AxInspector

    app, frame = await _window(accessibility, "com.apple.TextEdit", textedit.name)
    running = NSRunningApplication.runningApplicationWithProcessIdentifier_(app.pid)
    running.activateWithOptions_(NSApplicationActivateIgnoringOtherApps)
    await asyncio.sleep(0.5)
    nodes, _ = await accessibility.tree([frame.ref])
    text = next(n for n in nodes if n.kind == "T")
    assert text.bounds is not None
    middle = Point(text.bounds.x + text.bounds.width // 2, text.bounds.y + text.bounds.height // 2)
    hit = await accessibility.element_at(middle, _as_window(app, frame))
    assert hit is not None and hit[1].role == "text"
    inspector = AxInspector(accessibility)
    under = await inspector.element_at(middle)
    assert under is not None and (under.role, under.app) == ("text", "TextEdit")
    focused = await inspector.focused_element()
    assert focused is not None and focused.role == "text" and not focused.secure


@pytest.mark.anyio
async def test_set_value_replaces_the_text_and_press_uses_the_buttons_action(
    accessibility: AxAccessibility, textedit: Path
) -> None:
    _app, frame = await _window(accessibility, "com.apple.TextEdit", textedit.name)
    nodes, _ = await accessibility.tree([frame.ref])
    text = next(n for n in nodes if n.kind == "T")
    assert await accessibility.set_text(text.ref, GREETING)
    assert await accessibility.text(text.ref) == GREETING
    assert await accessibility.scroll_to(text.ref) in (True, False)  # asked, never an error
    # Minimize by the window's own button, then it is no longer showing.
    minimize = next(n for n in nodes if n.kind == "B" and n.name.casefold() == "minimize")
    assert await accessibility.press(minimize.ref)
    await asyncio.sleep(1.0)
    (again,) = await accessibility.read([frame.ref])
    assert again is not None and not again.showing


SECURE_APP = textwrap.dedent(
    """
    import sys
    from AppKit import (NSApplication, NSBackingStoreBuffered, NSButton, NSMakeRect,
                        NSSecureTextField, NSTimer, NSWindow)
    from Foundation import NSObject

    out = sys.argv[1]
    app = NSApplication.sharedApplication()
    app.setActivationPolicy_(0)
    window = NSWindow.alloc().initWithContentRect_styleMask_backing_defer_(
        NSMakeRect(200, 200, 360, 140), 15, NSBackingStoreBuffered, False)
    window.setTitle_("Deskhand secure field")
    field = NSSecureTextField.alloc().initWithFrame_(NSMakeRect(20, 80, 240, 24))
    field.setStringValue_(sys.argv[2])
    window.contentView().addSubview_(field)
    button = NSButton.alloc().initWithFrame_(NSMakeRect(20, 30, 100, 30))
    button.setTitle_("Sign in")
    window.contentView().addSubview_(button)
    window.makeKeyAndOrderFront_(None)

    class Writer(NSObject):
        def tick_(self, _timer):
            with open(out, "w") as f:
                f.write(field.stringValue())

    writer = Writer.alloc().init()
    NSTimer.scheduledTimerWithTimeInterval_target_selector_userInfo_repeats_(
        0.1, writer, "tick:", None, True)
    app.activateIgnoringOtherApps_(True)
    app.run()
    """
)


@pytest.fixture
def secure_window(tmp_path: Path) -> Iterator[Path]:
    out = tmp_path / "field.txt"
    script = tmp_path / "secure_app.py"
    script.write_text(SECURE_APP)
    process = subprocess.Popen([sys.executable, str(script), str(out), SECRET])
    yield out
    process.terminate()
    process.wait(10)


@pytest.mark.anyio
async def test_a_password_field_is_secure_never_read_and_never_set(
    accessibility: AxAccessibility, secure_window: Path
) -> None:
    deadline = time.monotonic() + 15
    frame: Node | None = None
    while frame is None and time.monotonic() < deadline:
        for app in await accessibility.apps():
            for candidate in await accessibility.frames(app):
                if candidate.name == "Deskhand secure field":
                    frame = candidate
        await asyncio.sleep(0.2)
    assert frame is not None
    nodes, _ = await accessibility.tree([frame.ref])
    field = next(n for n in nodes if n.secure)
    assert (field.kind, field.role, field.value) == ("T", "password text", None)
    assert field.element().secure
    assert all(SECRET not in (n.value or "") and SECRET not in n.name for n in nodes)
    assert not await accessibility.set_text(field.ref, "typed by someone else")
    assert await accessibility.text(field.ref) is None
    await asyncio.sleep(0.5)
    assert await asyncio.to_thread(secure_window.read_text) == SECRET
    assert any(n.kind == "B" and n.name == "Sign in" for n in nodes)

"""The quick entry shortcut and the person's-input watcher on a real Mac.

These run only on macOS (marked `macos`); both event taps need the terminal that runs them to
hold the Accessibility permission, and without it the hot key says so in words.
"""

from __future__ import annotations

import asyncio
import sys

import pytest

from desktop.hotkey import HotKeyError
from desktop.system.settings.shortcut import Shortcut

pytestmark = [
    pytest.mark.macos,
    pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS"),
    pytest.mark.anyio,
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_the_hot_key_takes_control_option_space_or_says_what_permission_it_needs() -> None:
    from desktop.hotkey.macos import NEEDS_ACCESSIBILITY, QuartzHotKey

    shortcut = Shortcut.parse("ctrl+alt+space")
    assert shortcut is not None and shortcut.shown() == "⌃⌥Space"
    hotkey = QuartzHotKey(shortcut, lambda: None)
    try:
        await hotkey.start()
    except HotKeyError as exc:
        assert str(exc) == NEEDS_ACCESSIBILITY
    finally:
        hotkey.stop()


async def test_the_watcher_reports_events_other_processes_post_and_not_our_own() -> None:
    import Quartz

    from tools.screen.hand import PersonInput
    from tools.screen.watch.macos import QuartzWatcher

    seen: list[PersonInput] = []
    watcher = QuartzWatcher(seen.append)
    watcher.start()
    try:
        await asyncio.sleep(0.5)
        # Our own posted move: carries this process's id, so it is not the person's.
        move = Quartz.CGEventCreateMouseEvent(
            None, Quartz.kCGEventMouseMoved, (200, 200), Quartz.kCGMouseButtonLeft
        )
        Quartz.CGEventPost(Quartz.kCGHIDEventTap, move)
        await asyncio.sleep(0.5)
        assert seen == []
    finally:
        watcher.stop()

"""The quick entry shortcut on a real X server: grabbed in every NumLock and CapsLock state,
pressed from another client, and refused clearly when another app holds it."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator

import pytest
from Xlib import XK, X
from Xlib import display as xdisplay
from Xlib import error as xerror

from desktop.hotkey import HotKeyError
from desktop.hotkey.owner import QuickEntryShortcut
from desktop.hotkey.x11 import X11HotKey
from desktop.system.settings.shortcut import Shortcut
from tests.support.x11 import Xvfb, gui_env, xvfb_missing

pytestmark = pytest.mark.anyio

SHORTCUT = Shortcut.parse("ctrl+alt+space")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def xvfb() -> Iterator[Xvfb]:
    missing = xvfb_missing()
    if missing:
        pytest.skip(missing)
    with Xvfb(800, 600) as server:
        yield server


def press(display: str, *keys: str) -> None:
    """Keys from another X client (xdotool, through XTest, as a keyboard would)."""
    subprocess.run(["xdotool", "key", *keys], env=gui_env(display), check=True, timeout=10)


async def test_pressing_the_shortcut_anywhere_calls_deskhand_with_or_without_numlock(
    xvfb: Xvfb,
) -> None:
    assert SHORTCUT is not None
    pressed = asyncio.Event()
    count = 0
    loop = asyncio.get_running_loop()

    def on_press() -> None:
        nonlocal count
        count += 1
        loop.call_soon_threadsafe(pressed.set)

    hotkey = X11HotKey(SHORTCUT, on_press, xvfb.display)
    await hotkey.start()
    try:
        press(xvfb.display, "ctrl+alt+space")
        await asyncio.wait_for(pressed.wait(), 5)
        pressed.clear()
        press(xvfb.display, "Num_Lock", "ctrl+alt+space", "Num_Lock")
        await asyncio.wait_for(pressed.wait(), 5)
        pressed.clear()
        press(xvfb.display, "Caps_Lock", "ctrl+alt+space", "Caps_Lock")
        await asyncio.wait_for(pressed.wait(), 5)
        press(xvfb.display, "ctrl+space", "alt+space")  # not the shortcut
        await asyncio.sleep(0.3)
        assert count == 3
    finally:
        hotkey.stop()


async def test_a_shortcut_another_app_holds_is_refused_in_words(xvfb: Xvfb) -> None:
    other = xdisplay.Display(xvfb.display)  # another app, holding Ctrl+Alt+Space
    keycode = other.keysym_to_keycode(XK.string_to_keysym("space"))
    # An earlier hotkey on this display lets go of the shortcut on its own thread, a moment
    # after stop(): the other app takes it once it is free.
    deadline = time.monotonic() + 5
    while True:
        taken = xerror.CatchError(xerror.BadAccess)
        other.screen().root.grab_key(
            keycode, X.ControlMask | X.Mod1Mask, False, X.GrabModeAsync, X.GrabModeAsync,
            onerror=taken,
        )  # fmt: skip
        other.sync()
        if taken.get_error() is None:
            break
        assert time.monotonic() < deadline, "Ctrl+Alt+Space never became free"
        await asyncio.sleep(0.05)
    try:
        assert SHORTCUT is not None
        with pytest.raises(HotKeyError) as refused:
            await X11HotKey(SHORTCUT, lambda: None, xvfb.display).start()
        assert str(refused.value) == (
            "Ctrl+Alt+Space is already used by another app, so it cannot open Deskhand's "
            "quick entry. Choose another shortcut in Settings → General, or free it in that app."
        )
        # What the app keeps for Settings and the window's notice.
        owner = QuickEntryShortcut(lambda s, f: X11HotKey(s, f, xvfb.display))
        await owner.hold("ctrl+alt+space")
        assert owner.held is None and "already used by another app" in owner.problem
        # Another shortcut is free.
        await owner.hold("ctrl+alt+k")
        assert owner.problem == "" and owner.held == Shortcut.parse("ctrl+alt+k")
        owner.release()
    finally:
        other.close()


def test_shortcuts_read_and_show_as_a_person_expects() -> None:
    shortcut = Shortcut.parse("Control+Option+Space")
    assert shortcut is not None and shortcut.stored() == "ctrl+alt+space"
    assert shortcut.shown("linux") == "Ctrl+Alt+Space"
    assert shortcut.shown("darwin") == "⌃⌥Space"
    assert Shortcut.parse("") is None  # off
    with pytest.raises(ValueError):
        Shortcut.parse("space")  # a bare key would be taken from every app


def test_a_wayland_session_says_why_there_is_no_shortcut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from desktop.hotkey import hotkey_for

    monkeypatch.setenv("DISPLAY", ":0")  # XWayland: a grab would fire only over X11 apps
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert SHORTCUT is not None
    with pytest.raises(HotKeyError, match="GlobalShortcuts portal"):
        hotkey_for(SHORTCUT, lambda: None)

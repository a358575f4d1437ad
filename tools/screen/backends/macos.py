"""The macOS backend: Quartz events for input (pyobjc), `screencapture` for pixels, Quartz's
window list for targets.

It lists the on-screen windows (Quartz's window list, front to back; titles need the Screen
Recording permission) and captures one window by its id (`screencapture -l`), which is how the
`tabs` tool's screenshot reads a browser window even where another lies over it.

Kept small: it runs only on a Mac, so its tests are marked `macos`. Global coordinates are
Quartz's: points, origin at the top-left of the main display. Input needs the Accessibility
permission and capture the Screen Recording permission; without them macOS drops the events and
returns a blank desktop, so `mac_permissions.status` asks Quartz first (through `granted`) and
says where to grant them.
Blocking: the driver calls it from its worker thread only.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import Quartz
from PIL import Image

from tools.screen.backends.base import MouseButton, ScrollDirection, WindowInfo
from tools.screen.backends.mac_windows import windows_from_cg
from tools.screen.displays import Display
from tools.screen.errors import BackendError
from tools.screen.geometry import Point, Rect
from tools.screen.scaling import resize
from tools.screen.windows import Window

__all__ = ["MacBackend", "granted", "request"]

CAPTURE_TIMEOUT = 10.0

# Virtual key codes (Carbon's kVK_* values) of the named keys and of the US layout's characters,
# for chords such as cmd+c; text itself is typed as Unicode, whatever the layout.
_KEYCODES: dict[str, int] = {
    "Return": 36, "Tab": 48, "space": 49, "BackSpace": 51, "Escape": 53, "Super_L": 55,
    "Shift_L": 56, "Caps_Lock": 57, "Alt_L": 58, "Control_L": 59, "Delete": 117, "Home": 115,
    "End": 119, "Prior": 116, "Next": 121, "Left": 123, "Right": 124, "Down": 125, "Up": 126,
    "Insert": 114, "Menu": 110, "Print": 105,
    "F1": 122, "F2": 120, "F3": 99, "F4": 118, "F5": 96, "F6": 97, "F7": 98, "F8": 100,
    "F9": 101, "F10": 109, "F11": 103, "F12": 111, "F13": 105, "F14": 107, "F15": 113,
    "F16": 106, "F17": 64, "F18": 79, "F19": 80, "F20": 90,
    "a": 0, "s": 1, "d": 2, "f": 3, "h": 4, "g": 5, "z": 6, "x": 7, "c": 8, "v": 9, "b": 11,
    "q": 12, "w": 13, "e": 14, "r": 15, "y": 16, "t": 17, "1": 18, "2": 19, "3": 20, "4": 21,
    "6": 22, "5": 23, "=": 24, "9": 25, "7": 26, "-": 27, "8": 28, "0": 29, "]": 30, "o": 31,
    "u": 32, "[": 33, "i": 34, "p": 35, "l": 37, "j": 38, "'": 39, "k": 40, ";": 41, "\\": 42,
    ",": 43, "/": 44, "n": 45, "m": 46, ".": 47, "`": 50,
}  # fmt: skip
_FLAGS = {
    "Shift_L": Quartz.kCGEventFlagMaskShift,
    "Control_L": Quartz.kCGEventFlagMaskControl,
    "Alt_L": Quartz.kCGEventFlagMaskAlternate,
    "Super_L": Quartz.kCGEventFlagMaskCommand,
}
_MOUSE = {
    "left": (Quartz.kCGEventLeftMouseDown, Quartz.kCGEventLeftMouseUp, Quartz.kCGMouseButtonLeft),
    "right": (
        Quartz.kCGEventRightMouseDown,
        Quartz.kCGEventRightMouseUp,
        Quartz.kCGMouseButtonRight,
    ),
    "middle": (
        Quartz.kCGEventOtherMouseDown,
        Quartz.kCGEventOtherMouseUp,
        Quartz.kCGMouseButtonCenter,
    ),
}
_DRAGGED = {
    "left": Quartz.kCGEventLeftMouseDragged,
    "right": Quartz.kCGEventRightMouseDragged,
    "middle": Quartz.kCGEventOtherMouseDragged,
}


_BUTTON_ORDER: tuple[MouseButton, ...] = ("left", "right", "middle")


def _plain(value: Any) -> Any:
    """A window list value as Python: numbers and strings as they are, a bounds dictionary
    as a dict (pyobjc hands over Cocoa objects)."""
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if hasattr(value, "items"):
        return {str(key): _plain(item) for key, item in value.items()}
    return str(value)


def _granted(check: str) -> bool:
    """Quartz's own answer to a permission question; True on a macOS too old to ask."""
    function = getattr(Quartz, check, None)
    return True if function is None else bool(function())


# Quartz's check and request for each permission the screen needs (macOS 10.15 and later).
_PERMISSIONS = {
    "accessibility": ("CGPreflightPostEventAccess", "CGRequestPostEventAccess"),
    "screen_recording": ("CGPreflightScreenCaptureAccess", "CGRequestScreenCaptureAccess"),
}


def granted(permission: str) -> bool:
    """Whether macOS lets this process post input events ("accessibility") or read the
    screen ("screen_recording"), as of its launch: a grant applies after a relaunch."""
    return _granted(_PERMISSIONS[permission][0])


def request(permission: str) -> None:
    """Ask macOS for a permission: it lists Deskhand in that pane of System Settings (and the
    first time shows its own prompt). Returns at once; the answer applies after a relaunch."""
    function = getattr(Quartz, _PERMISSIONS[permission][1], None)
    if function is not None:
        function()


class MacBackend:
    name = "macos"

    def __init__(self) -> None:
        self._flags = 0
        self._held: set[MouseButton] = set()

    def displays(self) -> list[Display]:
        error, ids, _count = Quartz.CGGetActiveDisplayList(32, None, None)
        if error:
            raise BackendError("The displays could not be listed.")
        found = []
        for display_id in ids:
            bounds = Quartz.CGDisplayBounds(display_id)
            mode = Quartz.CGDisplayCopyDisplayMode(display_id)
            width = Quartz.CGDisplayModeGetWidth(mode) if mode is not None else 0
            pixels = Quartz.CGDisplayModeGetPixelWidth(mode) if mode is not None else 0
            found.append(
                Display(
                    frame=Rect(
                        int(bounds.origin.x),
                        int(bounds.origin.y),
                        int(bounds.size.width),
                        int(bounds.size.height),
                    ),
                    scale=pixels / width if width and pixels else 1.0,
                    primary=bool(Quartz.CGDisplayIsMain(display_id)),
                    name=str(display_id),
                )
            )
        return found

    def capture(self, region: Rect, size: tuple[int, int]) -> Image.Image:
        rect = f"{region.x},{region.y},{region.width},{region.height}"
        return resize(self._screencapture(["-R", rect]), size)

    def capture_window(self, window_id: int) -> Image.Image:
        """One window's pixels (no shadow), even where other windows cover it."""
        return self._screencapture(["-o", "-l", str(int(window_id))])

    def _screencapture(self, options: list[str]) -> Image.Image:
        handle, name = tempfile.mkstemp(suffix=".png")
        os.close(handle)
        path = Path(name)
        try:
            done = subprocess.run(
                ["/usr/sbin/screencapture", "-x", "-t", "png", *options, str(path)],
                capture_output=True,
                timeout=CAPTURE_TIMEOUT,
                check=False,
            )
            if done.returncode != 0 or path.stat().st_size == 0:
                raise BackendError("The screen could not be captured.")
            with Image.open(path) as image:
                return image.convert("RGB")
        except (OSError, subprocess.SubprocessError) as exc:
            raise BackendError("The screen could not be captured.") from exc
        finally:
            path.unlink(missing_ok=True)

    def pointer(self) -> Point:
        location = Quartz.CGEventGetLocation(Quartz.CGEventCreate(None))
        return Point(int(location.x), int(location.y))

    def _post(self, event: Any) -> None:
        Quartz.CGEventSetFlags(event, self._flags)
        Quartz.CGEventPost(Quartz.kCGHIDEventTap, event)

    def move(self, point: Point) -> None:
        held = next((b for b in _BUTTON_ORDER if b in self._held), None)
        kind = _DRAGGED[held] if held else Quartz.kCGEventMouseMoved
        button = _MOUSE[held][2] if held else Quartz.kCGMouseButtonLeft
        self._post(Quartz.CGEventCreateMouseEvent(None, kind, (point.x, point.y), button))

    def button(self, button: MouseButton, down: bool, clicks: int = 1) -> None:
        press, release, number = _MOUSE[button]
        where = Quartz.CGEventGetLocation(Quartz.CGEventCreate(None))
        event = Quartz.CGEventCreateMouseEvent(None, press if down else release, where, number)
        Quartz.CGEventSetIntegerValueField(event, Quartz.kCGMouseEventClickState, clicks)
        self._post(event)
        if down:
            self._held.add(button)
        else:
            self._held.discard(button)

    def wheel(self, direction: ScrollDirection) -> None:
        dy = {"up": 1, "down": -1}.get(direction, 0)
        dx = {"left": 1, "right": -1}.get(direction, 0)
        event = Quartz.CGEventCreateScrollWheelEvent(None, Quartz.kCGScrollEventUnitLine, 2, dy, dx)
        self._post(event)

    def key(self, key: str, down: bool) -> None:
        flag = _FLAGS.get(key, 0)
        if flag:
            self._flags = self._flags | flag if down else self._flags & ~flag
        code = _KEYCODES.get(key)
        event = Quartz.CGEventCreateKeyboardEvent(None, code if code is not None else 0, down)
        if code is None:
            Quartz.CGEventKeyboardSetUnicodeString(event, len(key.encode("utf-16-le")) // 2, key)
        self._post(event)

    def type_char(self, char: str) -> None:
        named = {"\n": "Return", "\t": "Tab"}.get(char)
        if named is not None:
            self.key(named, True)
            self.key(named, False)
            return
        units = len(char.encode("utf-16-le")) // 2
        for down in (True, False):
            event = Quartz.CGEventCreateKeyboardEvent(None, 0, down)
            Quartz.CGEventKeyboardSetUnicodeString(event, units, char)
            self._post(event)

    def prepare_keyboard(self) -> None:
        """Nothing to do: text is typed as Unicode, whatever the layout."""

    def focused_window(self) -> WindowInfo | None:
        """The front-most normal window (layer 0): the one keys go to."""
        options = (
            Quartz.kCGWindowListOptionOnScreenOnly | Quartz.kCGWindowListExcludeDesktopElements
        )
        for info in Quartz.CGWindowListCopyWindowInfo(options, Quartz.kCGNullWindowID) or []:
            if info.get("kCGWindowLayer") != 0:
                continue
            bounds = info.get("kCGWindowBounds") or {}
            rect = Rect(
                int(bounds.get("X", 0)),
                int(bounds.get("Y", 0)),
                int(bounds.get("Width", 0)),
                int(bounds.get("Height", 0)),
            )
            pid = info.get("kCGWindowOwnerPID")
            return WindowInfo(rect=rect, pid=int(pid) if pid is not None else None)
        return None

    def windows(self) -> list[Window]:
        """The app windows on screen, front to back, for targets (`mac_windows`). Titles need
        the Screen Recording permission; without it they are empty."""
        from AppKit import NSWorkspace

        options = (
            Quartz.kCGWindowListOptionOnScreenOnly | Quartz.kCGWindowListExcludeDesktopElements
        )
        infos = [
            {str(key): _plain(value) for key, value in info.items()}
            for info in Quartz.CGWindowListCopyWindowInfo(options, Quartz.kCGNullWindowID) or []
        ]
        workspace = NSWorkspace.sharedWorkspace()
        bundle_ids = {
            int(app.processIdentifier()): str(app.bundleIdentifier() or "")
            for app in workspace.runningApplications()
        }
        front = workspace.frontmostApplication()
        front_pid = int(front.processIdentifier()) if front is not None else None
        return windows_from_cg(infos, bundle_ids, front_pid)

    def activate(self, window: WindowInfo) -> None:
        """Bring the window's app to the front: its front window takes the keys again."""
        if window.pid is None:
            return
        from AppKit import NSApplicationActivateIgnoringOtherApps, NSRunningApplication

        app = NSRunningApplication.runningApplicationWithProcessIdentifier_(window.pid)
        if app is not None:
            app.activateWithOptions_(NSApplicationActivateIgnoringOtherApps)

    def close(self) -> None:
        for button in list(self._held):
            self.button(button, False)

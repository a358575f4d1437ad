"""The top-level windows on the desktop, front to back, as a backend lists them.

A `Window` is what targets pick from and what `windows` shows: an id (the X11 window id), its
title and application (screen content: untrusted, shown quoted), the process it belongs to, where
it is (global logical units), and whether it has the keyboard focus. A backend that can list
windows implements `WindowLister`; `windows()` blocks, so it runs on the backend's worker thread.
A backend that can read one window's own pixels, even where others cover it, implements
`WindowCapturer` (macOS); elsewhere a window is captured by its area on the screen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from PIL import Image
from pydantic import ConfigDict

from tools.data import Data
from tools.screen.geometry import Point, Rect
from tools.screen.risk import quote

__all__ = [
    "Window",
    "WindowCapturer",
    "WindowLister",
    "describe_windows",
    "window_at",
    "windows_of_app",
]


class Window(Data):
    model_config = ConfigDict(frozen=True)

    id: int
    title: str = ""
    app: str = ""  # the application's class (X11 `WM_CLASS`), or its name
    instance: str = ""  # X11: the instance part of `WM_CLASS`
    pid: int | None = None
    rect: Rect
    focused: bool = False

    def names(self) -> tuple[str, ...]:
        """Every name the window's application answers to (for an app target)."""
        return tuple(name for name in (self.app, self.instance) if name)

    def line(self, index: int | None = None) -> str:
        """`window 4194311: "Inbox" — Mail #0 (pid 812) at (100, 80) 800×600, focused`"""
        rect = self.rect
        app = f" — {quote(self.app, 40)}" if self.app else ""
        number = f" #{index}" if index is not None else ""
        pid = f" (pid {self.pid})" if self.pid is not None else ""
        focus = ", focused" if self.focused else ""
        return (
            f'window {self.id}: "{quote(self.title, 80)}"{app}{number}{pid} '
            f"at ({rect.x}, {rect.y}) {rect.width}×{rect.height}{focus}"
        )


@runtime_checkable
class WindowLister(Protocol):
    def windows(self) -> list[Window]:
        """The visible top-level windows, front to back (blocks)."""
        ...


@runtime_checkable
class WindowCapturer(Protocol):
    def capture_window(self, window_id: int) -> Image.Image:
        """One window's own pixels (a listed window's id) at the display's resolution, as RGB,
        whatever lies over it (blocks)."""
        ...


def windows_of_app(windows: Sequence[Window], window: Window) -> list[Window]:
    """The windows of `window`'s application (same process, else same class), front to back:
    the order of the app's window indices."""
    if window.pid is not None:
        return [w for w in windows if w.pid == window.pid]
    return [w for w in windows if w.pid is None and w.app == window.app]


def window_at(windows: Iterable[Window], point: Point) -> Window | None:
    """The front-most window that holds `point`."""
    return next((w for w in windows if w.rect.contains(point)), None)


def describe_windows(windows: Sequence[Window]) -> str:
    """One line a window, front to back, each with its index within its application."""
    if not windows:
        return "No windows are open (besides Deskhand's own)."
    lines = ["Windows, front to back (#n is the window's index within its app):"]
    for window in windows:
        index = windows_of_app(windows, window).index(window)
        lines.append("- " + window.line(index))
    return "\n".join(lines)

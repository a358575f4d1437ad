"""The small interface each screen backend implements, and the status that says whether one can.

Backends: X11 (`x11.py`, XTest input and `mss` capture) and macOS (`macos.py`, Quartz events and
`screencapture`). Every method blocks: the driver calls them from its one worker thread, one at a
time, never on the event loop. Coordinates are global logical units (see `geometry`); keys are the
canonical names of `keys`. Which backend this computer runs is `factory`'s to say.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import ConfigDict

from tools.data import Data
from tools.screen.displays import Display
from tools.screen.errors import ScreenError
from tools.screen.geometry import Point, Rect

if TYPE_CHECKING:
    from PIL import Image  # the app's window imports this module; Pillow loads with the screen

__all__ = [
    "MouseButton",
    "ScreenBackend",
    "ScreenStatus",
    "ScreenUnavailable",
    "ScrollDirection",
    "WindowInfo",
]

MouseButton = Literal["left", "middle", "right"]
ScrollDirection = Literal["up", "down", "left", "right"]


class WindowInfo(Data):
    """The top-level window that receives the keyboard: where it is and whose it is."""

    model_config = ConfigDict(frozen=True)

    rect: Rect
    pid: int | None = None
    handle: int | None = None  # the window system's id for it (an X window), to focus it again


class ScreenBackend(Protocol):
    name: str  # "x11", "macos"

    def displays(self) -> list[Display]:
        """Every active display, in any order (the driver numbers them)."""
        ...

    def capture(self, region: Rect, size: tuple[int, int]) -> Image.Image:
        """The pixels of a global region, taken at the display's own resolution and resized to
        `size` (`scaling.resize`), as an RGB image. Resizing here, on the worker thread, lets a
        backend skip copies of the full-size capture."""
        ...

    def pointer(self) -> Point: ...

    def move(self, point: Point) -> None: ...

    def button(self, button: MouseButton, down: bool, clicks: int = 1) -> None:
        """Press or release a button at the pointer; `clicks` is which click of a multi-click
        this is (macOS reports it on the event; X11 apps count clicks by timing)."""
        ...

    def wheel(self, direction: ScrollDirection) -> None:
        """One notch of the scroll wheel at the pointer."""
        ...

    def key(self, key: str, down: bool) -> None:
        """Press or release one key (a canonical name, or a character's key)."""
        ...

    def type_char(self, char: str) -> None:
        """Type one character, whatever the layout: press and release (one keystroke)."""
        ...

    def prepare_keyboard(self) -> None:
        """Called before a run of keystrokes: re-read the keyboard layout if the backend needs it."""
        ...

    def focused_window(self) -> WindowInfo | None:
        """The window keys would go to now, or None when that cannot be told."""
        ...

    def activate(self, window: WindowInfo) -> None:
        """Give the keyboard focus back to a window `focused_window` reported (raising it), as
        far as the window system lets an app do that."""
        ...

    def close(self) -> None: ...


MISSING_LIBRARIES = "The libraries Deskhand uses to see and control the screen are missing."
REINSTALL = "Reinstall Deskhand (its screen libraries come with it)."


class ScreenStatus(Data):
    """Whether the screen can be seen and used, and if not, why and what to do (for a person)."""

    model_config = ConfigDict(frozen=True)

    available: bool
    backend: str = ""  # "x11", "macos", or "" when none works
    reason: str = ""
    fix: str = ""


class ScreenUnavailable(ScreenError):
    def __init__(self, status: ScreenStatus) -> None:
        super().__init__(f"{status.reason} {status.fix}".strip())
        self.status = status

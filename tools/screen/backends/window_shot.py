"""A screenshot of one app's window that another route located: the person's browser window.

The `tabs` tool knows a tab's window only as its browser describes it (bounds, title); here it
is found in the screen backend's window list (same app, same bounds; the title breaks a tie) and
captured: by the window itself where the backend can (macOS reads a window even behind others),
else by its area on the display. Where the backend lists no windows the area is captured as the
browser gave it.

Every failure is a `ShotRefused` carrying a fixed phrase for the model that says why and what to
do: the screen is off in Settings, macOS has not allowed Screen Recording, there is no display,
the window is not on screen. The capture hides the app's visualizer like every capture
(`events.around_capture`). Blocking work runs on the worker's thread or in a thread.
"""

from __future__ import annotations

import asyncio
import io
import logging
import sys
from collections.abc import Callable, Sequence

from PIL import Image
from pydantic import ConfigDict

from tools.base import ToolImage
from tools.data import Data
from tools.screen.backends.base import ScreenBackend, ScreenStatus
from tools.screen.backends.factory import open_backend, screen_status
from tools.screen.displays import Display
from tools.screen.errors import ScreenError
from tools.screen.events import CaptureHook, around_capture
from tools.screen.geometry import Rect
from tools.screen.scaling import ImageFrame, resize
from tools.screen.windows import Window, WindowCapturer
from tools.screen.worker import ScreenWorker

__all__ = [
    "SCREEN_OFF",
    "Shot",
    "ShotRefused",
    "WantedWindow",
    "WindowShooter",
    "capture_status",
    "find_window",
]

log = logging.getLogger(__name__)

BOUNDS_SLACK = 4  # points either way: window servers round and shadows differ
SCREEN_OFF = (
    "Screenshots are off: the person turned off Screen in Deskhand's Settings. Ask them to turn "
    "it on in Settings → Screen if they want Claude to see their browser."
)
NO_CAPTURE = "The browser window cannot be captured on this computer: {reason} {fix}"
NOT_ON_SCREEN = (
    "The browser window that shows that tab is not on the screen (it may be on another desktop "
    "or Space, or hidden). Ask the person to bring it into view, then try again."
)
OFF_DISPLAYS = (
    "The browser window that shows that tab is outside every display. Ask the person to move "
    "it onto a screen, then try again."
)
NO_WINDOW_LIST = (
    "This computer does not say which windows are on screen, so the browser window cannot be "
    "told apart from what may cover it; nothing was captured. Use the tab's text instead."
)
CAPTURE_FAILED = "The browser window could not be captured. Try again in a moment."


class ShotRefused(ScreenError):
    """Why no screenshot was taken, as a fixed phrase for the model."""

    def __init__(self, phrase: str) -> None:
        super().__init__(phrase)
        self.phrase = phrase


class WantedWindow(Data):
    """A window as the app that owns it describes it (screen content: data, never trusted)."""

    model_config = ConfigDict(frozen=True)

    apps: tuple[str, ...]  # names the window list may give its app, lower case ("safari")
    rect: Rect  # global logical units
    title: str = ""


class Shot(Data):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    image: ToolImage
    region: Rect  # what was captured, global logical units
    display: int
    covered: bool = False  # other windows lie over part of it (they show in the image)


def capture_status() -> ScreenStatus:
    """Whether pixels can be read here (blocks). On a Mac only Screen Recording matters: a
    screenshot posts no input, so it needs no Accessibility permission."""
    if sys.platform == "darwin":
        try:
            from tools.screen.backends import macos
        except ImportError:
            return screen_status()
        if not macos.granted("screen_recording"):
            return ScreenStatus(
                available=False,
                reason="macOS has not allowed Deskhand to record the screen.",
                fix="Ask the person to open System Settings → Privacy & Security → Screen "
                "Recording, turn Deskhand on, then restart Deskhand.",
            )
        return ScreenStatus(available=True, backend="macos")
    return screen_status()


def _capture_backend() -> ScreenBackend:
    if sys.platform == "darwin":
        from tools.screen.backends.macos import MacBackend

        return MacBackend()
    return open_backend()


def _close(a: Rect, b: Rect) -> bool:
    return all(abs(p - q) <= BOUNDS_SLACK for p, q in zip(a, b, strict=True))


def find_window(windows: Sequence[Window], wanted: WantedWindow) -> Window | None:
    """The front-most window of that app at those bounds; among several, the one whose title
    holds the wanted title."""
    of_app = [
        window
        for window in windows
        if any(app in name.casefold() for name in window.names() for app in wanted.apps)
    ]
    placed = [window for window in of_app if _close(window.rect, wanted.rect)]
    if wanted.title:
        titled = [w for w in placed if wanted.title.casefold() in w.title.casefold()]
        placed = titled or placed
    return placed[0] if placed else None


def _display_of(displays: Sequence[Display], rect: Rect) -> Display | None:
    """The display holding most of `rect`."""
    best, area = None, 0
    for display in displays:
        shared = display.frame.intersection(rect)
        if shared is not None and shared.area > area:
            best, area = display, shared.area
    return best


def _png(image: Image.Image) -> ToolImage:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return ToolImage(
        data=buffer.getvalue(), media_type="image/png", width=image.width, height=image.height
    )


class WindowShooter:
    """Screenshots of windows other tools located; one backend thread, opened on first use."""

    def __init__(
        self,
        *,
        enabled: Callable[[], bool] = lambda: True,
        worker: ScreenWorker | None = None,
        status: Callable[[], ScreenStatus] = capture_status,
        before_capture: CaptureHook | None = None,
        after_capture: CaptureHook | None = None,
    ) -> None:
        self._enabled = enabled
        self._worker = worker
        self._status = status
        self._before_capture = before_capture
        self._after_capture = after_capture

    @property
    def worker(self) -> ScreenWorker:
        if self._worker is None:
            self._worker = ScreenWorker(_capture_backend)
        return self._worker

    async def shoot(self, wanted: WantedWindow) -> Shot:
        """The window's pixels, or `ShotRefused` saying why not."""
        if not self._enabled():
            raise ShotRefused(SCREEN_OFF)
        status = await asyncio.to_thread(self._status)
        if not status.available:
            raise ShotRefused(NO_CAPTURE.format(reason=status.reason, fix=status.fix).strip())
        try:
            return await self._shoot(wanted)
        except ShotRefused:
            raise
        except ScreenError as exc:
            log.warning("a window screenshot failed", exc_info=True)
            raise ShotRefused(CAPTURE_FAILED) from exc

    async def _shoot(self, wanted: WantedWindow) -> Shot:
        worker = self.worker
        displays = await worker.displays()
        windows = await worker.windows()
        if windows is None:  # a capture of the area could show whatever covers it
            raise ShotRefused(NO_WINDOW_LIST)
        window = find_window(windows, wanted)
        if window is None:
            raise ShotRefused(NOT_ON_SCREEN)
        rect = window.rect
        display = _display_of(displays, rect)
        if display is None:
            raise ShotRefused(OFF_DISPLAYS)
        whole = await worker.run(lambda backend: isinstance(backend, WindowCapturer))
        region = rect if whole else (rect.intersection(display.frame) or rect)
        frame = ImageFrame.for_region(display.index, region)
        async with around_capture(self._before_capture, self._after_capture):
            if whole:
                window_id = window.id

                def capture(backend: ScreenBackend) -> Image.Image:
                    assert isinstance(backend, WindowCapturer)
                    return resize(backend.capture_window(window_id), frame.size)

                pixels = await worker.run(capture)
            else:
                pixels = await worker.run(lambda backend: backend.capture(frame.region, frame.size))
        covered = False
        if not whole:
            in_front = windows[: windows.index(window)]
            covered = any(other.rect.intersection(region) is not None for other in in_front)
        image = await asyncio.to_thread(_png, pixels)
        return Shot(image=image, region=region, display=display.index, covered=covered)

    async def close(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            await worker.close()

"""The screen toolset's link to the screen: one worker thread with the backend on it, the
displays and the model's coordinates, and the checks a call passes before it acts.

`ScreenLink` is a part of `ScreenComputer` (`driver.py`), which sets the state it reads in its
constructor. Each input event is its own call on the worker thread (`_run`), so a Stop takes
effect between any two events; releases are queued at once (`_finally`), so none is skipped.
The checks fail closed: a point on one of the app's own windows, the keyboard focus in one, or
typing into a secure field is refused with a fixed phrase; an accessibility answer that fails
or takes too long counts as unknown.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from PIL import Image

from tools.screen import errors
from tools.screen.a11y.accessible import Node
from tools.screen.a11y.atspi.tables import kind_of
from tools.screen.a11y.effect import Watch, Watcher, not_enabled
from tools.screen.a11y.elements import Element, Inspector
from tools.screen.backends.base import MouseButton, ScreenBackend, WindowInfo
from tools.screen.displays import Display, display_at, number_displays, primary_display, to_local
from tools.screen.errors import refusal
from tools.screen.events import CaptureHook, ScreenEvent, ScreenEventSink, around_capture
from tools.screen.geometry import Point, Rect
from tools.screen.hand import Hand
from tools.screen.keys import UnknownKey, is_text_entry, parse_modifiers, parse_sequence
from tools.screen.risk import KEYBOARD_MEMBERS, POINTER_MEMBERS
from tools.screen.scaling import ImageFrame
from tools.toolset_driver import ToolsetDriver

log = logging.getLogger(__name__)

__all__ = ["BackendFactory", "OwnWindows", "ScreenLink"]

T = TypeVar("T")
OwnWindows = Callable[[], Iterable[Rect | tuple[int, int, int, int]]]
BackendFactory = Callable[[], ScreenBackend]

CLICK_GAP = 0.04  # seconds between the clicks of a double or triple click
FOCUS_MATCH = 0.75  # overlap at which the focused window counts as one of the app's own
INSPECT_LIMIT = 1.5  # seconds accessibility may take to say what a call affects
LEFT_CLICKS = frozenset({"left_click", "double_click", "triple_click"})


class ScreenLink:
    """The worker thread, the backend, the displays and the checks of one screen toolset."""

    # Set by the toolset's constructor.
    _open_backend: BackendFactory
    _own_windows: OwnWindows | None
    _own_pids: frozenset[int]
    _inspector: Inspector | None
    on_event: ScreenEventSink | None
    before_capture: CaptureHook | None
    after_capture: CaptureHook | None
    _chosen: int | None
    _worker: ThreadPoolExecutor
    _backend: ScreenBackend | None
    _displays: list[Display]
    _frames: dict[int, ImageFrame]
    _pointer: Point | None
    _held: set[MouseButton]
    _hand: Hand | None  # who has the controls: input waits while the person has them

    @property
    def current_display(self) -> int | None:
        """The index of the display screenshots show, once the displays are known."""
        display = self._current(self._displays) if self._displays else None
        return display.index if display is not None else self._chosen

    # --- the worker thread ---------------------------------------------------------------------

    def _submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Queue one blocking call on the worker; it runs even if the caller stops waiting."""
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._worker, functools.partial(fn, *args))

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """One blocking call (one input event). Once queued it runs to its end: a Stop takes
        effect here, between this event and the next."""
        return await asyncio.shield(self._submit(fn, *args))

    async def _before_input(self) -> None:
        """The person's hand wins: wait while they have the controls (`hand.py`)."""
        if self._hand is not None:
            await self._hand.before_input()

    async def _input(self, fn: Callable[..., T], *args: Any) -> T:
        """One input event, once the person's hand has let go of the controls."""
        await self._before_input()
        return await self._run(fn, *args)

    async def _finally(self, calls: Sequence[Callable[[], object]]) -> None:
        """Cleanup events (releases): all queued at once, so a second Stop cannot skip one."""
        futures = [self._submit(call) for call in calls]
        outcomes = await asyncio.shield(asyncio.gather(*futures, return_exceptions=True))
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                log.warning("A key or button could not be released: %s", outcome)

    async def _ready(self) -> ScreenBackend:
        if self._backend is None:
            self._backend = await self._run(self._open_backend)
        return self._backend

    async def _drop_backend(self) -> None:
        """After a failure the connection may be broken: the next call opens a fresh one."""
        backend, self._backend = self._backend, None
        self._held.clear()
        if backend is not None:
            with contextlib.suppress(Exception):
                await self._run(backend.close)

    # --- displays and coordinates --------------------------------------------------------------

    async def _refresh_displays(self) -> list[Display]:
        backend = await self._ready()
        self._displays = number_displays(await self._run(backend.displays))
        return self._displays

    def _current(self, displays: Sequence[Display]) -> Display | None:
        if self._chosen is not None and 0 <= self._chosen < len(displays):
            return displays[self._chosen]
        return primary_display(displays)

    async def _frame(self) -> ImageFrame:
        """The geometry the model's coordinates refer to: the latest screenshot of the current
        display, which must still match the display as it is now."""
        displays = await self._refresh_displays()
        display = self._current(displays)
        if display is None:
            raise refusal(errors.DISPLAY_CHANGED)
        frame = self._frames.get(display.index)
        if frame is None:
            frame = self._frames[display.index] = ImageFrame.for_region(
                display.index, display.frame
            )
        elif frame.region != display.frame:
            del self._frames[display.index]
            raise refusal(errors.DISPLAY_CHANGED)
        return frame

    @staticmethod
    def _target(frame: ImageFrame, coordinate: Sequence[int]) -> Point:
        point = Point(int(coordinate[0]), int(coordinate[1]))
        if not frame.holds(point):
            raise refusal(errors.OUTSIDE_SCREENSHOT)
        return frame.to_global(point)

    def _echo(self, point: Point) -> str:
        """The line a pointer action answers with: where exactly it acted."""
        display = display_at(self._displays, point)
        if display is None:
            return f"Global ({point.x}, {point.y})."
        local = to_local(display, point)
        return (
            f"Display {display.index}, local ({local.x}, {local.y}), global ({point.x}, {point.y})."
        )

    # --- checks --------------------------------------------------------------------------------

    def _own_rects(self) -> list[Rect]:
        if self._own_windows is None:
            return []
        try:
            return [Rect(*(int(v) for v in rect)) for rect in self._own_windows()]
        except Exception as exc:
            # Not knowing where the app's windows are, nothing can be ruled out: fail closed.
            log.exception("The own-windows callback failed")
            raise refusal(errors.UNEXPECTED) from exc

    def _check_point(self, point: Point) -> None:
        if any(rect.contains(point) for rect in self._own_rects()):
            raise refusal(errors.OWN_WINDOW)

    def _is_own(self, window: WindowInfo | None) -> bool:
        if window is None:
            return False
        if window.pid is not None and window.pid in self._own_pids:
            return True
        return any(window.rect.overlap(rect) >= FOCUS_MATCH for rect in self._own_rects())

    async def _check_focus(self, backend: ScreenBackend) -> None:
        if self._is_own(await self._run(backend.focused_window)):
            raise refusal(errors.OWN_WINDOW_FOCUSED)

    async def _inspect(self, ask: Awaitable[Element | None]) -> Element | None:
        """An inspector's answer, or None (unknown) when it fails or takes too long."""
        return await _in_time(ask, "The accessibility inspector")

    async def _check_secure(self) -> None:
        if self._inspector is None:
            return
        focused = await self._inspect(self._inspector.focused_element())
        if focused is not None and focused.secure:
            raise refusal(errors.SECURE_FIELD)

    # --- effects: the window acted on, before and after ----------------------------------------

    @staticmethod
    def _refuse_disabled(target: Node) -> None:
        """A disabled control takes no click: refused, nothing sent, and said so."""
        refused = not_enabled(target)
        ToolsetDriver.report_outcome(refused)
        raise refusal(refused.note)

    async def _watch_point(self, point: Point) -> Watch | None:
        """The window under `point` looked at before a click, when accessibility can tell."""
        if not isinstance(self._inspector, Watcher):
            return None
        return await self._watched(self._inspector.watch_at(point))

    async def _watch_keys(self) -> Watch | None:
        """The window with the keyboard focus looked at before keys go to it."""
        if not isinstance(self._inspector, Watcher):
            return None
        return await self._watched(self._inspector.watch_focused())

    async def _watched(self, ask: Awaitable[Watch | None]) -> Watch | None:
        return await _in_time(ask, "Looking at the target window")

    @staticmethod
    async def _report_effect(watch: Watch | None) -> None:
        """What the call changed in the window it acted on: its `Effect:` lines, which the
        toolset puts in the result (`ScreenComputer.tool_result`)."""
        if watch is not None:
            ToolsetDriver.report_outcome(await watch.outcome())

    def _known_point(self, params: dict[str, Any]) -> tuple[Point | None, int | None]:
        """Where a call will act, from what is already known (no backend call): the latest
        screenshot's frame for a coordinate, our last pointer position without one."""
        current = self._current(self._displays) if self._displays else None
        index = current.index if current is not None else self._chosen
        frame = self._frames.get(index) if index is not None else None
        coordinate = params.get("coordinate")
        if coordinate is None:
            return self._pointer, index
        if frame is None or not isinstance(coordinate, list | tuple) or len(coordinate) != 2:
            return None, index
        point = Point(int(coordinate[0]), int(coordinate[1]))
        return (frame.to_global(point) if frame.holds(point) else None), index

    async def _affected(
        self, member: str, params: dict[str, Any]
    ) -> tuple[Element | None, int | None]:
        """The element a call affects, if accessibility can tell, and the display it acts on."""
        if member in KEYBOARD_MEMBERS:
            element = None
            if self._inspector is not None:
                element = await self._inspect(self._inspector.focused_element())
            return element, None
        if member not in POINTER_MEMBERS:
            return None, self.current_display
        if member == "left_click_drag":
            params = {**params, "coordinate": params.get("start_coordinate")}
        point, index = self._known_point(params)
        if point is None or self._inspector is None:
            return None, index
        return await self._inspect(self._inspector.element_at(point)), index

    async def _refuse_early(self, member: str, params: dict[str, Any]) -> None:
        if member in POINTER_MEMBERS:
            points = [self._known_point(params)[0]]
            if member == "left_click_drag":
                points.append(self._known_point({"coordinate": params.get("start_coordinate")})[0])
            for point in points:
                if point is not None:
                    self._check_point(point)
            if member in LEFT_CLICKS and points[0] is not None and self._inspector is not None:
                # A disabled control would take no click: refused before anyone is asked.
                under = await self._inspect(self._inspector.element_at(points[0]))
                if (
                    under is not None
                    and not under.enabled
                    and kind_of(under.role) not in ("G", "X")
                ):
                    self._refuse_disabled(Node(ref=None, role=under.role, name=under.name))
        elif member == "type":
            await self._check_secure()
        elif member in ("key", "hold_key"):
            with contextlib.suppress(UnknownKey):
                chords = parse_sequence(str(params.get("text", "")))
                if any(is_text_entry(chord) for chord in chords):
                    await self._check_secure()

    async def _capture(
        self, backend: ScreenBackend, region: Rect, size: tuple[int, int]
    ) -> Image.Image:
        """The pixels of `region`, with the app's overlay taken out of the way while they are read."""
        async with around_capture(self.before_capture, self.after_capture):
            return await self._run(backend.capture, region, size)

    def _emit(self, event: ScreenEvent) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(event)
        except Exception:
            log.exception("The screen event callback failed")

    # --- input helpers -------------------------------------------------------------------------

    async def _aim(
        self, coordinate: Sequence[int] | None
    ) -> tuple[ScreenBackend, Point, int | None]:
        """The backend, the global point a pointer action acts on, and its display's index."""
        backend = await self._ready()
        if coordinate is None:
            await self._refresh_displays()
            point = self._pointer = await self._run(backend.pointer)
            display = display_at(self._displays, point)
            index = display.index if display is not None else None
        else:
            frame = await self._frame()
            point, index = self._target(frame, coordinate), frame.display
        self._check_point(point)
        return backend, point, index

    @contextlib.asynccontextmanager
    async def _holding(self, backend: ScreenBackend, keys: Sequence[str]) -> AsyncIterator[None]:
        """Keys pressed in order for the block, released in reverse however it ends."""
        pressed: list[str] = []
        try:
            for key in keys:
                await self._before_input()
                pressed.append(key)  # queued now, so it is released even if we are cancelled
                await self._run(backend.key, key, True)
            yield
        finally:
            await self._finally(
                [functools.partial(backend.key, key, False) for key in reversed(pressed)]
            )

    async def _move(self, backend: ScreenBackend, point: Point) -> None:
        await self._input(backend.move, point)
        self._pointer = point

    async def _click(
        self,
        coordinate: list[int] | None,
        held: str | None,
        *,
        button: MouseButton = "left",
        count: int = 1,
    ) -> str:
        modifiers = parse_modifiers(held)
        backend, point, index = await self._aim(coordinate)
        watch = await self._watch_point(point)
        target = watch.target if watch is not None else None
        if button == "left" and target is not None and not target.enabled:
            if target.kind not in ("G", "X"):  # a control: asked again now, as it is now
                self._refuse_disabled(target)
        self._emit(
            ScreenEvent(kind="click", display=index, points=(point,), button=button, count=count)
        )
        async with self._holding(backend, modifiers):
            if coordinate is not None:
                await self._move(backend, point)
            for click in range(1, count + 1):
                if click > 1:
                    # A person's double click has a gap; some toolkits do not count one without.
                    await asyncio.sleep(CLICK_GAP)
                try:
                    await self._input(backend.button, button, True, click)
                finally:
                    # However the press ended, the button goes up again.
                    await self._finally([functools.partial(backend.button, button, False, click)])
        await self._report_effect(watch)
        return self._echo(point)


async def _in_time(ask: Awaitable[T | None], what: str) -> T | None:
    """What accessibility answers, or None (unknown) when it fails or takes too long: a slow
    or broken inspector never holds up nor breaks a call."""
    try:
        async with asyncio.timeout(INSPECT_LIMIT):
            return await ask
    except TimeoutError:
        log.warning("%s took too long", what)
    except Exception:
        log.exception("%s failed", what)
    return None

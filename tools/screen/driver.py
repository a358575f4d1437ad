"""`ScreenComputer`: the SDK's computer toolset (`computer_toolset_20260801`) on this computer's screen.

How the app uses it (the SDK validates inputs, calls `confirm` and renders results; this class
implements the 17 members on a backend from `backend.py`):

    screen = ScreenComputer(
        confirm=gate_confirm,            # the app's gate; required while type/key/hold_key are on
        own_windows=window_rects,        # () -> rectangles of Deskhand's own windows, global
        inspector=inspector,             # accessibility: AtspiInspector (Linux), AxInspector (macOS)
        on_event=overlay.show,           # plain `ScreenEvent`s to draw
        before_capture=overlay.hide,     # the overlay out of the way of the pixels
        after_capture=overlay.unhide,
    )
    tools = [screen.to_dict(), ...]      # or pass `screen` itself in tools=[...]
    result = await screen.tool_result(use)   # use.toolset_name == "computer"
    context_text = await screen.displays_text()   # the displays, for the model's context
    await screen.close()

`await judge(use)` gives the gate (risk, reason, summary) for a call before it runs, judged by
the element it affects (see `risk.py`); the app describes each call once with it. When the app's `confirm` put the
question to the person it calls `person_answered()`: the driver then lets the focus that the
question took settle, and gives keys back their window, before it acts. Before the app's
`confirm` is even asked, the driver refuses, with a `ToolError` the model reads, a call that
would land on one of the app's own windows or type into a secure field, so the person is never
asked about those; the same checks run again when the call executes, with the screen as it is
then.

Coordinates the model sends are pixels of the latest screenshot of the current display (the
primary one until `select_display`); they are mapped exactly to global logical points
(`scaling.py`), and every pointer action answers with the display index, local point and global
point it used. Each input event is its own call on the backend's worker thread, so Stop
(cancelling the task that awaits `tool_result`) takes effect between any two input events;
buttons and keys the call pressed are released however it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import os
import unicodedata
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Sequence,
)
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

from anthropic.tools import ToolError, ToolsetUsageError
from anthropic.tools.computer import (
    BetaAsyncAbstractComputerToolset20260801,
    BetaAsyncComputerConfirmCallable,
    BetaComputerConfirmContext,
    BetaComputerCursorPositionResult,
    BetaComputerMemberResult,
    BetaScreenshotResult,
    BetaToolConfigs,
    BetaToolsetCallContext,
)
from anthropic.types.beta import (
    BetaComputerCursorPositionInput,
    BetaComputerDoubleClickInput,
    BetaComputerHoldKeyInput,
    BetaComputerKeyInput,
    BetaComputerLeftClickDragInput,
    BetaComputerLeftClickInput,
    BetaComputerLeftMouseDownInput,
    BetaComputerLeftMouseUpInput,
    BetaComputerMemberInput,
    BetaComputerMemberName,
    BetaComputerMiddleClickInput,
    BetaComputerMouseMoveInput,
    BetaComputerRightClickInput,
    BetaComputerScreenshotInput,
    BetaComputerScrollInput,
    BetaComputerToolsetConfigsParam,
    BetaComputerTripleClickInput,
    BetaComputerTypeInput,
    BetaComputerWaitInput,
    BetaComputerZoomInput,
    BetaResponseComputerToolUseBlock,
)
from PIL import Image

from tools.screen import errors
from tools.screen.a11y.elements import Element, Inspector
from tools.screen.backends.base import (
    MouseButton,
    ScreenBackend,
    ScreenUnavailable,
    WindowInfo,
    open_backend,
)
from tools.screen.displays import (
    Display,
    describe_displays,
    display_at,
    number_displays,
    primary_display,
    to_local,
)
from tools.screen.errors import BackendError, NoKeycode, refusal
from tools.screen.events import CaptureHook, ScreenEvent, ScreenEventSink, around_capture
from tools.screen.geometry import Point, Rect
from tools.screen.keys import (
    UnknownKey,
    is_text_entry,
    parse_chord,
    parse_modifiers,
    parse_sequence,
)
from tools.screen.risk import KEYBOARD_MEMBERS, POINTER_MEMBERS, screen_action, screen_risk
from tools.screen.risk import screen_summary as _summary
from tools.screen.scaling import ZOOM_UPSCALE, ImageFrame, encode_image, fit_size
from tools.toolset_driver import Judged, Progress, ToolsetDriver, input_of, progress_scope

log = logging.getLogger(__name__)

__all__ = ["CaptureHook", "OwnWindows", "Progress", "ScreenComputer", "progress_scope"]

T = TypeVar("T")
OwnWindows = Callable[[], Iterable[Rect | tuple[int, int, int, int]]]
BackendFactory = Callable[[], ScreenBackend]

MAX_DURATION = 30
MAX_REPEAT = 100
MAX_SCROLL = 30
MAX_TEXT = 10_000
DRAG_STEPS = 12  # drag-and-drop code listens for moves, not only for the end point
DRAG_STEP_PAUSE = 0.01
CLICK_GAP = 0.04  # seconds between the clicks of a double or triple click
FOCUS_MATCH = 0.75  # overlap at which the focused window counts as one of the app's own
FOCUS_SETTLE = 0.05  # seconds for an app to move its focus after a tab or line break
INSPECT_LIMIT = 1.5  # seconds accessibility may take to say what a call affects
# After the person answered a question: the focus is watched until it has stayed put for a
# while, within a limit.
FOCUS_QUIET = 0.15
FOCUS_LIMIT = 1.5


def _typeable(text: str) -> str:
    """`text` with line breaks as "\\n", or a refusal if it holds other control characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if any(unicodedata.category(ch) == "Cc" and ch not in "\n\t" for ch in text):
        raise refusal(errors.CONTROL_CHARACTERS)
    if len(text) > MAX_TEXT:
        raise refusal(errors.TEXT_TOO_LONG)
    return text


class ScreenComputer(ToolsetDriver, BetaAsyncAbstractComputerToolset20260801):
    """Every member of the computer toolset, on the displays of this computer."""

    tool_use_union = BetaResponseComputerToolUseBlock
    confirm_context = BetaComputerConfirmContext
    title = "Screen"

    def __init__(
        self,
        *,
        confirm: BetaAsyncComputerConfirmCallable | None = None,
        backend: BackendFactory | None = None,
        own_windows: OwnWindows | None = None,
        own_pids: Collection[int] | None = None,
        inspector: Inspector | None = None,
        on_event: ScreenEventSink | None = None,
        before_capture: CaptureHook | None = None,
        after_capture: CaptureHook | None = None,
        progress: Progress | None = None,
        display: int | None = None,
        configs: BetaComputerToolsetConfigsParam | None = None,
        tool_configs: BetaToolConfigs | None = None,
    ) -> None:
        """A toolset on the screen. Nothing connects to the display until the first call.

        - `confirm`: the SDK's confirm callable (the app's gate), asked before every call.
        - `backend`: opens the backend (blocking; run on the worker thread); `open_backend` by
          default, which picks X11 or macOS and fails with a status the model reads as a fixed
          phrase.
        - `own_windows`: the app's own windows as global rectangles, (x, y, width, height) in
          the desktop's logical units; called on the event loop's thread before every action.
          A click, drag or scroll landing in one, and keys while one has the focus, are refused.
        - `own_pids`: processes whose windows are the app's own (this process by default).
        - `inspector`: accessibility answers for the gate (see `elements.py`).
        - `on_event`: called with a `ScreenEvent` as each action starts (see `events.py`).
        - `before_capture` / `after_capture`: called on the event loop's thread around every
          capture (screenshot, zoom), so the app can take its overlay out of the pixels;
          `before_capture` may be async, and the capture waits for it. `after_capture` runs
          however the capture ends.
        - `progress`: called with one line ("Screen: click at (640, 360)") as each call starts.
        - `display`: the index of the display screenshots show (the primary one by default).
        """
        self._app_confirm = confirm
        self._open_backend: BackendFactory = backend or open_backend
        self._own_windows = own_windows
        self._own_pids = frozenset(own_pids if own_pids is not None else (os.getpid(),))
        self._inspector = inspector
        self.on_event = on_event
        self.before_capture = before_capture
        self.after_capture = after_capture
        self.progress = progress
        self._chosen = display
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deskhand-screen")
        self._backend: ScreenBackend | None = None
        self._displays: list[Display] = []
        self._frames: dict[int, ImageFrame] = {}
        self._pointer: Point | None = None  # where our last action left the pointer
        self._held: set[MouseButton] = set()  # buttons left_mouse_down pressed
        self._asked = False  # the app asked the person about the call being confirmed
        super().__init__(
            configs=configs,
            confirm=self._checked_confirm if confirm is not None else None,
            tool_configs=tool_configs,
        )

    # --- what the app reads --------------------------------------------------------------------

    @property
    def confirm_hook(self) -> BetaAsyncComputerConfirmCallable | None:
        return self._app_confirm

    @property
    def is_closed(self) -> bool:
        return self._toolset_closed

    @property
    def current_display(self) -> int | None:
        """The index of the display screenshots show, once the displays are known."""
        display = self._current(self._displays) if self._displays else None
        return display.index if display is not None else self._chosen

    async def judged(self, context: BetaComputerConfirmContext) -> Judged:
        """The call `confirm` is asked about, judged by the element it affects."""
        params = dict(input_of(context))
        element, display = await self._affected(context.member, params)
        risk, reason = screen_risk(
            context.member, params, element=element, button_held=bool(self._held)
        )
        summary = _summary(context.member, params, element=element, display=display)
        return Judged(risk=str(risk), reason=reason, summary=summary)

    async def displays(self) -> list[Display]:
        """The displays, indexed in the documented order (`displays.py`)."""
        return await self._refresh_displays()

    async def displays_text(self) -> str:
        """A few lines about the displays for the model's context."""
        displays = await self._refresh_displays()
        current = self._current(displays)
        frame = self._frames.get(current.index) if current is not None else None
        size = frame.size if frame is not None else None
        if current is not None and size is None:
            size = ImageFrame.for_region(current.index, current.frame).size
        return describe_displays(displays, current.index if current else None, size)

    async def select_display(self, index: int) -> Display:
        """Show display `index` in the screenshots from now on (a `ToolError` if there is none)."""
        displays = await self._refresh_displays()
        if not 0 <= index < len(displays):
            raise refusal(errors.UNKNOWN_DISPLAY)
        self._chosen = index
        return displays[index]

    async def close(self) -> None:
        """Retire the toolset; release what a call left pressed and disconnect from the display."""
        await super().close()
        backend, self._backend = self._backend, None
        if backend is not None:
            calls: list[Callable[[], object]] = [
                functools.partial(backend.button, button, False) for button in self._held
            ]
            self._held.clear()
            for release in [*calls, backend.close]:
                try:
                    await self._run(release)
                except Exception:
                    log.exception("Could not close the screen backend cleanly")
        self._worker.shutdown(wait=False)

    # --- the SDK's hooks -----------------------------------------------------------------------

    async def _checked_confirm(self, context: BetaComputerConfirmContext) -> bool:
        """Refuse what no answer could allow, then ask the app's gate.

        Answering moves the keyboard focus: the person clicks in the app's question, and the
        app (or the window manager) gives the focus to the app's window a moment after the
        question closes. So after an answer, input waits until the focus stays put, and keys
        get back the window that had the focus when the call came.
        """
        await self._refuse_early(context.member, context.input.to_dict())
        keys_went_to = await self._focus_before(context.member)
        assert self._app_confirm is not None
        self._asked = False
        answer = self._app_confirm(context)
        if inspect.isawaitable(answer):
            answer = await answer
        asked, self._asked = self._asked, False
        is_input = context.member in KEYBOARD_MEMBERS or context.member in POINTER_MEMBERS
        if answer is True and is_input and (asked or keys_went_to is not None):
            await self._settle_focus(keys_went_to, asked=asked)
        return answer is True

    def person_answered(self) -> None:
        """Called by the app, inside its `confirm`, when it asked the person about the call
        (its question, in its own window, has had the keyboard focus)."""
        self._asked = True

    async def _focus_before(self, member: str) -> WindowInfo | None:
        """For a keyboard call: the window keys go to now, unless it is one of the app's own."""
        if member not in KEYBOARD_MEMBERS:
            return None
        try:
            backend = await self._ready()
            window = await self._run(backend.focused_window)
        except Exception:  # the call itself will fail, and say why
            return None
        return None if window is None or self._is_own(window) else window

    async def _settle_focus(self, keys_went_to: WindowInfo | None, *, asked: bool) -> None:
        """After an answer: wait until the focus has stayed put for `FOCUS_QUIET` (at most
        `FOCUS_LIMIT`), giving it back to `keys_went_to` whenever the app's own window has it.
        If it cannot be given back, keys are refused as usual when they would go to the app."""
        backend = self._backend
        if backend is None:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (FOCUS_LIMIT if asked else 0.0)
        seen: WindowInfo | None = None
        quiet_since = loop.time()
        while True:
            focus = await self._run(backend.focused_window)
            if keys_went_to is not None and self._is_own(focus):
                log.info("Giving the keyboard focus back to the window the keys are meant for")
                await self._run(backend.activate, keys_went_to)
                seen, quiet_since = None, loop.time()
            elif focus != seen:
                seen, quiet_since = focus, loop.time()
            elif loop.time() - quiet_since >= FOCUS_QUIET:
                return
            if not asked or loop.time() >= deadline:
                return
            await asyncio.sleep(FOCUS_SETTLE)

    async def execute(
        self,
        context: BetaToolsetCallContext,
        name: BetaComputerMemberName,
        input: BetaComputerMemberInput,
    ) -> BetaComputerMemberResult:
        self.report_progress(lambda: screen_action(name, input.to_dict()))
        try:
            return await super().execute(context, name, input)
        except (ToolError, ToolsetUsageError):
            raise
        except UnknownKey as exc:
            raise refusal(errors.UNKNOWN_KEY) from exc
        except NoKeycode as exc:
            raise refusal(errors.NO_KEYCODE) from exc
        except ScreenUnavailable as exc:
            raise refusal(errors.UNAVAILABLE) from exc
        except BackendError as exc:
            log.warning("Screen backend failed in %s: %s", name, exc)
            await self._drop_backend()
            raise refusal(errors.UNEXPECTED) from exc
        except Exception as exc:
            log.exception("Unexpected error in screen member %s", name)
            await self._drop_backend()
            raise refusal(errors.UNEXPECTED) from exc

    # --- the worker thread ---------------------------------------------------------------------

    def _submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Queue one blocking call on the worker; it runs even if the caller stops waiting."""
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._worker, functools.partial(fn, *args))

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """One blocking call (one input event). Once queued it runs to its end: a Stop takes
        effect here, between this event and the next."""
        return await asyncio.shield(self._submit(fn, *args))

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
        try:
            async with asyncio.timeout(INSPECT_LIMIT):
                return await ask
        except TimeoutError:
            log.warning("The accessibility inspector took too long")
            return None
        except Exception:
            log.exception("The accessibility inspector failed")
            return None

    async def _check_secure(self) -> None:
        if self._inspector is None:
            return
        focused = await self._inspect(self._inspector.focused_element())
        if focused is not None and focused.secure:
            raise refusal(errors.SECURE_FIELD)

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
                pressed.append(key)  # queued now, so it is released even if we are cancelled
                await self._run(backend.key, key, True)
            yield
        finally:
            await self._finally(
                [functools.partial(backend.key, key, False) for key in reversed(pressed)]
            )

    async def _move(self, backend: ScreenBackend, point: Point) -> None:
        await self._run(backend.move, point)
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
                    await self._run(backend.button, button, True, click)
                finally:
                    # However the press ended, the button goes up again.
                    await self._finally([functools.partial(backend.button, button, False, click)])
        return self._echo(point)

    # --- members: looking ----------------------------------------------------------------------

    async def screenshot(
        self, context: BetaToolsetCallContext, input: BetaComputerScreenshotInput
    ) -> BetaScreenshotResult:
        backend = await self._ready()
        displays = await self._refresh_displays()
        display = self._current(displays)
        if display is None:
            raise refusal(errors.DISPLAY_CHANGED)
        frame = ImageFrame.for_region(display.index, display.frame)
        image = await self._capture(backend, display.frame, frame.size)
        data, media_type = await asyncio.to_thread(encode_image, image)
        self._frames[display.index] = frame
        # After the capture, so an overlay the app draws for it is not in the image.
        self._emit(ScreenEvent(kind="screenshot", display=display.index, region=display.frame))
        return BetaScreenshotResult(data=data, media_type=cast(Any, media_type))

    async def zoom(
        self, context: BetaToolsetCallContext, input: BetaComputerZoomInput
    ) -> BetaScreenshotResult:
        backend = await self._ready()
        frame = await self._frame()
        x0, y0, x1, y1 = (int(v) for v in input.region)
        if not (0 <= x0 < x1 <= frame.width and 0 <= y0 < y1 <= frame.height):
            raise refusal(errors.BAD_REGION)
        region = frame.region_to_global(x0, y0, x1, y1)
        display = self._displays[frame.display]
        # At the display's own resolution, then enlarged: small text gains real detail.
        pixels = (round(region.width * display.scale), round(region.height * display.scale))
        size = fit_size(*pixels, upscale=ZOOM_UPSCALE)
        image = await self._capture(backend, region, size)
        data, media_type = await asyncio.to_thread(encode_image, image)
        self._emit(ScreenEvent(kind="zoom", display=frame.display, region=region))
        return BetaScreenshotResult(data=data, media_type=cast(Any, media_type))

    async def cursor_position(
        self, context: BetaToolsetCallContext, input: BetaComputerCursorPositionInput
    ) -> BetaComputerCursorPositionResult:
        backend = await self._ready()
        frame = await self._frame()
        point = await self._run(backend.pointer)
        display = display_at(self._displays, point)
        if display is None:
            raise refusal(errors.CURSOR_OFF_DISPLAYS)
        if display.index != frame.display:
            raise refusal(errors.CURSOR_ON_OTHER_DISPLAY.format(index=display.index))
        shown = frame.to_image(point)
        return BetaComputerCursorPositionResult(x=shown.x, y=shown.y)

    async def wait(self, context: BetaToolsetCallContext, input: BetaComputerWaitInput) -> None:
        if not 0 <= input.duration <= MAX_DURATION:
            raise refusal(errors.DURATION)
        await asyncio.sleep(input.duration)

    # --- members: pointer ----------------------------------------------------------------------

    async def mouse_move(
        self, context: BetaToolsetCallContext, input: BetaComputerMouseMoveInput
    ) -> str:
        backend, point, index = await self._aim(input.coordinate)
        self._emit(ScreenEvent(kind="move", display=index, points=(point,)))
        await self._move(backend, point)
        return self._echo(point)

    async def left_mouse_down(
        self, context: BetaToolsetCallContext, input: BetaComputerLeftMouseDownInput
    ) -> str:
        backend, point, index = await self._aim(None)
        self._emit(ScreenEvent(kind="press", display=index, points=(point,), button="left"))
        self._held.add("left")
        await self._run(backend.button, "left", True, 1)
        return self._echo(point)

    async def left_mouse_up(
        self, context: BetaToolsetCallContext, input: BetaComputerLeftMouseUpInput
    ) -> str:
        backend, point, index = await self._aim(None)
        self._emit(ScreenEvent(kind="release", display=index, points=(point,), button="left"))
        self._held.discard("left")
        await self._run(backend.button, "left", False, 1)
        return self._echo(point)

    async def left_click(
        self, context: BetaToolsetCallContext, input: BetaComputerLeftClickInput
    ) -> str:
        return await self._click(input.coordinate, input.text)

    async def right_click(
        self, context: BetaToolsetCallContext, input: BetaComputerRightClickInput
    ) -> str:
        return await self._click(input.coordinate, input.text, button="right")

    async def middle_click(
        self, context: BetaToolsetCallContext, input: BetaComputerMiddleClickInput
    ) -> str:
        return await self._click(input.coordinate, input.text, button="middle")

    async def double_click(
        self, context: BetaToolsetCallContext, input: BetaComputerDoubleClickInput
    ) -> str:
        return await self._click(input.coordinate, input.text, count=2)

    async def triple_click(
        self, context: BetaToolsetCallContext, input: BetaComputerTripleClickInput
    ) -> str:
        return await self._click(input.coordinate, input.text, count=3)

    async def left_click_drag(
        self, context: BetaToolsetCallContext, input: BetaComputerLeftClickDragInput
    ) -> str:
        modifiers = parse_modifiers(input.text)
        backend, start, index = await self._aim(input.start_coordinate)
        _, end, _ = await self._aim(input.coordinate)
        self._emit(ScreenEvent(kind="drag", display=index, points=(start, end), button="left"))
        async with self._holding(backend, modifiers):
            await self._move(backend, start)
            await self._run(backend.button, "left", True, 1)
            try:
                for step in range(1, DRAG_STEPS + 1):
                    x = start.x + (end.x - start.x) * step // DRAG_STEPS
                    y = start.y + (end.y - start.y) * step // DRAG_STEPS
                    await asyncio.sleep(DRAG_STEP_PAUSE)
                    await self._move(backend, Point(x, y))
            finally:
                await self._finally([functools.partial(backend.button, "left", False, 1)])
        return f"From {self._echo(start)[:-1].lower()} to {self._echo(end)[:-1].lower()}."

    async def scroll(self, context: BetaToolsetCallContext, input: BetaComputerScrollInput) -> str:
        if not 1 <= input.scroll_amount <= MAX_SCROLL:
            raise refusal(errors.SCROLL_AMOUNT)
        modifiers = parse_modifiers(input.text)
        backend, point, index = await self._aim(input.coordinate)
        direction = input.scroll_direction
        self._emit(
            ScreenEvent(
                kind="scroll",
                display=index,
                points=(point,),
                count=input.scroll_amount,
                text=direction,
            )
        )
        async with self._holding(backend, modifiers):
            if input.coordinate is not None:
                await self._move(backend, point)
            for _ in range(input.scroll_amount):
                await self._run(backend.wheel, direction)
        return self._echo(point)

    # --- members: keyboard ---------------------------------------------------------------------

    async def type(self, context: BetaToolsetCallContext, input: BetaComputerTypeInput) -> None:
        text = _typeable(input.text)
        await self._check_secure()
        backend = await self._ready()
        await self._prepare_keyboard(backend)
        await self._check_focus(backend)
        self._emit(ScreenEvent(kind="type", display=self.current_display, text=text))
        previous = ""
        for char in text:
            if previous in ("\n", "\t") and self._inspector is not None:
                # A line break or tab may move the focus (to a password field, say): give the
                # app a moment to move it, then look again.
                await asyncio.sleep(FOCUS_SETTLE)
                await self._check_secure()
            await self._check_focus(backend)
            await self._run(backend.type_char, char)
            previous = char

    async def key(self, context: BetaToolsetCallContext, input: BetaComputerKeyInput) -> None:
        chords = parse_sequence(input.text)
        repeat = 1 if input.repeat is None else input.repeat
        if not 1 <= repeat <= MAX_REPEAT:
            raise refusal(errors.REPEAT)
        if any(is_text_entry(chord) for chord in chords):
            await self._check_secure()
        backend = await self._ready()
        await self._prepare_keyboard(backend)
        self._emit(ScreenEvent(kind="key", display=self.current_display, text=input.text))
        for _ in range(repeat):
            for chord in chords:
                await self._check_focus(backend)
                async with self._holding(backend, chord):
                    pass

    async def hold_key(
        self, context: BetaToolsetCallContext, input: BetaComputerHoldKeyInput
    ) -> None:
        if not 0 <= input.duration <= MAX_DURATION:
            raise refusal(errors.DURATION)
        chord = parse_chord(input.text.strip())
        if is_text_entry(chord):
            await self._check_secure()
        backend = await self._ready()
        await self._prepare_keyboard(backend)
        await self._check_focus(backend)
        self._emit(ScreenEvent(kind="key", display=self.current_display, text=input.text))
        async with self._holding(backend, chord):
            await asyncio.sleep(input.duration)

    async def _prepare_keyboard(self, backend: ScreenBackend) -> None:
        """Re-read the keyboard layout before a run of keystrokes (the person may switch it)."""
        await self._run(backend.prepare_keyboard)

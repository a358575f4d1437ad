"""`ScreenComputer`: the SDK's computer toolset (`computer_toolset_20260801`) on this computer's screen.

How the app uses it (the SDK validates inputs, calls `confirm` and renders results; this class
implements the 17 members on a backend from `backends/`):

    screen = ScreenComputer(
        confirm=gate_confirm,            # the app's gate; required while type/key/hold_key are on
        own_windows=window_rects,        # () -> rectangles of Deskhand's own windows, global
        inspector=inspector,             # accessibility: `a11y.backend.open_accessibility`
        on_event=overlay.show,           # plain `ScreenEvent`s to draw
        before_capture=overlay.hide,     # the overlay out of the way of the pixels
        after_capture=overlay.unhide,
    )
    tools = [screen.to_dict(), ...]      # or pass `screen` itself in tools=[...]
    result = await screen.tool_result(use)   # use.toolset_name == "computer"
    context_text = await screen.displays_text()   # the displays, for the model's context
    await screen.close()

`await judge(context_of(use))` gives the gate (risk, reason, summary) for a call before it runs,
judged by the element it affects (see `risk.py`), and that element by meaning; the app describes
each call once with it. `find_again(meaning, within=...)` finds such an element again, where it
is now (`refind.py`: what a routine's replayed step acts on).
When the app's `confirm` put the question to the person it calls `person_answered()`: the
driver then lets the focus that the question took settle, and gives keys back their window,
before it acts. Before the app's
`confirm` is even asked, the driver refuses, with a `ToolError` the model reads, a call that
would land on one of the app's own windows or type into a secure field, so the person is never
asked about those; the same checks run again when the call executes, with the screen as it is
then.

A click, `type`, `key` or `hold_key` on an element another app shows looks at its window before
and after (when the inspector can watch it: `a11y/effect.py`), and the result ends with the
`Effect:` lines of what changed there (`tool_result`); a left click on a disabled control is
refused with `not enabled`, nothing sent.

Coordinates the model sends are pixels of the latest screenshot of the current display (the
primary one until `select_display`); they are mapped exactly to global logical points
(`scaling.py`), and every pointer action answers with the display index, local point and global
point it used. Each input event is its own call on the backend's worker thread, so Stop
(cancelling the task that awaits `tool_result`) takes effect between any two input events;
buttons and keys the call pressed are released however it ends.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import os
import unicodedata
from collections.abc import Callable, Collection
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
    BetaToolResultBlockParam,
    BetaToolUseBlock,
)

from tools.screen import errors
from tools.screen.a11y.elements import Inspector
from tools.screen.backends.base import MouseButton, ScreenBackend, ScreenUnavailable, WindowInfo
from tools.screen.backends.factory import open_backend
from tools.screen.displays import Display, describe_displays, display_at
from tools.screen.errors import BackendError, NoKeycode, refusal
from tools.screen.events import CaptureHook, ScreenEvent, ScreenEventSink
from tools.screen.geometry import Point
from tools.screen.hand import Hand
from tools.screen.keys import (
    UnknownKey,
    is_text_entry,
    parse_chord,
    parse_modifiers,
    parse_sequence,
)
from tools.screen.link import BackendFactory, OwnWindows, ScreenLink
from tools.screen.refind import FindsAgain, meaning_of
from tools.screen.risk import KEYBOARD_MEMBERS, POINTER_MEMBERS, screen_action, screen_risk
from tools.screen.risk import screen_summary as _summary
from tools.screen.scaling import ZOOM_UPSCALE, ImageFrame, encode_image, fit_size
from tools.toolset_driver import (
    Judged,
    Progress,
    ToolsetDriver,
    call_record,
    input_of,
    progress_scope,
)

log = logging.getLogger(__name__)

__all__ = ["CaptureHook", "OwnWindows", "Progress", "ScreenComputer", "progress_scope"]

T = TypeVar("T")

MAX_DURATION = 30
MAX_REPEAT = 100
MAX_SCROLL = 30
MAX_TEXT = 10_000
DRAG_STEPS = 12  # drag-and-drop code listens for moves, not only for the end point
DRAG_STEP_PAUSE = 0.01
FOCUS_SETTLE = 0.05  # seconds for an app to move its focus after a tab or line break
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


class ScreenComputer(
    FindsAgain, ToolsetDriver, ScreenLink, BetaAsyncAbstractComputerToolset20260801
):
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
        hand: Hand | None = None,
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
        - `hand`: who has the controls; every input event waits while the person has them.
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
        self._hand = hand
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

    async def judge(self, context: BetaComputerConfirmContext) -> Judged:
        """The call `confirm` is asked about, judged by the element it affects."""
        params = dict(input_of(context))
        element, display = await self._affected(context.member, params)
        risk, reason = screen_risk(
            context.member, params, element=element, button_held=bool(self._held)
        )
        summary = _summary(context.member, params, element=element, display=display)
        drag = context.member == "left_click_drag"
        target = await self.drop_target(params) if drag else element  # what a replay finds
        meaning = meaning_of(context.member, params, target)
        return Judged(risk=risk, reason=reason, summary=summary, meaning=meaning)

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

    async def tool_result(self, tool_use: BetaToolUseBlock) -> BetaToolResultBlockParam:
        """The SDK's result block, with the `Effect:` section of what the call changed in the
        window it acted on, when a member saw it (the SDK folds a member's own line into one)."""
        with call_record() as record:
            block = await super().tool_result(tool_use)
            outcome = record.outcome
        if outcome is None or outcome.kind == "refused" or block.get("is_error"):
            return block
        content = block.get("content") or []
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        effect: Any = {"type": "text", "text": outcome.effect_text()}
        return {**block, "content": [*blocks, effect]}

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
        return await self._left_button(down=True)

    async def left_mouse_up(
        self, context: BetaToolsetCallContext, input: BetaComputerLeftMouseUpInput
    ) -> str:
        return await self._left_button(down=False)

    async def _left_button(self, *, down: bool) -> str:
        """Press or release the left button where the pointer is (a drag done by hand)."""
        backend, point, index = await self._aim(None)
        kind = "press" if down else "release"
        self._emit(ScreenEvent(kind=kind, display=index, points=(point,), button="left"))
        if down:
            await self._before_input()
            self._held.add("left")
        else:
            self._held.discard("left")
        await self._run(backend.button, "left", down, 1)
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
            await self._input(backend.button, "left", True, 1)
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
                await self._input(backend.wheel, direction)
        return self._echo(point)

    # --- members: keyboard ---------------------------------------------------------------------

    async def type(self, context: BetaToolsetCallContext, input: BetaComputerTypeInput) -> None:
        text = _typeable(input.text)
        await self._check_secure()
        backend = await self._ready()
        await self._prepare_keyboard(backend)
        await self._check_focus(backend)
        watch = await self._watch_keys()
        self._emit(ScreenEvent(kind="type", display=self.current_display, text=text))
        previous = ""
        for char in text:
            if previous in ("\n", "\t") and self._inspector is not None:
                # A line break or tab may move the focus (to a password field, say): give the
                # app a moment to move it, then look again.
                await asyncio.sleep(FOCUS_SETTLE)
                await self._check_secure()
            await self._check_focus(backend)
            await self._input(backend.type_char, char)
            previous = char
        await self._report_effect(watch)

    async def key(self, context: BetaToolsetCallContext, input: BetaComputerKeyInput) -> None:
        chords = parse_sequence(input.text)
        repeat = 1 if input.repeat is None else input.repeat
        if not 1 <= repeat <= MAX_REPEAT:
            raise refusal(errors.REPEAT)
        if any(is_text_entry(chord) for chord in chords):
            await self._check_secure()
        backend = await self._ready()
        await self._prepare_keyboard(backend)
        watch = await self._watch_keys()
        self._emit(ScreenEvent(kind="key", display=self.current_display, text=input.text))
        for _ in range(repeat):
            for chord in chords:
                await self._check_focus(backend)
                async with self._holding(backend, chord):
                    pass
        await self._report_effect(watch)

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
        watch = await self._watch_keys()
        self._emit(ScreenEvent(kind="key", display=self.current_display, text=input.text))
        async with self._holding(backend, chord):
            await asyncio.sleep(input.duration)
        await self._report_effect(watch)

    async def _prepare_keyboard(self, backend: ScreenBackend) -> None:
        """Re-read the keyboard layout before a run of keystrokes (the person may switch it)."""
        await self._run(backend.prepare_keyboard)

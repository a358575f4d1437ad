"""The screen as a toolset source: the computer toolset, one per chat, with the app's rules.

What this adds to the driver (`tools/screen`): the first look at the screen in a chat is a
question of its own ("Let Claude see your screen in this chat?"), asked in Ask and Ask-for-
changes modes; Deskhand's own windows are never acted on (the window reports where they are);
and what the driver does is reported as plain events for the visualizer, which the window
hides while pixels are read (`before_capture` / `after_capture`); a screen that became unusable
(a permission taken back, the display gone) is said on the call's card and stops being offered.
Where other apps' elements can be read (`elements.py`: AT-SPI on Linux, AX on macOS), the gate
judges clicks and keys by the element they affect, and the `screen` tool (see, wait, click by
id) shares the first look.

The ui layer reaches the screen's pieces (events, status, macOS permissions) only through here.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

from anthropic.tools.computer import BetaComputerConfirmContext
from anthropic.types.beta import BetaComputerScreenshotInput

from desktop.calls.sources.screen.elements import ScreenElements
from desktop.calls.sources.screen.hooks import ScreenHooks
from desktop.calls.sources.toolsets import Confirm, ToolsetSource
from tools.base import ActionInfo, Risk
from tools.screen import (
    Display,
    ScreenBackend,
    ScreenComputer,
    ScreenEvent,
    ScreenStatus,
    ScreenUnavailable,
    screen_risk,
    screen_status,
)
from tools.screen.backends.factory import open_backend
from tools.screen.backends.mac_permissions import RELAUNCH_NOTE, ScreenPermission, mac_permissions
from tools.screen.backends.mac_permissions import request as request_permission
from tools.screen.displays import number_displays
from tools.screen.hand import Hand, PersonInput
from tools.screen.risk import KEYBOARD_MEMBERS, POINTER_MEMBERS, READ_MEMBERS
from tools.screen.watch import InputWatcher, watcher_for
from tools.toolset_driver import Judged

__all__ = [
    "RELAUNCH_NOTE",
    "ScreenControl",
    "ScreenEvent",
    "ScreenPermission",
    "ScreenStatus",
    "request_permission",
    "screen_report",
    "status_line",
]

log = logging.getLogger(__name__)

NAME = "computer"
TITLE = "Screen"
# The API's wording for the calls of a reply skipped after a screen call failed.
NOT_EXECUTED = "Not executed: an earlier computer action in this turn failed."
FIRST_LOOK = "Let Claude see your screen in this chat?"
FIRST_LOOK_REASON = "The first look at your screen in this chat"
LOOKS = frozenset({"screenshot", "zoom"})
BACKEND_TITLES = {"x11": "X11", "macos": "macOS"}


def status_line(status: ScreenStatus | None, *, enabled: bool = True) -> tuple[bool, str]:
    """(usable, one line for a person) about the screen: available where, or why not and what
    to do. For Settings → Screen and `deskhand doctor`."""
    if not enabled:
        return False, "Off: Claude does not see or use the screen (turn Screen on below)."
    if status is None:
        return False, "Not checked yet: Deskhand looks when it starts."
    if not status.available:
        return False, f"{status.reason} {status.fix}".strip()
    where = BACKEND_TITLES.get(status.backend, status.backend)
    display = os.environ.get("DISPLAY") if status.backend == "x11" else None
    line = f"Available: {where}" + (f" display {display}" if display else "") + "."
    return True, f"{line} {status.reason}".strip()


def screen_report() -> tuple[ScreenStatus, list[Display]]:
    """The status and, where the screen is usable, its displays in their documented order.
    Blocks (it connects to the display): for `deskhand doctor`, or in a thread."""
    status = screen_status()
    if not status.available:
        return status, []
    try:
        backend = open_backend()
    except ScreenUnavailable as exc:
        return exc.status, []
    try:
        return status, number_displays(backend.displays())
    finally:
        backend.close()


class ChatScreen(ScreenComputer):
    """One chat's screen toolset: its first look is a question of its own, and a call after
    the person had the controls says so."""

    def __init__(self, *, hand: Hand, **options: Any) -> None:
        super().__init__(hand=hand, **options)
        self.hand = hand
        self.seen = False  # the person let Claude look at the screen in this chat

    async def tool_result(self, tool_use: Any, *args: Any, **kwargs: Any) -> Any:
        block = await super().tool_result(tool_use, *args, **kwargs)
        note = self.hand.take_note()  # left by a pause that no input call has reported yet
        if note is None:
            return block
        noted: dict[str, Any] = dict(block)
        content = noted.get("content")
        parts: list[Any] = [{"type": "text", "text": content}] if isinstance(content, str) else []
        parts += list(content) if isinstance(content, list) else []
        noted["content"] = [*parts, {"type": "text", "text": note}]
        return noted

    async def judge(self, context: BetaComputerConfirmContext) -> Judged:
        if context.member in LOOKS and not self.seen:
            # A change: Ask and Ask-for-changes modes ask; Autonomous lets it look.
            return Judged(risk=Risk.CHANGE, reason=FIRST_LOOK_REASON, summary=FIRST_LOOK)
        return await super().judge(context)

    async def screenshot(self, context: Any, input: BetaComputerScreenshotInput) -> Any:
        shot = await super().screenshot(context, input)
        self.seen = True  # it ran, so the person (or the mode) allowed it
        return shot


async def _never(_context: Any) -> bool:
    return False


def screen_members() -> list[ActionInfo]:
    """Every member with its usual risk, for Settings → Permissions."""
    members = sorted(READ_MEMBERS | KEYBOARD_MEMBERS | POINTER_MEMBERS)
    infos = []
    for name in members:
        risk, reason = screen_risk(name, {}, element=None)
        infos.append(ActionInfo(name=name, risk=risk, description=reason))
    return infos


class ScreenControl:
    """The screen toolset for each chat, whether this computer offers it, and its events."""

    def __init__(self, *, enabled: Callable[[], bool], hooks: ScreenHooks | None = None) -> None:
        self._enabled = enabled
        self.hooks = hooks or ScreenHooks()  # the window's: own windows, events, captures
        self.status: ScreenStatus | None = None  # known once `start` has looked
        self.permissions: list[ScreenPermission] = []  # macOS's, as of launch; none elsewhere
        # The window's visualizer: hidden before each capture (awaited), shown again after.
        self._chats: dict[int, ChatScreen] = {}
        self._probe: ScreenComputer | None = None  # reads the display list for the context
        self._looked: set[int] = set()  # chats where the `screen` tool had its first look
        # Other apps' elements (AT-SPI): the gate's inspector and the `screen` tool.
        self.elements = ScreenElements(
            available=lambda: self.available,
            own_windows=lambda: self.hooks.own_windows(),
            looks=self,
            on_event=self._report,  # the `screen` tool's clicks show like the toolset's
            before_capture=self._before_capture,
            after_capture=self._after_capture,
        )
        # The `screen` tool's clicks wait for the person's hand too; the person's own actions
        # from the command line (a negative chat id) never do.
        self.elements.access.hand_for = lambda chat: self.hooks.hand if chat >= 0 else None
        self._lost: dict[int, ScreenStatus] = {}  # per chat: why the screen became unusable
        self._watcher: InputWatcher | None = None
        self.hooks.hand.start_watching = self._start_watching
        self.hooks.hand.stop_watching = self._stop_watching

    @property
    def available(self) -> bool:
        return self._enabled() and self.status is not None and self.status.available

    async def start(self) -> None:
        """Look whether the screen can be used here (it blocks, so in a thread). Even while
        Settings has it off: looking touches nothing, and turning it on then works at once."""
        self.permissions = await asyncio.to_thread(mac_permissions)
        self.status = await asyncio.to_thread(screen_status)
        if self.status.available and self._enabled():
            await self.elements.start()

    def for_session(self, session_id: int, confirm: Confirm) -> ChatScreen:
        chat = self._chats.get(session_id)
        if chat is None or chat.confirm_hook is not confirm or chat.is_closed:
            chat = ChatScreen(
                confirm=confirm,
                backend=lambda: self._open_backend(session_id),
                own_windows=lambda: self.hooks.own_windows(),
                on_event=lambda event: self._report(session_id, event),
                inspector=self.elements,  # AT-SPI once `start` found it
                before_capture=self._before_capture,
                after_capture=self._after_capture,
                hand=self.hooks.hand,
            )
            chat.seen = session_id in self._looked
            self._chats[session_id] = chat
        return chat

    def seen(self, session_id: int) -> bool:
        """Whether Claude may already look at the screen in this chat (by either tool)."""
        chat = self._chats.get(session_id)
        return session_id in self._looked or (chat is not None and chat.seen)

    def saw(self, session_id: int) -> None:
        self._looked.add(session_id)
        if (chat := self._chats.get(session_id)) is not None:
            chat.seen = True

    def _start_watching(self) -> None:
        """Claude started using the screen: watch for the person's own input (threads of its
        own; the person's input reaches the hand on this loop)."""
        if self._watcher is None:
            loop = asyncio.get_running_loop()
            hand = self.hooks.hand

            def report(event: PersonInput) -> None:
                loop.call_soon_threadsafe(hand.person_input, event)

            self._watcher = watcher_for(report)
        if self._watcher is not None:
            self._watcher.start()

    def _stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()

    def _open_backend(self, session_id: int) -> ScreenBackend:
        """The driver's backend; if the screen became unusable, the reason is kept for the card
        (this runs on the driver's worker thread; `after_call` reads it on the loop)."""
        try:
            return open_backend()
        except ScreenUnavailable as exc:
            self._lost[session_id] = exc.status
            raise

    def after_call(self, session_id: int) -> tuple[list[str], list[str]]:
        """The card's notice when the call found the screen unusable; from then on the toolset
        is not offered (the model was told not to retry), until Deskhand looks again."""
        lost = self._lost.pop(session_id, None)
        if lost is None:
            return [], []
        self.status = lost
        return [f"Screen control is not available: {lost.reason} {lost.fix}".strip()], []

    def _before_capture(self) -> Any:
        hook = self.hooks.before_capture
        return hook() if hook is not None else None

    def _after_capture(self) -> Any:
        hook = self.hooks.after_capture
        return hook() if hook is not None else None

    def _report(self, session_id: int, event: ScreenEvent) -> None:
        for listener in list(self.hooks.listeners):
            listener(session_id, event)

    async def displays_text(self) -> str | None:
        """The displays, for the model's context, when the screen is offered."""
        if not self.available:
            return None
        if self._probe is None:
            # It only lists displays; the SDK wants a confirm all the same (keys are members).
            self._probe = ScreenComputer(
                confirm=_never, own_windows=lambda: self.hooks.own_windows()
            )
        try:
            return await self._probe.displays_text()
        except Exception:  # the display went away: the turn goes on without the list
            log.warning("could not list the displays", exc_info=True)
            return None

    async def close_session(self, session_id: int) -> None:
        self._looked.discard(session_id)
        self.elements.forget(session_id)
        chat = self._chats.pop(session_id, None)
        if chat is not None:
            await chat.close()

    async def close(self) -> None:
        self.hooks.hand.release()
        for session_id in list(self._chats):
            await self.close_session(session_id)
        if self._probe is not None:
            await self._probe.close()
            self._probe = None
        await self.elements.close()

    def source(self) -> ScreenSource:
        return ScreenSource(self)


class ScreenSource(ToolsetSource):
    """The computer toolset as a source, while this computer and Settings → Screen allow it."""

    name = NAME
    title = TITLE
    not_executed = NOT_EXECUTED

    def __init__(self, control: ScreenControl) -> None:
        super().__init__()
        self.control = control

    def toolset_for(self, session_id: int, confirm: Confirm) -> ChatScreen:
        return self.control.for_session(session_id, confirm)

    def members(self) -> list[ActionInfo]:
        return screen_members()

    def available(self) -> bool:
        return self.control.available

    def landing(self, member: str, input: Mapping[str, Any], page: str | None) -> str | None:
        return "Your screen"

    def after_call(self, session_id: int) -> tuple[list[str], list[str]]:
        return self.control.after_call(session_id)

    async def start(self) -> None:
        await self.control.start()

    async def close_session(self, session_id: int) -> None:
        await super().close_session(session_id)
        await self.control.close_session(session_id)

    async def close(self) -> None:
        await self.control.close()

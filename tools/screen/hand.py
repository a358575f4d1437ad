"""The person's hand wins: who has the screen's controls, Claude or the person.

While Claude controls the screen an input watcher (`watch/`) reports the person's own mouse
and keys (never Deskhand's synthetic events). The first one pauses Claude: its next input
event waits until the person presses Resume (or Stop, which cancels the turn). The person can
also take over on purpose and hand back later. Either way, what Claude planned before the
pause is not replayed: the call that was waiting is not done, and the next tool result tells
the model how long the person had the controls and that it should look again first.

`Hand` lives on the event loop's thread; the watcher's thread reaches it only through
`loop.call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from tools.screen.geometry import Rect

__all__ = ["Hand", "HandState", "InputKind", "PersonInput", "paused_note"]

log = logging.getLogger(__name__)

# After Resume or Hand back the person's hand leaves the mouse: input in this window of
# time is theirs finishing the click, not a new reach for the controls.
GRACE = 1.5

PAUSED = "Paused: you're using the computer"
TAKEN = "You have the controls"

Holder = Literal["claude", "paused", "person"]
InputKind = Literal["motion", "button", "key"]  # what the person did: moved, clicked, typed


@dataclass(frozen=True)
class PersonInput:
    """One of the person's own input events, as the watcher saw it."""

    kind: InputKind
    x: int | None = None  # the pointer, in global logical units, when it happened
    y: int | None = None
    focus_own: bool = False  # a key while one of Deskhand's own windows had the keyboard


@dataclass(frozen=True)
class HandState:
    """What the overlay shows: who holds the controls, and since when."""

    holder: Holder
    watching: bool  # Claude controls the screen and the person's input is watched
    since: float = 0.0


def paused_note(seconds: float, *, took_over: bool) -> str:
    """What the model reads after the person gave the controls back."""
    whole = max(1, round(seconds))
    unit = "second" if whole == 1 else "seconds"
    how = "The person took over" if took_over else "You were paused: the person used"
    return (
        f"{how} the computer for {whole} {unit}, then handed control back. The screen may have "
        "changed: take a screenshot and look again before acting. Actions planned before the "
        "pause were not done."
    )


class Hand:
    """Who has the controls. The driver awaits `before_input()` before each input event."""

    def __init__(
        self, own_windows: Callable[[], Iterable[Rect | tuple[int, int, int, int]]]
    ) -> None:
        self._own_windows = own_windows
        self.holder: Holder = "claude"
        self.watching = False
        self._since = 0.0
        self._took_over = False
        self._grace_until = 0.0
        self._note: str | None = None
        self._changed = asyncio.Event()
        self.listeners: list[Callable[[HandState], None]] = []
        # Set by the app: start and stop the watcher (it runs only while Claude controls).
        self.start_watching: Callable[[], None] | None = None
        self.stop_watching: Callable[[], None] | None = None

    @property
    def state(self) -> HandState:
        return HandState(holder=self.holder, watching=self.watching, since=self._since)

    # --- Claude's side -------------------------------------------------------------------------

    def arm(self) -> None:
        """Claude is about to use the screen: watch the person's input from now on."""
        if self.watching:
            return
        self.watching = True
        if self.start_watching is not None:
            self.start_watching()
        self._notify()

    def release(self) -> None:
        """Claude's turn ended (or was stopped): nothing to watch, nobody paused."""
        was = (self.watching, self.holder)
        self.watching = False
        self.holder = "claude"
        self._note = None
        self._changed.set()
        if self.stop_watching is not None:
            self.stop_watching()
        if was != (False, "claude"):
            self._notify()

    async def before_input(self) -> None:
        """Wait while the person has the controls. After they handed them back, refuse the
        input this call was about to send (it was planned on a screen that may have changed),
        with the note the model reads (the SDK's `ToolError`)."""
        note = await self.wait_turn()
        if note is not None:
            from tools.screen.errors import refusal

            raise refusal(note)

    async def wait_turn(self) -> str | None:
        """Wait while the person has the controls; then the note, once, if they had them."""
        self.arm()
        while self.holder != "claude":
            self._changed.clear()
            await self._changed.wait()
        note, self._note = self._note, None
        return note

    def take_note(self) -> str | None:
        """The note for a call that ran no input after a pause (a screenshot), once."""
        note, self._note = self._note, None
        return note

    # --- the person's side ---------------------------------------------------------------------

    def person_input(self, event: PersonInput) -> None:
        """The watcher saw the person's own input (on the loop's thread)."""
        if not self.watching or self.holder != "claude":
            return
        if time.monotonic() < self._grace_until or self._on_own_window(event):
            return
        log.info("The person's own %s paused Claude", event.kind)
        self._hold("paused")

    def take_over(self) -> None:
        """The person asked for the controls (Take over)."""
        if self.holder != "person":
            self._hold("person", keep_since=self.holder == "paused")

    def resume(self) -> None:
        """Resume or Hand back: Claude continues, told what happened."""
        if self.holder == "claude":
            return
        took_over = self.holder == "person" or self._took_over
        self._note = paused_note(time.monotonic() - self._since, took_over=took_over)
        self.holder = "claude"
        self._took_over = False
        self._grace_until = time.monotonic() + GRACE
        self._changed.set()
        self._notify()

    def _hold(self, holder: Holder, *, keep_since: bool = False) -> None:
        if not keep_since:
            self._since = time.monotonic()
        self._took_over = self._took_over or holder == "person"
        self.holder = holder
        self._changed.set()
        self._notify()

    def _on_own_window(self, event: PersonInput) -> bool:
        """Input in Deskhand's own windows (the pill, an approval sheet) is not a reach for the
        screen Claude uses."""
        if event.kind == "key":
            return event.focus_own
        if event.x is None or event.y is None:
            return False
        for rect in self._own_windows():
            x, y, width, height = rect
            if x <= event.x < x + width and y <= event.y < y + height:
                return True
        return False

    def _notify(self) -> None:
        state = self.state
        for listener in list(self.listeners):
            try:
                listener(state)
            except Exception:
                log.exception("A hand listener failed")

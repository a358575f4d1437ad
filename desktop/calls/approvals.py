"""The questions the gate asks the person, in the order the calls came, one shown at a time.

Logic awaits an `ApprovalRequest` without holding a window; the `ApprovalQueue` owns
their order and tells its viewer (the window, which only shows sheets) which one to
show next. With no viewer, a question cannot be answered and the gate denies.

A chat whose run nobody watches (a scheduled routine's) is *held*: its questions wait aside,
never shown over the person's work, and the `on_held` listeners hear of each (to notify the
person and mark the chat waiting). `show(chat)` puts them in line once the person asks for
them (clicked the notification, opened the chat); the gate still decides, and waits as for
any question.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from desktop.calls.permissions import Answer, ToolCall

Viewer = Callable[["ApprovalRequest"], None]


class ApprovalRequest:
    """A question to the person that logic can await without holding a window.

    The window listens for new requests, shows a sheet, and calls `answer`. If the turn is
    stopped while the sheet is open, `cancel()` runs the `on_cancel` callbacks so the sheet closes.
    """

    def __init__(self, call: ToolCall, asker: str = "", note: str = "", title: str = "") -> None:
        self.call = call
        self.title = title  # the sheet's own headline, where it is not the usual one
        self.asker = asker  # who asks, when not Claude in a chat: "An MCP client (Claude Desktop)"
        # Why the chat's plan asks: a proposed plan (`update_plan`), or "Not in the plan: …".
        self.note = note
        self._future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self.on_cancel: list[Callable[[], None]] = []

    def answer(self, answer: Answer) -> None:
        if not self._future.done():
            self._future.set_result(answer)

    @property
    def done(self) -> bool:
        return self._future.done()

    def when_done(self, callback: Callable[[], None]) -> None:
        """Call `callback` once the request is answered or cancelled."""
        self._future.add_done_callback(lambda _future: callback())

    def cancel(self) -> None:
        if not self._future.done():
            self._future.cancel()
        for callback in self.on_cancel:
            callback()

    async def wait(self) -> Answer:
        try:
            return await asyncio.shield(self._future)
        except asyncio.CancelledError:
            self.cancel()
            raise


class ApprovalQueue:
    """Open approval requests; the viewer is shown the oldest unanswered one."""

    def __init__(self) -> None:
        self._waiting: deque[ApprovalRequest] = deque()
        self.current: ApprovalRequest | None = None
        self._viewers: list[Viewer] = []
        self._holding: set[int] = set()  # chats whose questions wait until shown
        self._held: list[ApprovalRequest] = []
        self.on_held: list[Viewer] = []

    def subscribe(self, viewer: Viewer) -> Callable[[], None]:
        """`viewer(request)` shows a request; returns the way to stop viewing."""
        self._viewers.append(viewer)
        self._advance()
        return lambda: self._viewers.remove(viewer)

    @property
    def has_viewer(self) -> bool:
        return bool(self._viewers)

    @property
    def pending(self) -> list[ApprovalRequest]:
        shown = [self.current] if self.current is not None else []
        return [*shown, *self._waiting]

    async def ask(
        self, call: ToolCall, *, asker: str = "", note: str = "", title: str = ""
    ) -> Answer:
        """Queue a question about `call` and wait for the person's answer (cancellable)."""
        request = ApprovalRequest(call, asker, note, title)
        if call.session_id in self._holding:
            self._held.append(request)
            for listener in list(self.on_held):
                listener(request)
        else:
            self._waiting.append(request)
        self._advance()
        try:
            return await request.wait()
        finally:
            if self.current is request:
                self.current = None
            elif request in self._waiting:
                self._waiting.remove(request)
            elif request in self._held:
                self._held.remove(request)
            self._advance()

    # -- chats nobody watches -----------------------------------------------------------------

    def hold(self, session_id: int) -> None:
        """From now on, chat `session_id`'s questions wait until `show` (an unattended run)."""
        self._holding.add(session_id)

    def release(self, session_id: int) -> None:
        """The chat is watched again (its run ended): what it still holds is shown."""
        self._holding.discard(session_id)
        self.show(session_id)

    def held(self, session_id: int | None = None) -> list[ApprovalRequest]:
        """The questions waiting aside (of one chat, or all)."""
        return [
            request
            for request in self._held
            if session_id is None or request.call.session_id == session_id
        ]

    def show(self, session_id: int) -> bool:
        """The person asked for chat `session_id`'s waiting question: it joins the line of
        questions shown (next questions of a held chat wait aside again). True if one did."""
        moved = self.held(session_id)
        for request in moved:
            self._held.remove(request)
            self._waiting.append(request)
        self._advance()
        return bool(moved)

    def _advance(self) -> None:
        if self.current is not None and not self.current.done:
            return
        self.current = None
        while self._waiting and self._viewers:
            request = self._waiting.popleft()
            if request.done:
                continue  # stopped while it waited its turn
            self.current = request
            for viewer in list(self._viewers):
                viewer(request)
            return

"""The questions the gate asks the person, in the order the calls came, one shown at a time.

Logic awaits an `ApprovalRequest` without holding a window; the `ApprovalQueue` owns
their order and tells its viewer (the window, which only shows sheets) which one to
show next. With no viewer, a question cannot be answered and the gate denies.
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

    def __init__(self, call: ToolCall, asker: str = "", note: str = "") -> None:
        self.call = call
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

    async def ask(self, call: ToolCall, *, asker: str = "", note: str = "") -> Answer:
        """Queue a question about `call` and wait for the person's answer (cancellable)."""
        request = ApprovalRequest(call, asker, note)
        self._waiting.append(request)
        self._advance()
        try:
            return await request.wait()
        finally:
            if self.current is request:
                self.current = None
            elif request in self._waiting:
                self._waiting.remove(request)
            self._advance()

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

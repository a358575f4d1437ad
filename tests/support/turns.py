"""Send a message the way the window does (`Conversations.send`) and follow its turn.

`start` sends and returns a future that resolves when the turn ends, with the `TurnRunning`
that says whether the person stopped it; `send` also awaits it. Every event of that chat
but the running marks goes to `emit` on the way. `settled` waits until no turn runs, for
the other ways a turn starts. `turn_log` follows every turn of an app, for the window's tests.
`turn` runs one whole turn in a new chat of a workspace, outside any loop, and returns its events.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable

from desktop.chat.conversations import (
    ConversationEvent,
    Conversations,
    HistoryReplaced,
    TurnRunning,
)
from desktop.chat.events import AgentEvent, TurnFailed
from desktop.workspace import Workspace
from tests.support.waiting import wait_until


def start(
    conversations: Conversations,
    session_id: int,
    text: str,
    emit: Callable[[AgentEvent], None] | None = None,
) -> asyncio.Future[TurnRunning]:
    """Send `text` in `session_id` (the message must be accepted); the turn's end, to await."""
    ended: asyncio.Future[TurnRunning] = asyncio.get_running_loop().create_future()

    def listen(event: ConversationEvent) -> None:
        if event.session_id != session_id:
            return
        if isinstance(event, TurnRunning):
            if not event.running and not ended.done():
                ended.set_result(event)
        elif emit is not None and not isinstance(event, HistoryReplaced):
            emit(event)

    stop_listening = conversations.subscribe(listen)
    ended.add_done_callback(lambda _: stop_listening())
    if not conversations.send(session_id, text):
        ended.cancel()
        raise AssertionError(f"the message {text!r} was not accepted")
    return ended


async def send(
    conversations: Conversations,
    session_id: int,
    text: str,
    emit: Callable[[AgentEvent], None] | None = None,
) -> TurnRunning:
    """Send `text` and wait until its turn ends."""
    return await start(conversations, session_id, text, emit)


async def settled(conversations: Conversations) -> None:
    """Wait until no chat's turn runs (after Retry, Regenerate, Edit or Continue)."""
    await wait_until(lambda: not conversations.running, what="the turns to end")


class TurnLog:
    """How the app's turns started and ended, as `Conversations` reports them to the window."""

    def __init__(self, conversations: Conversations) -> None:
        self.conversations = conversations
        self.started = 0
        self.newest: int | None = None  # the chat of the turn started last
        self.ended: list[TurnRunning] = []
        self.unexpected: list[TurnFailed] = []  # a turn that ended with an error no one expected
        conversations.subscribe(self._listen)

    def _listen(self, event: ConversationEvent) -> None:
        if isinstance(event, TurnRunning):
            if event.running:
                self.started += 1
                self.newest = event.session_id
            else:
                self.ended.append(event)
        elif isinstance(event, TurnFailed) and event.error_kind == "unexpected":
            self.unexpected.append(event)

    @property
    def finished(self) -> bool:
        """A turn was started and the newest one has ended (others may still run)."""
        return self.newest is not None and not self.conversations.is_running(self.newest)

    @property
    def last(self) -> TurnRunning:
        return self.ended[-1]


_logs: weakref.WeakKeyDictionary[Conversations, TurnLog] = weakref.WeakKeyDictionary()


def turn_log(conversations: Conversations) -> TurnLog:
    """The one log of `conversations` (kept from the first call on: call it before sending)."""
    log = _logs.get(conversations)
    if log is None:
        log = _logs[conversations] = TurnLog(conversations)
    return log


def turn(ws: Workspace, text: str) -> list[AgentEvent]:
    events: list[AgentEvent] = []
    sid = ws.store.create_session().id

    async def go() -> None:
        await send(ws.conversations, sid, text, events.append)
        await ws.agent.close()

    asyncio.run(go())
    return events

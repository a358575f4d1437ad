"""The conversations: send, retry, stop and delete, which turns are running, one turn per chat.

Widgets subscribe to it and render what it reports (the agent's events, and when a
chat's turn starts and ends); they hold no turn logic of their own. Turns run as asyncio
tasks; Stop cancels a task, and the agent keeps what arrived so far.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from pydantic import BaseModel

from desktop.agent import Agent
from desktop.events import AgentEvent, PromptAdded, TurnFailed
from desktop.store import Store

log = logging.getLogger(__name__)

UNEXPECTED_FAILURE = (
    "Something went wrong",
    "An unexpected error stopped this reply. Your messages are saved; press Retry.",
)


class TurnRunning(BaseModel):
    """A chat's turn started (`running`) or ended; `stopped` when the person stopped it."""

    session_id: int
    running: bool
    stopped: bool = False


ConversationEvent = AgentEvent | TurnRunning
Listener = Callable[[ConversationEvent], None]


class Conversations:
    """Every chat's turns, for the whole app."""

    def __init__(
        self,
        *,
        store: Store,
        agent: Agent,
        delete_session: Callable[[int], Coroutine[Any, Any, None]],
    ) -> None:
        self.store = store
        self.agent = agent
        self._delete_session = delete_session
        self._turns: dict[int, asyncio.Task[None]] = {}
        self._deleting: set[asyncio.Future[None]] = set()
        self._listeners: list[Listener] = []
        self.latest: asyncio.Task[None] | None = None  # the newest turn (tests wait on it)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every event; returns the way to stop listening."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _emit(self, event: ConversationEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def is_running(self, session_id: int | None) -> bool:
        return session_id in self._turns

    @property
    def running(self) -> set[int]:
        return set(self._turns)

    def create_session(self) -> int:
        return self.store.create_session().id

    def send(self, session_id: int, text: str) -> bool:
        """Send the person's message; False when there is nothing to send or a turn runs there."""
        text = text.strip()
        if not text or session_id in self._turns:
            return False
        self._emit(PromptAdded(session_id=session_id, text=text))
        self._start(session_id, self.agent.run_turn(session_id, text, self._emit))
        return True

    def retry(self, session_id: int) -> bool:
        """Answer the stored history again (Retry on an error card)."""
        if session_id in self._turns:
            return False
        self._start(session_id, self.agent.continue_turn(session_id, self._emit))
        return True

    def stop(self, session_id: int | None) -> bool:
        """Stop the reply running in a chat; what arrived so far stays."""
        task = self._turns.get(session_id) if session_id is not None else None
        if task is None:
            return False
        task.cancel()
        return True

    def delete(self, session_id: int) -> asyncio.Future[None]:
        """Delete a chat; a running reply is stopped first, and its partial text saved, then gone."""
        deleting = asyncio.ensure_future(self._delete(session_id))
        self._deleting.add(deleting)  # held until done: the loop keeps only weak references
        deleting.add_done_callback(self._deleting.discard)
        return deleting

    async def _delete(self, session_id: int) -> None:
        task = self._turns.get(session_id)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self._delete_session(session_id)

    def _start(self, session_id: int, turn: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(turn)
        self._turns[session_id] = task
        self.latest = task
        task.add_done_callback(lambda done: self._done(session_id, done))
        self._emit(TurnRunning(session_id=session_id, running=True))

    def _done(self, session_id: int, task: asyncio.Task[None]) -> None:
        if self._turns.get(session_id) is task:
            del self._turns[session_id]
        stopped = task.cancelled()
        if not stopped and (error := task.exception()) is not None:
            log.error("a turn ended with an unexpected error", exc_info=error)
            title, detail = UNEXPECTED_FAILURE
            self._emit(
                TurnFailed(
                    session_id=session_id, error_kind="unexpected", title=title, detail=detail
                )
            )
        self._emit(TurnRunning(session_id=session_id, running=False, stopped=stopped))

    async def shutdown(self) -> None:
        """On quit: stop running replies and wait until their partial text is saved."""
        tasks = [*self._turns.values(), *self._deleting]
        for task in self._turns.values():
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

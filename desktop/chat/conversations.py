"""The conversations: send, retry, regenerate, edit, switch versions, continue, stop and
delete, one turn per chat.

Widgets subscribe to it and render what it reports (the agent's events, when a chat's
turn starts and ends, and when Edit or Regenerate replaced part of a chat's history);
they hold no turn logic of their own. Turns run as asyncio tasks; Stop cancels a task,
and the agent keeps what arrived so far. Attachments are prepared when attached (into
a pending folder) and move into their chat's folder when sent.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.chat import attachments, user_content, versions
from desktop.chat.attachments import Attachment
from desktop.chat.events import (
    AgentEvent,
    MessageCommitted,
    ReplyContinued,
    TurnFailed,
    TurnStopped,
)
from desktop.chat.transcript import prompt_event
from desktop.system.store import Store, StoredMessage
from tools.data import Data

if TYPE_CHECKING:
    from desktop.chat.agent import Agent

log = logging.getLogger(__name__)

UNEXPECTED_FAILURE = (
    "Something went wrong",
    "An unexpected error stopped this reply. Your messages are saved; press Retry.",
)


class TurnRunning(Data):
    """A chat's turn started (`running`) or ended; `stopped` when the person stopped it."""

    session_id: int
    running: bool
    stopped: bool = False


class HistoryReplaced(Data):
    """Edit, Regenerate or a switch of versions changed the end of a chat: show its history
    again from the store."""

    session_id: int


ConversationEvent = AgentEvent | TurnRunning | HistoryReplaced
Listener = Callable[[ConversationEvent], None]


class Conversations:
    """Every chat's turns, for the whole app."""

    def __init__(
        self,
        *,
        store: Store,
        agent: Callable[[], Awaitable[Agent]],
        delete_session: Callable[[int], Coroutine[Any, Any, None]],
        attachments_dir: Path,
    ) -> None:
        self.store = store
        self._agent = agent  # awaited: the agent's modules may still be loading
        self.attachments_dir = attachments_dir
        # Attached but not sent: what is left from an earlier run was never sent.
        self.pending_dir = attachments_dir / "pending"
        shutil.rmtree(self.pending_dir, ignore_errors=True)
        self._delete_session = delete_session
        self._turns: dict[int, asyncio.Task[None]] = {}
        self._deleting: set[asyncio.Future[None]] = set()
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every event; returns the way to stop listening."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _emit(self, event: ConversationEvent) -> None:
        if isinstance(event, TurnFailed | TurnStopped):
            # Kept before it is shown, so a reopened chat shows it again.
            self.store.add_turn_end(event.session_id, event.model_dump_json())
        for listener in list(self._listeners):
            listener(event)

    def is_running(self, session_id: int | None) -> bool:
        return session_id in self._turns

    @property
    def running(self) -> set[int]:
        return set(self._turns)

    def create_session(self) -> int:
        return self.store.create_session().id

    # -- attachments -------------------------------------------------------------

    async def attach_file(self, path: Path) -> Attachment:
        """Prepare a file to send; AttachmentError says why it cannot be attached."""
        return await attachments.prepare_file(path, self.pending_dir)

    async def attach_data(self, data: bytes, name: str) -> Attachment:
        """Prepare bytes to send (a pasted image)."""
        return await attachments.prepare_data(data, name, self.pending_dir)

    def discard_attachment(self, attachment: Attachment) -> None:
        """An attachment removed before sending."""
        attachments.discard(attachment)

    # -- turns --------------------------------------------------------------------

    def send(self, session_id: int, text: str, attached: Sequence[Attachment] = ()) -> bool:
        """Send the person's message; False when there is nothing to send or a turn runs there."""
        text = text.strip()
        if (not text and not attached) or session_id in self._turns:
            return False
        folder = self.attachments_dir / str(session_id)
        kept = [attachments.move(attachment, folder) for attachment in attached]
        message_id = self.store.add_message(
            session_id, "user", user_content.prompt_content(text, kept)
        )
        for attachment in kept:
            for path in attachments.files_of(attachment):
                self.store.add_attachment(
                    session_id,
                    path,
                    attachment.media_type,
                    attachment.width,
                    attachment.height,
                    message_id=message_id,
                )
        self._show_prompt(message_id)
        self._start(session_id, self._continue(session_id))
        return True

    def _show_prompt(self, message_id: int) -> None:
        message = self.store.message(message_id)
        assert message is not None
        # The same event a reopened chat replays, so the message looks the same both ways.
        self._emit(prompt_event(message))
        self._emit(
            MessageCommitted(
                session_id=message.session_id,
                message_id=message_id,
                role="user",
                status="complete",
            )
        )

    def retry(self, session_id: int) -> bool:
        """Answer the stored history again (Retry on an error card)."""
        if session_id in self._turns:
            return False
        self._start(session_id, self._continue(session_id))
        return True

    def last_prompt(self, session_id: int) -> StoredMessage | None:
        """The person's newest message (what Regenerate answers again)."""
        for message in reversed(self.store.messages(session_id)):
            if message.role == "user" and user_content.is_prompt(message.content):
                return message
        return None

    def can_regenerate(self, session_id: int) -> bool:
        """Whether the newest message has an answer to replace (with none, Retry is the way)."""
        if session_id in self._turns:
            return False
        messages = self.store.messages(session_id)
        prompt = self.last_prompt(session_id)
        return prompt is not None and messages[-1].id != prompt.id

    def regenerate(self, session_id: int) -> bool:
        """Answer the newest message afresh; the earlier answer is kept as an earlier version."""
        prompt = self.last_prompt(session_id) if session_id not in self._turns else None
        if prompt is None:
            return False
        self._replace(session_id, prompt.id, prompt.content)
        return True

    def edit(self, session_id: int, message_id: int, text: str) -> bool:
        """Send a new version of one of the person's messages (its attachments stay); it and
        everything after it are kept as the earlier version, and no longer sent."""
        message = self.store.message(message_id)
        if (
            session_id in self._turns
            or message is None
            or message.session_id != session_id
            or message.superseded_by is not None
            or message.role != "user"
            or not user_content.is_prompt(message.content)
        ):
            return False
        content = user_content.with_text(message.content, text.strip())
        if not user_content.is_prompt(content):
            return False
        self._replace(session_id, message_id, content)
        return True

    def _replace(self, session_id: int, message_id: int, content: list[dict[str, Any]]) -> None:
        self.store.replace_from(session_id, message_id, content)
        self._emit(HistoryReplaced(session_id=session_id))
        self._start(session_id, self._continue(session_id))

    def use_version(self, session_id: int, message_id: int) -> bool:
        """Make an earlier version (its prompt `message_id`) the chat's current one again: its
        prompt and answers are what the thread shows and the model reads from now on, and the
        version that was current becomes an earlier one. False while a reply runs there, or
        when it is not an earlier version of a message in the chat."""
        if session_id in self._turns:
            return False
        links = versions.use_version(self.store.messages(session_id, replaced=True), message_id)
        if not links:
            return False
        self.store.relink(session_id, links)
        self._emit(HistoryReplaced(session_id=session_id))
        return True

    def can_continue(self, session_id: int) -> bool:
        """Whether the newest reply was stopped or cut off at the token limit."""
        if session_id in self._turns:
            return False
        messages = self.store.messages(session_id)
        if not messages:
            return False
        last = messages[-1]
        if last.role == "assistant":
            return last.status == "stopped" or last.stop_reason == "max_tokens"
        # Stopped while tools ran: their results are the last word.
        return any(block.get("type") == "tool_result" for block in last.content)

    def continue_reply(self, session_id: int) -> bool:
        """Ask Claude to go on from where its reply was stopped or cut off."""
        if not self.can_continue(session_id):
            return False
        self.store.add_message(session_id, "user", user_content.continue_content())
        self._emit(ReplyContinued(session_id=session_id))
        self._start(session_id, self._continue(session_id))
        return True

    def run_work(
        self, session_id: int, work: Callable[[Callable[[AgentEvent], None]], Awaitable[None]]
    ) -> bool:
        """Run other work as the chat's turn (a routine's run): its events reach every
        listener, Stop cancels it, and quitting stops it like a reply. False while a turn
        runs there."""
        if session_id in self._turns:
            return False
        self._start(session_id, _awaited(work(self._emit)))
        return True

    def show_prompt(self, session_id: int, text: str) -> int:
        """Store a message as the person's and show it (a routine's task, a step's words)."""
        message_id = self.store.add_message(
            session_id, "user", user_content.prompt_content(text, [])
        )
        self._show_prompt(message_id)
        return message_id

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

    async def _continue(self, session_id: int) -> None:
        agent = await self._agent()
        await agent.continue_turn(session_id, self._emit)

    def _start(self, session_id: int, turn: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(turn)
        self._turns[session_id] = task
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
        if stopped:
            self._emit(TurnStopped(session_id=session_id))
        self._emit(TurnRunning(session_id=session_id, running=False, stopped=stopped))

    async def shutdown(self) -> None:
        """On quit: stop running replies and wait until their partial text is saved."""
        tasks = [*self._turns.values(), *self._deleting]
        for task in self._turns.values():
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _awaited(work: Awaitable[None]) -> None:
    await work

"""`deskhand mcp`'s way to the running window's approval sheet, over the command-line socket.

A call that needs the person's approval goes first to the Deskhand window running on the same
data dir: it shows its own sheet, naming the MCP client that asks, and sends the person's answer
back (`desktop/command/protocol.py`, an `ask` request). Only the person's answer can allow; if the window
closes, the socket drops or the answer is not understood, the call is refused. A window that
has no sheet to show (or none at all) leaves the question to the MCP client or a refusal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

from pydantic import ValidationError

from desktop.calls.permissions import NO_APPROVER, Answer, ToolCall
from desktop.command.code_signature import trusted_peer
from desktop.command.protocol import AskRequest, Reply, ServerInfo, read_info

log = logging.getLogger(__name__)

__all__ = ["WINDOW_GONE", "WindowAsk"]

CONNECT_LIMIT = 3.0  # seconds to reach the window's socket
WINDOW_GONE = "Deskhand's window went away before the person answered; nothing ran."


class WindowAsk:
    """A connection to the running window, for one question."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, info: ServerInfo
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._info = info

    @classmethod
    async def connect(cls, root: Path) -> WindowAsk | None:
        """The running window on this data dir, or None when none answers."""
        info = await asyncio.to_thread(read_info, root)
        if info is None:
            return None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_unix_connection(info.socket, limit=1 << 20), CONNECT_LIMIT
            )
        except (OSError, TimeoutError):
            return None
        asker = cls(reader, writer, info)
        sock = writer.get_extra_info("socket")
        if sock is None or not await trusted_peer(sock):  # a signed Deskhand's peer must be too
            log.warning("the window's socket is held by a program not signed like Deskhand")
            await asker.close()
            return None
        return asker

    async def ask(self, call: ToolCall, client: str) -> Answer:
        """The person's answer in the window; a refusal when anything goes wrong on the way.
        `by="mode"` with NO_APPROVER means the window could not show a sheet."""
        request = AskRequest(token=self._info.token, kind="ask", client=client, call=call)
        try:
            self._writer.write(request.model_dump_json().encode() + b"\n")
            await self._writer.drain()
            while True:
                line = await self._reader.readline()
                if not line:
                    return Answer(allow=False, by="stop", reason=WINDOW_GONE)
                reply = Reply.model_validate_json(line)
                if reply.answer is not None:
                    return reply.answer
                if reply.result is not None:  # the window refused the request itself
                    log.warning("the window did not take the question: %s", reply.result.error)
                    return Answer(allow=False, by="stop", reason=reply.result.error or WINDOW_GONE)
        except (OSError, ValidationError, ValueError):
            return Answer(allow=False, by="stop", reason=WINDOW_GONE)
        finally:
            await self.close()

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()


def could_not_ask(answer: Answer) -> bool:
    """The window had no sheet to show: the question may go elsewhere."""
    return answer.by == "mode" and answer.reason == NO_APPROVER

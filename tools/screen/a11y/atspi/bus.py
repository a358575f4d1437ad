"""A D-Bus client for the accessibility bus that sends many calls at once.

Reading an accessible tree is hundreds of small method calls. Every call made in one turn of the
event loop is encoded into one buffer and written once (`dbus_wire` encodes and decodes), and
replies are matched to their calls by serial as they arrive: a traversal costs one round trip
per tree level, not one per call. `batch` waits for a whole level with one timer. jeepney finds
the socket in the address and authenticates; the bus's `Hello` is the first call.

Every call has a time limit: an application that hangs makes its calls fail, not the caller wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Sequence
from typing import Any

from jeepney.auth import BEGIN, Authenticator
from jeepney.bus import get_bus

from tools.screen.a11y.dbus_wire import (
    ERROR,
    METHOD_RETURN,
    Reply,
    encode_call,
    message_size,
    read_reply,
)
from tools.screen.errors import ScreenError

log = logging.getLogger(__name__)

__all__ = ["CALL_LIMIT", "BusClient", "BusError", "Call"]

CALL_LIMIT = 2.0  # seconds an application may take to answer a call (or a batch of them)
READ_SIZE = 1 << 16
DBUS = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")

# (bus name, object path, interface, method[, signature, body])
Call = tuple[Any, ...]


class BusError(ScreenError):
    """A call failed: an error reply, no reply in time, or the connection is gone."""

    def __init__(self, name: str = "") -> None:
        super().__init__(name or "D-Bus call failed")
        self.name = name


class _Batch:
    """Replies to a batch of calls, and one future that is done when the last arrived."""

    def __init__(self, size: int, loop: asyncio.AbstractEventLoop) -> None:
        self.replies: list[Reply | None] = [None] * size
        self.missing = size
        self.done: asyncio.Future[None] = loop.create_future()
        if size == 0:
            self.done.set_result(None)

    def arrived(self, index: int, reply: Reply | None) -> None:
        self.replies[index] = reply
        self.missing -= 1
        if self.missing <= 0 and not self.done.done():
            self.done.set_result(None)


class BusClient:
    """One connection to a bus; any number of tasks may call through it at once."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._serials = itertools.count(1)
        self._waiting: dict[int, tuple[_Batch, int]] = {}
        self._outgoing: list[bytes] = []
        self._flush_scheduled = False
        self._closed = False
        self._receiver = asyncio.ensure_future(self._receive())

    @classmethod
    async def open(cls, address: str) -> BusClient:
        """Connect, authenticate and say Hello to the bus at `address` (a D-Bus address)."""
        try:
            async with asyncio.timeout(CALL_LIMIT * 2):
                reader, writer = await asyncio.open_unix_connection(get_bus(address))
                authenticator = Authenticator()
                for request in authenticator:
                    writer.write(request)
                    await writer.drain()
                    answer = await reader.read(1024)
                    if not answer:
                        raise EOFError("closed while authenticating")
                    authenticator.feed(answer)
                writer.write(BEGIN)
                client = cls(reader, writer)
                await client.call(*DBUS, "Hello")
        except (OSError, EOFError, RuntimeError, TimeoutError, ValueError, KeyError) as exc:
            raise BusError("connect") from exc
        return client

    @property
    def closed(self) -> bool:
        return self._closed or self._receiver.done()

    def _queue(self, call: Call, batch: _Batch, index: int) -> None:
        serial = next(self._serials)
        self._waiting[serial] = (batch, index)
        self._outgoing.append(encode_call(serial, *call))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    async def batch(
        self, calls: Sequence[Call], *, limit: float = CALL_LIMIT
    ) -> list[tuple[Any, ...] | None]:
        """Many calls at once: each reply's body, or None where that call failed or did not
        answer within `limit` (for the whole batch)."""
        batch = _Batch(len(calls), asyncio.get_running_loop())
        if self.closed:
            raise BusError("closed")
        for index, call in enumerate(calls):
            self._queue(call, batch, index)
        try:
            await asyncio.wait_for(asyncio.shield(batch.done), limit)
        except TimeoutError:
            log.info(
                "%d of %d accessibility calls did not answer in time", batch.missing, len(calls)
            )
        finally:
            if batch.missing:  # stop waiting for the ones that did not answer
                for serial in [s for s, (b, _) in self._waiting.items() if b is batch]:
                    del self._waiting[serial]
        return [
            reply.body if reply is not None and reply.kind == METHOD_RETURN else None
            for reply in batch.replies
        ]

    async def call(
        self,
        bus_name: str,
        path: str,
        interface: str,
        method: str,
        signature: str = "",
        body: tuple[Any, ...] = (),
        *,
        limit: float = CALL_LIMIT,
    ) -> tuple[Any, ...]:
        """The body of the reply to one method call; raises `BusError`."""
        batch = _Batch(1, asyncio.get_running_loop())
        if self.closed:
            raise BusError("closed")
        self._queue((bus_name, path, interface, method, signature, body), batch, 0)
        try:
            await asyncio.wait_for(asyncio.shield(batch.done), limit)
        except TimeoutError as exc:
            self._waiting = {s: w for s, w in self._waiting.items() if w[0] is not batch}
            raise BusError("timeout") from exc
        reply = batch.replies[0]
        if reply is None:
            raise BusError("closed")
        if reply.kind == ERROR:
            raise BusError(reply.error)
        return reply.body

    async def get(self, bus_name: str, path: str, interface: str, name: str) -> Any:
        """One property's value."""
        (variant,) = await self.call(
            bus_name, path, "org.freedesktop.DBus.Properties", "Get", "ss", (interface, name)
        )
        return variant[1]

    def _flush(self) -> None:
        self._flush_scheduled = False
        if not self._outgoing or self.closed:
            return
        data, self._outgoing = b"".join(self._outgoing), []
        try:
            self._writer.write(data)
        except (OSError, RuntimeError):
            log.warning("the accessibility bus connection broke while writing", exc_info=True)
            self._fail_all()

    async def _receive(self) -> None:
        buffer = b""
        try:
            while True:
                data = await self._reader.read(READ_SIZE)
                if not data:
                    return
                buffer = buffer + data if buffer else data
                start = 0
                while (size := message_size(buffer[start : start + 16])) is not None:
                    if len(buffer) - start < size:
                        break
                    self._dispatch(read_reply(buffer[start : start + size]))
                    start += size
                buffer = buffer[start:]
        except (OSError, ValueError, IndexError, UnicodeDecodeError):
            log.warning("the accessibility bus connection broke", exc_info=True)
        finally:
            self._fail_all()

    def _dispatch(self, reply: Reply) -> None:
        if reply.kind not in (METHOD_RETURN, ERROR) or reply.reply_serial is None:
            return  # signals: nothing here listens to them
        waiting = self._waiting.pop(reply.reply_serial, None)
        if waiting is not None:
            batch, index = waiting
            batch.arrived(index, reply)

    def _fail_all(self) -> None:
        self._closed = True
        waiting, self._waiting = self._waiting, {}
        for batch, index in waiting.values():
            batch.arrived(index, None)

    async def close(self) -> None:
        self._closed = True
        self._receiver.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._receiver
        self._fail_all()
        with contextlib.suppress(Exception):
            self._writer.close()
            await self._writer.wait_closed()

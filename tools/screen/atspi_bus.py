"""A D-Bus client for the accessibility bus that sends many calls at once (jeepney underneath).

Reading an accessible tree is hundreds of small method calls. jeepney's own router sends one
message per write and waits for the socket to drain each time; here every call made in one turn
of the event loop is serialised into one buffer and written once, and replies are matched to
their calls by serial as they arrive. A traversal then costs one round trip per tree level, not
one per call. jeepney does the rest: the address, authentication, `Hello`, (de)serialisation.

Every call has a time limit: an application that hangs makes its calls fail, not the caller wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from typing import Any

from jeepney import DBusAddress, HeaderFields, Message, MessageType, new_method_call
from jeepney.io.asyncio import open_dbus_connection

from tools.screen.errors import ScreenError

log = logging.getLogger(__name__)

__all__ = ["CALL_LIMIT", "BusClient", "BusError"]

CALL_LIMIT = 2.0  # seconds an application may take to answer one call
READ_SIZE = 1 << 16


class BusError(ScreenError):
    """A call failed: an error reply, no reply in time, or the connection is gone."""

    def __init__(self, name: str = "") -> None:
        super().__init__(name or "D-Bus call failed")
        self.name = name


class BusClient:
    """One connection to a bus; `await client.call(...)` from any number of tasks at once."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._serials = itertools.count(1_000)  # jeepney used the first few for Hello
        self._waiting: dict[int, asyncio.Future[Message]] = {}
        self._outgoing: list[bytes] = []
        self._flush_scheduled = False
        self._closed = False
        self._receiver = asyncio.ensure_future(self._receive())

    @classmethod
    async def open(cls, address: str) -> BusClient:
        """Connect and authenticate to the bus at `address` (a D-Bus address string)."""
        try:
            connection = await asyncio.wait_for(open_dbus_connection(address), CALL_LIMIT * 2)
        except (OSError, EOFError, RuntimeError, TimeoutError, ValueError) as exc:
            raise BusError("connect") from exc
        return cls(connection)

    @property
    def closed(self) -> bool:
        return self._closed or self._receiver.done()

    def send(self, message: Message) -> asyncio.Future[Message]:
        """Queue `message` (a method call) for the next write; its reply arrives in the future."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Message] = loop.create_future()
        if self.closed:
            future.set_exception(BusError("closed"))
            return future
        serial = next(self._serials)
        self._waiting[serial] = future
        # A call given up on (its time ran out) stops waiting for its reply.
        future.add_done_callback(lambda _done: self._waiting.pop(serial, None))
        self._outgoing.append(message.serialise(serial))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            loop.call_soon(self._flush)
        return future

    async def call(
        self,
        bus_name: str,
        path: str,
        interface: str,
        method: str,
        signature: str | None = None,
        body: tuple[Any, ...] = (),
        *,
        limit: float = CALL_LIMIT,
    ) -> tuple[Any, ...]:
        """The body of the reply to one method call; raises `BusError`."""
        address = DBusAddress(path, bus_name=bus_name, interface=interface)
        future = self.send(new_method_call(address, method, signature, body))
        try:
            reply = await asyncio.wait_for(future, limit)
        except TimeoutError as exc:
            raise BusError("timeout") from exc
        if reply.header.message_type is MessageType.error:
            raise BusError(str(reply.header.fields.get(HeaderFields.error_name, "")))
        return tuple(reply.body)

    async def get(self, bus_name: str, path: str, interface: str, name: str) -> Any:
        """One property's value."""
        (variant,) = await self.call(
            bus_name,
            path,
            "org.freedesktop.DBus.Properties",
            "Get",
            "ss",
            (interface, name),
        )
        return variant[1]

    def _flush(self) -> None:
        self._flush_scheduled = False
        if not self._outgoing or self.closed:
            return
        data, self._outgoing = b"".join(self._outgoing), []
        try:
            self._connection.writer.write(data)
        except (OSError, RuntimeError):
            log.warning("the accessibility bus connection broke while writing", exc_info=True)
            self._fail_all()

    async def _receive(self) -> None:
        reader, parser = self._connection.reader, self._connection.parser
        try:
            while True:
                data = await reader.read(READ_SIZE)
                if not data:
                    return
                parser.add_data(data)
                while (message := parser.get_next_message()) is not None:
                    self._dispatch(message)
        except (OSError, ValueError):
            log.warning("the accessibility bus connection broke", exc_info=True)
        finally:
            self._fail_all()

    def _dispatch(self, message: Message) -> None:
        if message.header.message_type not in (MessageType.method_return, MessageType.error):
            return  # signals: nothing here listens to them
        serial = message.header.fields.get(HeaderFields.reply_serial)
        future = self._waiting.pop(serial, None) if serial is not None else None
        if future is not None and not future.done():
            future.set_result(message)

    def _fail_all(self) -> None:
        self._closed = True
        waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_exception(BusError("closed"))

    async def close(self) -> None:
        self._closed = True
        self._receiver.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._receiver
        self._fail_all()
        with contextlib.suppress(Exception):
            self._connection.writer.close()
            await self._connection.writer.wait_closed()

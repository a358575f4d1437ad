"""Desktop notifications through the freedesktop notification service on the session bus
(Linux), and the person's click on one.

Each notification is posted with a default action, so clicking it makes the service send
`ActionInvoked(id, "default")`; the chat it was about is handed to `clicked`. The bus is
opened at the first notification, never at start, and stays open to hear the clicks.
Title and body travel as D-Bus string arguments: nothing is parsed as code.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable

from jeepney import DBusAddress, HeaderFields, Message, MessageType, new_method_call
from jeepney.bus_messages import MatchRule, message_bus
from jeepney.io.asyncio import DBusConnection, DBusRouter, Proxy, open_dbus_connection
from jeepney.io.common import FilterHandle, RouterClosed

log = logging.getLogger(__name__)

NOTIFY_SERVICE = "org.freedesktop.Notifications"
NOTIFY_PATH = "/org/freedesktop/Notifications"
NOTIFY_TIMEOUT_MS = 8000
CALL_TIMEOUT_S = 5.0  # a service that does not answer is treated as absent
REMEMBERED = 32  # notifications whose click is still awaited (older ones have long gone)
DEFAULT_ACTION = "default"

_SERVICE = DBusAddress(NOTIFY_PATH, bus_name=NOTIFY_SERVICE, interface=NOTIFY_SERVICE)
_SIGNALS = MatchRule(type="signal", interface=NOTIFY_SERVICE, path=NOTIFY_PATH)


class DesktopNotifications:
    """The notification service, reached once and kept; `clicked(session_id)` on a click."""

    def __init__(self, clicked: Callable[[int], None]) -> None:
        self._clicked = clicked
        self._connection: DBusConnection | None = None
        self._router: DBusRouter | None = None
        self._signals: FilterHandle | None = None
        self._listener: asyncio.Task[None] | None = None
        self._connecting = asyncio.Lock()
        self._posted: OrderedDict[int, int] = OrderedDict()  # notification id -> chat

    async def notify(self, title: str, body: str, session_id: int) -> bool:
        """Post a notification about a chat; False when no service took it."""
        message = new_method_call(
            _SERVICE,
            "Notify",
            "susssasa{sv}i",
            (
                "Deskhand",
                0,
                "deskhand",
                title,
                body,
                [DEFAULT_ACTION, "Open"],
                {},
                NOTIFY_TIMEOUT_MS,
            ),
        )
        try:
            router = await self._connect()
            reply = await asyncio.wait_for(router.send_and_get_reply(message), CALL_TIMEOUT_S)
        except (OSError, EOFError, KeyError, ValueError, TimeoutError, RouterClosed):
            # No session bus here (KeyError: no address), or it went away.
            log.info("the notification service could not be reached", exc_info=True)
            await self.close()
            return False
        if reply.header.message_type is not MessageType.method_return:
            log.info("the notification service refused a notification: %s", reply.body)
            return False
        notification_id = int(reply.body[0])
        self._posted[notification_id] = session_id
        while len(self._posted) > REMEMBERED:
            self._posted.popitem(last=False)
        return True

    async def _connect(self) -> DBusRouter:
        async with self._connecting:
            if self._router is None:
                connection = await open_dbus_connection("SESSION")
                router = DBusRouter(connection)
                self._connection, self._router = connection, router
                # Subscribed before the first Notify, so no click can come before we listen.
                self._signals = router.filter(_SIGNALS, queue=asyncio.Queue())
                self._listener = asyncio.ensure_future(self._listen(self._signals.queue))
                await asyncio.wait_for(
                    Proxy(message_bus, router).AddMatch(_SIGNALS), CALL_TIMEOUT_S
                )
            return self._router

    async def _listen(self, queue: asyncio.Queue[Message]) -> None:
        while True:
            signal = await queue.get()
            if signal.header.fields.get(HeaderFields.member) != "ActionInvoked":
                continue
            notification_id, action = signal.body
            session_id = self._posted.pop(int(notification_id), None)
            if action == DEFAULT_ACTION and session_id is not None:
                self._clicked(session_id)

    async def close(self) -> None:
        """Stop listening and leave the bus (at quit, or when it failed)."""
        listener, router, connection = self._listener, self._router, self._connection
        self._listener = self._router = self._connection = None
        if self._signals is not None:
            self._signals.close()
            self._signals = None
        if listener is not None:
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)
        try:
            if router is not None:
                await router.__aexit__(None, None, None)
            if connection is not None:
                await connection.close()
        except (OSError, EOFError, RouterClosed):
            pass  # the bus was gone already

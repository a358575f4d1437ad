"""A stand-in for the desktop's notification service (GNOME's, KDE's, dunst…) on a test's
own session bus: it owns `org.freedesktop.Notifications`, keeps every notification it is
sent, and, when the test says so, reports a click on one as the real services do
(`ActionInvoked(id, "default")`, then `NotificationClosed(id, 2)`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from jeepney import DBusAddress, HeaderFields, MessageType, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

SERVICE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
CLOSED_BY_CLICK = 2


@dataclass
class Posted:
    id: int
    title: str
    body: str
    actions: list[str]


class NotificationService:
    """Serves on the bus at `address` from a thread until `close()`."""

    def __init__(self, address: str) -> None:
        self.connection = open_dbus_connection(address)
        reply = self.connection.send_and_get_reply(message_bus.RequestName(SERVICE), timeout=5)
        assert reply.body == (1,), "another notification service owns the name"
        self.posted: list[Posted] = []
        self._next_id = 41
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                message = self.connection.receive(timeout=0.1)
            except TimeoutError:
                continue
            except (OSError, EOFError):
                return
            fields = message.header.fields
            if message.header.message_type is not MessageType.method_call:
                continue
            if fields.get(HeaderFields.member) == "Notify":
                body: Any = message.body
                with self._lock:
                    self._next_id += 1
                    posted = Posted(self._next_id, body[3], body[4], list(body[5]))
                    self.posted.append(posted)
                self.connection.send(new_method_return(message, "u", (posted.id,)))
            elif fields.get(HeaderFields.member) == "GetCapabilities":
                self.connection.send(new_method_return(message, "as", (["actions", "body"],)))

    def click(self, notification_id: int) -> None:
        """The person clicks the notification's body."""
        emitter = DBusAddress(PATH, interface=SERVICE)
        self.connection.send(
            new_signal(emitter, "ActionInvoked", "us", (notification_id, "default"))
        )
        self.connection.send(
            new_signal(emitter, "NotificationClosed", "uu", (notification_id, CLOSED_BY_CLICK))
        )

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.connection.close()

"""A TCP listener on a local address that records every connection: the "must never be reached".

It speaks no protocol: it accepts, keeps the first bytes each connection sends, and closes.
Whatever reached it (HTTP, a WebSocket handshake, TURN, a TLS hello) counts, so a test that
asserts `connections == []` shows that nothing of the browser's got through by any route.
"""

from __future__ import annotations

import socket
import threading
from types import TracebackType


class Listener:
    """`with Listener() as sentinel:` — `sentinel.port`, `sentinel.connections` (first bytes each)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.connections: list[bytes] = []
        self._socket = socket.create_server((host, 0))
        self._socket.settimeout(0.2)
        self.port = self._socket.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def url(self, path: str = "", scheme: str = "http", host: str | None = None) -> str:
        return f"{scheme}://{host or self.host}:{self.port}/{path.lstrip('/')}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _address = self._socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with connection:
                connection.settimeout(0.5)
                try:
                    first = connection.recv(200)
                except OSError:
                    first = b""
                self.connections.append(first or b"(connected, sent nothing)")

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._socket.close()

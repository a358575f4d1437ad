"""An X connection's events as they come, on a thread of its own, until told to stop.

python-xlib blocks in `next_event`; a `select` with a timeout lets the thread look at its stop
flag between events. The screen's input watcher and the app's X11 shortcut both read this way.
"""

from __future__ import annotations

import select
import threading
from collections.abc import Iterator
from typing import Any

from Xlib import display as xdisplay

POLL = 0.25  # seconds between looks at the stop flag while no event comes


def events_until(stop: threading.Event, connection: xdisplay.Display) -> Iterator[Any]:
    """Each event `connection` receives, until `stop` is set."""
    while not stop.is_set():
        ready, _, _ = select.select([connection.fileno()], [], [], POLL)
        if not ready and not connection.pending_events():
            continue
        while connection.pending_events():
            yield connection.next_event()

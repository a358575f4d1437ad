"""What an input watcher offers: start and stop; it reports on a thread of its own."""

from __future__ import annotations

from typing import Protocol


class InputWatcher(Protocol):
    """Reports each of the person's own input events (throttled) to the callable it was given,
    from its own thread. `start` and `stop` never block for long."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

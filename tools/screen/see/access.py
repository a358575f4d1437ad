"""`ScreenAccess`: what the `screen` tool works through, given to it as one typed object.

The app (`ScreenElements`) or a test fills it once. The accessibility backend and the worker
may come later (the app opens them once it found the screen usable): the tool reads them on
every call, so setting them here is enough.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from tools.screen.a11y.accessible import AccessibilityBackend
from tools.screen.events import CaptureHook, ScreenEvent
from tools.screen.geometry import Rect
from tools.screen.hand import Hand
from tools.screen.worker import ScreenWorker

__all__ = ["Looks", "ScreenAccess"]


class Looks(Protocol):
    """Whether the person let Claude look at the screen in a chat (shared with the computer tool)."""

    def seen(self, session_id: int) -> bool: ...

    def saw(self, session_id: int) -> None: ...


def _own_process() -> frozenset[int]:
    return frozenset({os.getpid()})


@dataclass
class ScreenAccess:
    """How the `screen` tool reads other apps, and what it tells the app."""

    accessibility: AccessibilityBackend | None = None  # reads other apps' elements
    worker: ScreenWorker | None = None  # the thread that captures and sends input
    # Whether the tool is offered now (the screen usable, other apps' elements readable).
    available: Callable[[], bool] = lambda: True
    # Deskhand's own windows as global rectangles, and its processes: never acted on.
    own_windows: Callable[[], Iterable[Rect | tuple[int, int, int, int]]] = list
    own_pids: frozenset[int] = field(default_factory=_own_process)
    looks: Looks | None = None  # the first look in a chat, shared with the computer tool
    on_event: Callable[[int, ScreenEvent], None] | None = None  # (chat id, event): the visualizer
    before_capture: CaptureHook | None = None  # take the visualizer out of the pixels
    after_capture: CaptureHook | None = None
    # Who has the controls in a chat (None: nobody to wait for, as for the person's own
    # command-line actions): input waits while the person has them.
    hand_for: Callable[[int], Hand | None] = lambda _session_id: None

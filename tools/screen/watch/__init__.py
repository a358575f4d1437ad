"""The person's own input, told apart from Deskhand's synthetic events (see `tools/screen/hand.py`).

- `x11.py`: XRecord sees which X client sent each XTest event (ours, or another program's, such
  as a remote desktop), and XInput2 raw events show input from real devices.
- `macos.py`: a listen-only Quartz event tap; events Deskhand posts carry its process id.
- `watcher_for()` picks the one this session can use, or None where none can run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from tools.screen.hand import PersonInput
from tools.screen.watch.base import InputWatcher

__all__ = ["InputWatcher", "watcher_for"]


def watcher_for(report: Callable[[PersonInput], None]) -> InputWatcher | None:
    """A watcher for this session (not started), or None where the person's input cannot be
    told apart (a Wayland session without X11, say): then only Stop and Take over work."""
    if sys.platform == "darwin":
        from tools.screen.watch.macos import QuartzWatcher

        return QuartzWatcher(report)
    if os.environ.get("DISPLAY"):
        from tools.screen.watch.x11 import X11Watcher

        return X11Watcher(report)
    return None

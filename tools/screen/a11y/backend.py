"""Which accessibility backend this computer has: AT-SPI on Linux, the Accessibility API on macOS.

`accessibility_status()` says whether other apps' elements can be read here, and if not why and
what to do (for Settings and `deskhand doctor`); `open_accessibility(worker)` opens the backend
the `screen` tool reads with and the `Inspector` the gate asks. Each platform's module is
imported only on its platform (AT-SPI needs jeepney, AX needs pyobjc).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Collection

from tools.screen.a11y.accessible import AccessibilityBackend, AccessibilityStatus
from tools.screen.a11y.elements import Inspector
from tools.screen.backends.base import MISSING_LIBRARIES, REINSTALL
from tools.screen.worker import ScreenWorker

__all__ = ["accessibility_status", "open_accessibility"]

ELSEWHERE = AccessibilityStatus(
    available=False,
    reason="Other apps' buttons and fields can be read on macOS and on Linux only.",
    fix="Use Deskhand on a Mac or on a Linux desktop.",
)
MISSING = AccessibilityStatus(available=False, reason=MISSING_LIBRARIES, fix=REINSTALL)


async def accessibility_status() -> AccessibilityStatus:
    if sys.platform == "darwin":
        try:
            from tools.screen.a11y.ax import reader as ax
        except ImportError:
            return MISSING
        return await asyncio.to_thread(ax.status)
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        try:
            from tools.screen.a11y.atspi import reader as atspi
        except ImportError:
            return MISSING
        return await atspi.accessibility_status()
    return ELSEWHERE


def open_accessibility(
    worker: ScreenWorker, *, own_pids: Collection[int] = ()
) -> tuple[AccessibilityBackend, Inspector]:
    """The backend and the gate's inspector for this computer (connecting lazily, on first
    use); the inspector also watches the window a call acts on (`effect.Watcher`). Call it
    after `accessibility_status()` said the service is available."""
    if sys.platform == "darwin":
        from tools.screen.a11y.ax.reader import AxAccessibility
        from tools.screen.a11y.ax.watching import AxWatchingInspector

        ax = AxAccessibility()
        return ax, AxWatchingInspector(ax, own_pids=own_pids)
    from tools.screen.a11y.atspi.watching import AtspiWatchingInspector, RefreshingAccessibility

    accessibility = RefreshingAccessibility()
    return accessibility, AtspiWatchingInspector(accessibility, worker, own_pids=own_pids)

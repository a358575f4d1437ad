"""The screen the model sees and uses: the SDK's computer toolset on this computer's displays.

Public pieces:

- `ScreenComputer`: the toolset (`computer_toolset_20260801`); see `driver` for how the app
  calls it, `judge` for the gate, `own_windows` for keeping it off the app's windows, and
  `refind.py` for the target a call keeps by meaning and `find_again` (`a11y/find.py` looks).
- `screen_status()`: whether the screen can be used here, and if not why and what to do
  (for Settings and `deskhand doctor`; blocks, so call it in a thread).
- `Display` and `describe_displays`: the displays in their documented order.
- `ScreenEvent`: what the driver is about to do, for the app's overlay.
- `Element` / `Inspector`: the accessibility seam the gate reads (`a11y/`); `atspi.reader.
  AtspiInspector` answers it on Linux (AT-SPI over D-Bus: `atspi/reader.py`, `atspi/bus.py`,
  `dbus_wire.py`), `ax.reader.AxInspector` on macOS (the Accessibility API: `ax/reader.py`, pure
  parts in `ax/tables.py` and `ax/read.py`); `a11y/backend.py` picks the backend,
  `accessible.py` is the element model both read into. `a11y/effect.py` says what an action
  changed in the window it acted on (`Effect:` lines, both platforms); the inspectors that also
  watch that window (`atspi/watching.py`, `ax/watching.py`) are what `backend.py` opens.
- `see.tool.ScreenTool`: the `screen` function tool (windows, see with ids, wait, click /
  set_value / scroll_to by id), with `see/targets.py` (which window) and `see/snapshot.py` (ids).
- `backends/`: X11 and macOS behind `base.ScreenBackend`; `factory.py` says which one runs here.
- `screen_risk` / `screen_summary`: the gate's risk level and the approval sheet's line (pure).
- `hand.Hand`: who has the controls; the person's own input (`watch/`: XRecord and XInput2 on
  X11, a Quartz tap on macOS) pauses the driver before its next input event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

# Each name loads its module when first used: the app's window imports `tools.screen.hand`
# before it shows, and the driver brings in the SDK (a second to load).
if TYPE_CHECKING:
    from tools.screen.a11y.elements import Element, Inspector
    from tools.screen.backends.base import ScreenBackend, ScreenStatus, ScreenUnavailable
    from tools.screen.backends.factory import screen_status
    from tools.screen.displays import Display, describe_displays
    from tools.screen.driver import OwnWindows, Progress, ScreenComputer, progress_scope
    from tools.screen.errors import ScreenError
    from tools.screen.events import ScreenEvent, ScreenEventSink
    from tools.screen.geometry import Point, Rect
    from tools.screen.risk import screen_action, screen_risk, screen_summary


__all__ = [
    "Display",
    "Element",
    "Inspector",
    "OwnWindows",
    "Point",
    "Progress",
    "Rect",
    "ScreenBackend",
    "ScreenComputer",
    "ScreenError",
    "ScreenEvent",
    "ScreenEventSink",
    "ScreenStatus",
    "ScreenUnavailable",
    "describe_displays",
    "progress_scope",
    "screen_action",
    "screen_risk",
    "screen_status",
    "screen_summary",
]

# The names of `__all__`, each imported from its module when first used.
__getattr__, __dir__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "a11y.elements": ["Element", "Inspector"],
        "backends.base": ["ScreenBackend", "ScreenStatus", "ScreenUnavailable"],
        "backends.factory": ["screen_status"],
        "displays": ["Display", "describe_displays"],
        "driver": ["OwnWindows", "Progress", "ScreenComputer", "progress_scope"],
        "errors": ["ScreenError"],
        "events": ["ScreenEvent", "ScreenEventSink"],
        "geometry": ["Point", "Rect"],
        "risk": ["screen_action", "screen_risk", "screen_summary"],
    },
)[:2]

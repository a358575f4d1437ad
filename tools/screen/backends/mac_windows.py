"""macOS's window list (`CGWindowListCopyWindowInfo`) as the screen tools' `Window`s (pure).

Quartz lists every window on screen, front to back, as a dictionary: its number (the window id
`windows` shows and a target may name), owner's name and process, title (given only with the
Screen Recording permission), layer and bounds in global points. Only ordinary app windows
(layer 0, not transparent, of some size) are targets; menu bar items, the Dock and overlays are
not. Each window's app answers to its name and to its bundle id (`Window.instance`), and the
front-most window of the front-most app has the keyboard focus.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tools.screen.geometry import Rect
from tools.screen.windows import Window

__all__ = ["MIN_SIDE", "windows_from_cg"]

MIN_SIDE = 20  # points: smaller windows are status items and invisible helpers, not targets


def _rect(bounds: Any) -> Rect | None:
    if not isinstance(bounds, Mapping):
        return None
    try:
        x, y = float(bounds["X"]), float(bounds["Y"])
        width, height = float(bounds["Width"]), float(bounds["Height"])
    except (KeyError, TypeError, ValueError):
        return None
    if width < MIN_SIDE or height < MIN_SIDE:
        return None
    return Rect(round(x), round(y), round(width), round(height))


def windows_from_cg(
    infos: Sequence[Mapping[str, Any]],
    bundle_ids: Mapping[int, str],
    front_pid: int | None,
) -> list[Window]:
    """The app windows of a `CGWindowListCopyWindowInfo` answer, front to back. `bundle_ids`:
    each running app's bundle id by process; `front_pid`: the front-most app's process."""
    windows: list[Window] = []
    focused_given = False
    for info in infos:
        if info.get("kCGWindowLayer", 0) != 0 or info.get("kCGWindowAlpha", 1) == 0:
            continue
        if info.get("kCGWindowIsOnscreen") is False:
            continue
        rect = _rect(info.get("kCGWindowBounds"))
        number = info.get("kCGWindowNumber")
        if rect is None or not isinstance(number, int):
            continue
        owner = info.get("kCGWindowOwnerPID")
        pid = owner if isinstance(owner, int) else None
        focused = not focused_given and pid is not None and pid == front_pid
        focused_given = focused_given or focused
        windows.append(
            Window(
                id=number,
                title=str(info.get("kCGWindowName") or ""),
                app=str(info.get("kCGWindowOwnerName") or ""),
                instance=bundle_ids.get(pid, "") if pid is not None else "",
                pid=pid,
                rect=rect,
                focused=focused,
            )
        )
    return windows

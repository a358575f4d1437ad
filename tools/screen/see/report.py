"""The `screen` tool's outcomes as plain values, for programs (`deskhand ui --json`).

The model reads the tool's text; a script reads these: every element, window and screen with
its numbers, never parsed from prose. The shapes are the published schemas' (`schemas/` at the
top of the repository); a change to one is a new schema version.

Coordinates: `global_bounds` and `global` are the desktop's own (`geometry.py`: X11 pixels,
macOS points); `bounds` and `local` are the same rectangle or point relative to the top-left
corner of the screen (display) that holds it, in the same units, with that screen's index
beside them. Screens are in the computer tool's order (`displays.py`: left to right, then top
to bottom), so `screen: 1` means the same display to both tools.

A failure carries a `code` a script can branch on (`CODES` maps the tool's fixed phrases;
targets bring their own) and, where a target matched none or several, the `candidates`.
A secure field's value is never read, so it is never here either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tools.screen import errors
from tools.screen.displays import Display, display_at, primary_display, to_local
from tools.screen.geometry import Point, Rect
from tools.screen.see.snapshot import Item, Snapshot, role_word
from tools.screen.windows import Window, windows_of_app

__all__ = [
    "CODES",
    "code_of",
    "element",
    "placed",
    "screen",
    "screen_of",
    "snapshot",
    "window",
]

# The tool's fixed failure phrases and the code each one answers with.
CODES: dict[str, str] = {
    errors.UNAVAILABLE: "no_display",
    errors.UNEXPECTED: "failed",
    errors.NO_ACCESSIBILITY: "unavailable",
    errors.ACCESSIBILITY_DENIED: "needs_permission",
    errors.NO_WINDOW_LIST: "unavailable",
    errors.NO_SNAPSHOT: "not_found",
    errors.NO_SUCH_ID: "not_found",
    errors.STALE: "stale",
    errors.OWN_ELEMENT: "refused",
    errors.SECURE_VALUE: "refused",
    errors.NEEDS_ID: "bad_input",
    errors.NEEDS_VALUE: "bad_input",
    errors.NEEDS_WHAT: "bad_input",
    errors.NOT_EDITABLE: "bad_input",
    errors.NOT_PRESSED: "failed",
    errors.NOT_REACHABLE: "failed",
    errors.NOT_TYPEABLE: "bad_input",
    errors.NOT_FOCUSED: "failed",
    errors.FOCUS_LEFT: "failed",
    errors.TYPING_STOPPED: "failed",
    errors.NOT_SCROLLED: "failed",
}


def code_of(phrase: str) -> str:
    """The code of one of the tool's failure phrases ("failed" for any other)."""
    return CODES.get(phrase, "failed")


def rect(box: Rect | None) -> dict[str, int] | None:
    if box is None:
        return None
    return {"x": box.x, "y": box.y, "width": box.width, "height": box.height}


def _local_rect(box: Rect, display: Display) -> Rect:
    corner = to_local(display, Point(box.x, box.y))
    return Rect(corner.x, corner.y, box.width, box.height)


def _holding(displays: Sequence[Display], box: Rect) -> Display | None:
    """The screen holding a rectangle's centre, else the one it overlaps most."""
    centre = Point(box.x + box.width // 2, box.y + box.height // 2)
    holding = display_at(displays, centre)
    if holding is not None:
        return holding
    best = max(displays, key=lambda d: d.frame.overlap(box), default=None)
    return best if best is not None and best.frame.overlap(box) > 0 else None


def screen_of(displays: Sequence[Display], box: Rect | None) -> Display | None:
    """The screen an element is on (by its bounds), else the primary one."""
    held = _holding(displays, box) if box is not None else None
    return held or primary_display(displays)


def screen(display: Display) -> dict[str, Any]:
    return {
        "index": display.index,
        "name": display.name,
        "global_bounds": rect(display.frame),
        "scale": display.scale,
        "primary": display.primary,
    }


def window(
    shown: Window,
    displays: Sequence[Display],
    every: Sequence[Window] = (),
    names: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """One window; `index` is its place among its app's windows in `every` (front to back)."""
    every = every or [shown]
    held = _holding(displays, shown.rect)
    app = (names or {}).get(shown.pid or -1) or shown.app
    return {
        "id": shown.id,
        "title": shown.title,
        "app": app,
        "pid": shown.pid,
        "index": windows_of_app(every, shown).index(shown) if shown in every else 0,
        "bounds": rect(_local_rect(shown.rect, held)) if held is not None else None,
        "global_bounds": rect(shown.rect),
        "screen": held.index if held is not None else None,
        "focused": shown.focused,
        "minimized": False,  # only windows on screen are listed
    }


def element(item: Item, display: Display | None) -> dict[str, Any]:
    """One snapshot element; `bounds` relative to `display`, the screen the snapshot is of."""
    node = item.node
    box = node.bounds
    local = _local_rect(box, display) if box is not None and display is not None else None
    return {
        "id": item.id,
        "role": role_word(node),
        "type": node.kind,
        "label": node.name,
        "value": None if node.secure else node.value,
        "secure": node.secure,
        "enabled": node.enabled,
        "focused": node.focused,
        "showing": node.showing,
        "bounds": rect(local),
        "global_bounds": rect(box),
        "app": item.app,
        "pid": item.pid,
        "window": item.window.id if item.window is not None else None,
    }


def snapshot(
    taken: Snapshot,
    display: Display,
    shown: Window | None,
    bundle_ids: Mapping[int, str],
    names: Mapping[int, str],
) -> dict[str, Any]:
    """A `see`: the snapshot's id, what it is of, and every element."""
    about = None
    if shown is not None:
        about = {
            "id": shown.id,
            "title": shown.title,
            "app": names.get(shown.pid or -1) or shown.app,
            "pid": shown.pid,
            "bundle_id": bundle_ids.get(shown.pid or -1) or None,
        }
    return {
        "snapshot": taken.id,
        "window": about,
        "screen": {  # a screen's bounds are on the desktop: both name the same rectangle
            "index": display.index,
            "bounds": rect(display.frame),
            "global_bounds": rect(display.frame),
            "scale": display.scale,
        },
        "elements": [element(item, display) for item in taken.items.values()],
        "truncated": taken.cut,
    }


def placed(point: Point | None, displays: Sequence[Display]) -> dict[str, Any]:
    """Where an action landed: the screen's index, and the point local to it and global."""
    held = display_at(displays, point) if point is not None else None
    if point is None or held is None:
        return {"screen": None, "local": None, "global": _point(point)}
    return {"screen": held.index, "local": _point(to_local(held, point)), "global": _point(point)}


def _point(point: Point | None) -> dict[str, int] | None:
    return {"x": point.x, "y": point.y} if point is not None else None

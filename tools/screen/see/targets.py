"""Which window (or display) a `see`, `wait` or screenshot is about: the model names it, this picks it.

A target is one of: the front-most window (nothing named); an application by name (the name
AT-SPI gives it, or its window's `WM_CLASS`), optionally with a window index within it (0 is its
front-most window, as `windows` numbers them) or a text its window's title contains; a window
whose title contains a text; a window id as `windows` lists it; a display index. No match, or
several where one is needed, is a `TargetError` whose message lists the candidates.

Deskhand's own windows are never candidates: the caller leaves them out of `windows`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import ConfigDict, Field

from tools.data import Data
from tools.screen.displays import Display, primary_display
from tools.screen.geometry import Point
from tools.screen.risk import quote
from tools.screen.windows import Window, windows_of_app

__all__ = ["Resolved", "Target", "TargetError", "display_of", "resolve"]

MAX_CANDIDATES = 20


class TargetError(Exception):
    """The target names no window, or several; the message (for the model) lists candidates.

    `code` says which for programs (`report.py`): `not_found`, `ambiguous`, `app_not_running`,
    `bad_input` or `no_display`; `windows` / `displays` are the candidates the message lists."""

    def __init__(
        self,
        message: str,
        code: str = "not_found",
        *,
        windows: Sequence[Window] = (),
        displays: Sequence[Display] = (),
    ) -> None:
        super().__init__(message)
        self.code = code
        self.windows = tuple(windows)
        self.displays = tuple(displays)


class Target(Data):
    """Where to look: nothing set means the front-most window."""

    model_config = ConfigDict(frozen=True)

    app: str | None = Field(
        default=None, description="An application's name (as `windows` shows it) or WM_CLASS."
    )
    title: str | None = Field(default=None, description="Text the window's title contains.")
    window_index: int | None = Field(
        default=None, ge=0, description="With app: which of its windows (0 is its front-most)."
    )
    window_id: int | None = Field(default=None, description="A window id as `windows` lists it.")
    display: int | None = Field(default=None, ge=0, description="A display index: all of it.")

    def words(self) -> str:
        """The target in a few words, for the approval sheet."""
        if self.window_id is not None:
            return f"window {self.window_id}"
        if self.display is not None:
            return f"display {self.display}"
        parts = []
        if self.app is not None:
            parts.append(f"app '{quote(self.app, 40)}'")
        if self.window_index is not None:
            parts.append(f"window #{self.window_index}")
        if self.title is not None:
            parts.append(f"the window titled '{quote(self.title, 40)}'")
        return ", ".join(parts) or "the front-most window"


@dataclass(frozen=True)
class Resolved:
    """What a target picked: one window, or every window on a display."""

    display: Display  # the display the bounds are given on
    windows: tuple[Window, ...]
    window: Window | None = None  # set when the target is one window

    def subject(self, app_names: Mapping[int, str] | None = None) -> str:
        if self.window is None:
            return f"display {self.display.index}"
        window = self.window
        app = (app_names or {}).get(window.pid or -1) or window.app
        return f'window {window.id} "{quote(window.title, 80)}" ({quote(app, 40)})'


def display_of(window: Window, displays: Sequence[Display]) -> Display:
    """The display holding the window's centre, else the one it overlaps most."""
    rect = window.rect
    middle = Point(rect.x + rect.width // 2, rect.y + rect.height // 2)
    holding = next((d for d in displays if d.frame.contains(middle)), None)
    if holding is not None:
        return holding
    best = max(displays, key=lambda d: d.frame.overlap(rect), default=None)
    fallback = primary_display(displays)
    if best is not None and best.frame.overlap(rect) > 0:
        return best
    assert fallback is not None
    return fallback


def _candidates(
    windows: Sequence[Window], app_names: Mapping[int, str], every: Sequence[Window] = ()
) -> str:
    """Lines for `windows`, each with its index within its app among `every` open window."""
    if not windows:
        return "No windows are open (besides Deskhand's own)."
    every = every or windows
    lines = []
    for window in windows[:MAX_CANDIDATES]:
        index = windows_of_app(every, window).index(window)
        name = app_names.get(window.pid or -1)
        also = f" [{quote(name, 40)}]" if name and name != window.app else ""
        lines.append(f"- {window.line(index)}{also}")
    if len(windows) > MAX_CANDIDATES:
        lines.append(f"- … and {len(windows) - MAX_CANDIDATES} more")
    return "\n".join(lines)


def _names(window: Window, app_names: Mapping[int, str]) -> list[str]:
    names = [name.casefold() for name in window.names()]
    if window.pid is not None and window.pid in app_names:
        names.append(app_names[window.pid].casefold())
    return names


def _app_windows(app: str, windows: Sequence[Window], app_names: Mapping[int, str]) -> list[Window]:
    wanted = app.casefold().strip()
    exact = [w for w in windows if wanted in _names(w, app_names)]
    if exact:
        return exact
    return [w for w in windows if any(wanted in name for name in _names(w, app_names))]


def resolve(
    target: Target,
    windows: Sequence[Window],
    displays: Sequence[Display],
    app_names: Mapping[int, str] | None = None,
) -> Resolved:
    """The window or display `target` names, among `windows` (front to back, Deskhand's own
    left out); raises `TargetError` with the candidates."""
    names = dict(app_names or {})
    if not displays:
        raise TargetError("No display was found.", "no_display")
    if target.display is not None:
        if not 0 <= target.display < len(displays):
            raise TargetError(
                f"There is no display {target.display}. The displays are 0 to {len(displays) - 1}.",
                displays=displays,
            )
        display = displays[target.display]
        on_it = tuple(w for w in windows if display_of(w, displays).index == display.index)
        return Resolved(display=display, windows=on_it)
    window = _one_window(target, windows, names)
    return Resolved(display=display_of(window, displays), windows=(window,), window=window)


def _one_window(target: Target, windows: Sequence[Window], names: dict[int, str]) -> Window:
    if target.window_id is not None:
        found = next((w for w in windows if w.id == target.window_id), None)
        if found is None:
            raise TargetError(
                f"No window has the id {target.window_id} (it may have closed). The windows "
                f"open now:\n{_candidates(windows, names)}",
                windows=windows,
            )
        return found
    pool = list(windows)
    if target.app is not None:
        pool = _app_windows(target.app, windows, names)
        if not pool:
            raise TargetError(
                f"No open window belongs to an app named '{quote(target.app, 40)}'. The "
                f"windows open now:\n{_candidates(windows, names)}",
                "app_not_running",
                windows=windows,
            )
        apps = {w.pid if w.pid is not None else w.app for w in pool}
        if len(apps) > 1:
            raise TargetError(
                f"Several apps match '{quote(target.app, 40)}'; name one by its window id or "
                f"its full name. They are:\n{_candidates(pool, names, windows)}",
                "ambiguous",
                windows=pool,
            )
    if target.title is not None:
        wanted = target.title.casefold()
        titled = [w for w in pool if wanted in w.title.casefold()]
        if not titled:
            raise TargetError(
                f"No window's title contains '{quote(target.title, 40)}'. The windows "
                f"open now:\n{_candidates(pool if target.app else windows, names, windows)}",
                windows=pool if target.app else windows,
            )
        if len(titled) > 1 and target.window_index is None:
            raise TargetError(
                f"Several windows' titles contain '{quote(target.title, 40)}'; name one by its "
                f"window id. They are:\n{_candidates(titled, names, windows)}",
                "ambiguous",
                windows=titled,
            )
        pool = titled
    if target.window_index is not None:
        if target.app is None:
            raise TargetError("A window index needs the app it belongs to.", "bad_input")
        if target.window_index >= len(pool):
            raise TargetError(
                f"'{quote(target.app, 40)}' has no window #{target.window_index}. Its windows:"
                f"\n{_candidates(pool, names, windows)}",
                windows=pool,
            )
        return pool[target.window_index]
    if target.app is not None or target.title is not None:
        return pool[0]  # the app's front-most window
    if not windows:
        raise TargetError("No windows are open (besides Deskhand's own).")
    return next((w for w in windows if w.focused), windows[0])

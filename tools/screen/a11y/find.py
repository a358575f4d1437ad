"""Looking for an element by what it is (its app, window title, role and name), not where it was.

A routine replays a screen step long after it was recorded: the window may have moved, or be
another one of the same app. `look_for` takes one look, in the accessibility tree as it is now,
for the element a `TargetMeaning` names:

- the app: the accessible applications with that name (never one of Deskhand's processes);
- its window: the one with the recorded title; failing that, the app's only window (a title
  that changed, "Untitled" saved as "Report"), else none;
- the element: every showing element of that window with the recorded role and name (a field
  recorded without a name matches by role alone: a label beside it names it only in the tree).

Where the backend lists the screen's windows front to back (X11), a match whose centre another
window covers is counted apart: a click there would land on that other window. The caller
waits by looking again (`driver.py`'s `find_again`); each look is one bounded read of one
window's tree (`effect.LIMITS`). Everything read is screen content: quoted when it is shown.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tools.meaning import TargetMeaning
from tools.screen.a11y.accessible import AccessibilityBackend, App, Node
from tools.screen.a11y.effect import LIMITS, _word
from tools.screen.geometry import Point, Rect
from tools.screen.risk import quote
from tools.screen.windows import Window, window_at

__all__ = ["Finder", "Sighting", "centre", "look_for", "subject"]

NO_ACCESSIBILITY = "Other apps' elements cannot be read here, so the target cannot be looked for."


@dataclass(frozen=True, slots=True)
class Sighting:
    """One look for an element: where its matches are now (global bounds), how many more are
    under another window, and in what words the place looked in is named; `why` when there
    was no window to look in."""

    where: str
    places: tuple[Rect, ...] = ()
    covered: int = 0
    why: str = ""


@runtime_checkable
class Finder(Protocol):
    """An inspector that can look for an element by its meaning (`elements.py`'s `Inspector`
    with this one more answer)."""

    async def find(self, meaning: TargetMeaning) -> Sighting:
        """One look for the element `meaning` names, in the window as it is now."""
        ...


def centre(rect: Rect) -> Point:
    return Point(rect.x + rect.width // 2, rect.y + rect.height // 2)


def subject(meaning: TargetMeaning) -> str:
    """How words name the element: `button “Save”`."""
    word = _word(meaning.role) if meaning.role else "element"
    return f"{word} “{quote(meaning.name, 60)}”" if meaning.name else word


def _place(meaning: TargetMeaning) -> str:
    return quote(meaning.window or meaning.app or "any window", 60)


def _matches(node: Node, meaning: TargetMeaning) -> bool:
    if meaning.role and node.role != meaning.role:
        return False
    if meaning.name and node.name != meaning.name:
        return False
    return node.showing and node.bounds is not None


async def look_for(
    accessibility: AccessibilityBackend,
    meaning: TargetMeaning,
    *,
    windows: Sequence[Window] | None,
    own_pids: Collection[int],
) -> Sighting:
    """One look for `meaning`'s element. `windows`: the screen's windows front to back, or None
    where the backend cannot list them (then the app's accessible windows are used, uncovered)."""
    app_name = quote(meaning.app, 60)
    apps = [
        app
        for app in await accessibility.apps()
        if app.pid not in own_pids and (not meaning.app or app.name == meaning.app)
    ]
    if not apps:
        return Sighting(_place(meaning), why=f"{app_name or 'The app'} is not open.")
    roots = await _windows_of(accessibility, apps, meaning, windows)
    if isinstance(roots, str):
        return Sighting(_place(meaning), why=roots)
    places: list[Rect] = []
    covered = 0
    for pid, frame in roots:
        nodes, _ = await accessibility.tree([frame.ref], LIMITS)
        for node in nodes:
            if node.ref == frame.ref or not _matches(node, meaning):
                continue
            assert node.bounds is not None
            front = window_at(windows, centre(node.bounds)) if windows is not None else None
            if windows is not None and (front is None or front.pid != pid):
                covered += 1
            else:
                places.append(node.bounds)
    where = quote(meaning.window, 60) if meaning.window else _place(meaning)
    return Sighting(where, places=tuple(places), covered=covered)


async def _windows_of(
    accessibility: AccessibilityBackend,
    apps: Sequence[App],
    meaning: TargetMeaning,
    windows: Sequence[Window] | None,
) -> list[tuple[int | None, Node]] | str:
    """The accessible windows to look in, with their process: the ones titled as recorded,
    else the app's only one; or why there is none."""
    app_name = quote(meaning.app, 60) or "The app"
    if windows is not None:
        pids = {app.pid for app in apps if app.pid is not None}
        theirs = [window for window in windows if window.pid in pids]
        titled = [window for window in theirs if window.title == meaning.window]
        chosen = titled or (theirs if len(theirs) == 1 else [])
        roots: list[tuple[int | None, Node]] = []
        for window in chosen:
            framed = await accessibility.frame_of(window)
            if framed is not None:
                roots.append((window.pid, framed[1]))
        count = len(theirs)
    else:
        frames = [
            (app.pid, frame)
            for app in apps
            for frame in await accessibility.frames(app)
            if frame.showing
        ]
        named = [(pid, frame) for pid, frame in frames if frame.name == meaning.window]
        roots = named or (frames if len(frames) == 1 else [])
        count = len(frames)
    if roots:
        return roots
    if count == 0:
        return f"{app_name} shows no window."
    return f"{app_name} has no window “{quote(meaning.window, 60)}” ({count} others are open)."

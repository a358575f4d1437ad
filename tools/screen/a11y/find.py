"""Looking for an element by what it is (its app, window title, role and name), not where it was.

A routine replays a screen step long after it was recorded: the window may have moved, or be
another one of the same app. `look_for` takes one look, in the accessibility tree as it is now,
for the element a `TargetMeaning` names:

- the app: the accessible applications with that name (never one of Deskhand's processes);
- its window: the one with the recorded title; failing that, the app's only window (a title
  that changed, "Untitled" saved as "Report"), else none;
- the element: every showing element of that window with the recorded role and name (a field
  recorded without a name matches by role alone: a label beside it names it only in the tree);
  when several match, the one held by the recorded `near` (the nearest named element holding
  it, a group or a list: `accessible.near_of`), if that tells them apart.

Where the backend lists the screen's windows front to back (X11), a match whose centre another
window covers, or that lies past its own window's edge, is counted apart: a click there would
land on something else. The caller
waits by looking again (`driver.py`'s `find_again`); each look is one bounded read of one
window's tree, under the bounds a `see` of it reads (`accessible.LIMITS`): what the model
could see there can be found. Everything read is screen content: quoted when it is shown.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tools.meaning import TargetMeaning
from tools.screen.a11y.accessible import (
    LIMITS,
    AccessibilityBackend,
    App,
    ElementRef,
    Limits,
    Node,
)
from tools.screen.a11y.effect import _word
from tools.screen.geometry import Point, Rect
from tools.screen.risk import quote
from tools.screen.windows import Window, window_at

__all__ = ["Finder", "Sighting", "centre", "look_for", "near_above", "subject"]

NEAR_DEPTH = 6  # parents asked for a named one holding an element
ONE = Limits(depth=1, elements=1, children=0, nodes=1)  # a tree read of one element alone
NO_ACCESSIBILITY = "Other apps' elements cannot be read here, so the target cannot be looked for."


@dataclass(frozen=True, slots=True)
class Sighting:
    """One look for an element: where its matches are now (global bounds), how many more are
    under another window or past their window's edge, and in what words the place looked in is
    named; `why` when there was no window to look in."""

    where: str
    places: tuple[Rect, ...] = ()
    covered: int = 0
    outside: int = 0
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
    matches: list[tuple[int | None, Node, str]] = []  # process, element, what holds it
    for pid, frame in roots:
        nodes, _ = await accessibility.tree([frame.ref], LIMITS)
        by_ref = {node.ref: node for node in nodes if node.ref != frame.ref}
        matches += [
            (pid, node, _near(node, by_ref)) for node in by_ref.values() if _matches(node, meaning)
        ]
    if len(matches) > 1 and meaning.near:
        # Several: the one held by what held it when it was recorded, if that tells them apart.
        matches = [match for match in matches if match[2] == meaning.near] or matches
    places: list[Rect] = []
    covered = outside = 0
    for pid, node, _ in matches:
        assert node.bounds is not None
        middle = centre(node.bounds)
        front = window_at(windows, middle) if windows is not None else None
        if windows is None or (front is not None and front.pid == pid):
            places.append(node.bounds)
        elif any(w.pid == pid and w.rect.contains(middle) for w in windows):
            covered += 1  # a click there would land on the window over it
        else:
            outside += 1  # past its window's edge: a click there would miss it
    where = quote(meaning.window, 60) if meaning.window else _place(meaning)
    return Sighting(where, tuple(places), covered=covered, outside=outside)


async def near_above(
    accessibility: AccessibilityBackend, ref: ElementRef, frame: ElementRef
) -> str:
    """The name of the nearest named element holding `ref` below its window `frame`, asked up
    its parents (what `_near` reads from a tree): a hit test may skip the levels between, as
    Qt's skips a group box, so the path it took does not tell."""
    for _ in range(NEAR_DEPTH):
        parent = await accessibility.parent(ref)
        if parent is None or parent == frame:
            return ""
        # Its role, name and states only: one round trip (`read` asks its bounds after).
        nodes, _ = await accessibility.tree([parent], ONE, details=False)
        if not nodes:
            return ""
        if nodes[0].name:
            return nodes[0].name
        ref = parent
    return ""


def _near(node: Node, by_ref: dict[ElementRef, Node]) -> str:
    """The name of the nearest named element holding `node` below its window, from the tree
    read (`near_above` asks the same of the bus for one element)."""
    up = by_ref.get(node.parent)
    while up is not None:
        if up.name:
            return up.name
        up = by_ref.get(up.parent)
    return ""


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
        if chosen and not roots:
            return f"{app_name}'s window shares no elements."
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
    # The app's only window would have been taken: it has several, none titled so.
    return f"{app_name} has no window “{quote(meaning.window, 60)}”, and {count} others."

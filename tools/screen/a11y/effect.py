"""What an action really changed in one window, read from its accessibility tree before and after.

A `Watch` looks at the target window (AT-SPI or AX, through `AccessibilityBackend`) right before
an action, and again after it until it has settled (`QUIET` after the action, two looks in a
row the same; at most `SETTLE`), then says what changed as `Effect:` lines (`tools/outcome.py`),
in the browser's shapes:

    + dialog "Save changes?"             a window or dialog of the app appeared
    - window "Untitled"                  ...or went away
    ~ checkbox "Remember me": checked    checked, expanded, selected, enabled or focused changed
    ~ text "Name": "" → "AB"             a field's value (a password field's is never read)
    ~ label "Ready" → "Saved"            an element's name
    + button "Undo"                      an element of the window appeared or went away

or `Effect: none: nothing in the window changed.` The element acted on comes first, then the
rest in reading order. The element acted on taking the keyboard focus is what a click does, so
only focus that moved elsewhere is a change.

Cost: one bounded read of the one target window (`LIMITS`: the reader's batched calls, one round
trip per tree level) plus its app's top-level windows' role and name, before and after; a
backend that `Refreshes` (AT-SPI's) reads the elements again in one cheaper batch after it. No
other window's elements are read: the person's other windows stay theirs. Everything read is
screen content an attacker may have written: it is quoted, escaped, and bounded.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

from tools.outcome import Outcome
from tools.screen.a11y.accessible import AccessibilityBackend, App, ElementRef, Limits, Node
from tools.screen.errors import ScreenError
from tools.screen.geometry import Point
from tools.screen.risk import quote
from tools.screen.windows import Window

log = logging.getLogger(__name__)

__all__ = [
    "LIMITS",
    "NOTHING_IN_WINDOW",
    "Look",
    "Refresh",
    "Refreshes",
    "Watch",
    "Watcher",
    "changes",
    "holds_note",
    "line_subject",
    "not_enabled",
    "watch_window",
]

NOTHING_IN_WINDOW = "nothing in the window changed."
NOT_CONFIRMED = "Not confirmed: the window's elements could not be read again."
# One look at the target window: smaller than a `see`, as it is read twice per action or more.
LIMITS = Limits(depth=12, elements=250, children=50, nodes=600)
QUIET = 0.15  # seconds after an action before the window is judged (once two looks agree)
SETTLE = 1.5  # seconds after an action at most before it is judged
POLL = 0.03  # seconds between two looks while it settles
READ_LIMIT = 1.5  # seconds one look may take on top of SETTLE before the outcome is unknown
VALUE_SHOWN = 60  # characters of a value or a name in a line
CUT_VALUE = 200  # characters the readers read of a value: one this long may be longer (a document)
# Top-level things whose coming and going is news even when the tree is not compared.
WINDOW_ROLES = frozenset(
    {"frame", "window", "dialog", "alert", "file chooser", "notification", "popup menu"}
)
# The words a line uses for a role (AT-SPI's names, as `accessible.py` spells them).
_WORDS = {
    "push button": "button",
    "check box": "checkbox",
    "radio button": "radio",
    "entry": "text",
    "frame": "window",
    "combo box": "combobox",
    "page tab": "tab",
    "push button menu": "menu button",
    "check menu item": "menu item",
    "radio menu item": "menu item",
}


def _word(role: str) -> str:
    return _WORDS.get(role, role)


def _quoted(text: str) -> str:
    return f'"{quote(text, VALUE_SHOWN)}"'


def line_subject(node: Node) -> str:
    """How a line names an element: its role word and quoted name (`checkbox "Remember me"`)."""
    word = _word(node.role)
    return f"{word} {_quoted(node.name)}" if node.name else word


def not_enabled(node: Node, done: str = "clicked") -> Outcome:
    """An action on a disabled control: refused, nothing sent."""
    return Outcome(
        kind="refused",
        note=f"Refused: {line_subject(node)} is not enabled, so it was not {done}.",
        nothing=NOTHING_IN_WINDOW,
    )


@dataclass(frozen=True, slots=True)
class Seen:
    """One element as compared: what a line may report of it."""

    role: str
    name: str
    value: str | None  # never a password field's
    checked: bool
    expanded: bool
    selected: bool
    enabled: bool
    focused: bool
    path: tuple[int, ...]
    listed: bool
    length: int | None = None  # the whole text's length, for a value the reader cut

    @classmethod
    def of(cls, node: Node, length: int | None = None) -> Seen:
        return cls(
            length=length,
            role=node.role,
            name=node.name,
            value=None if node.secure else node.value,
            checked=node.checked,
            expanded=node.expanded,
            selected=node.selected,
            enabled=node.enabled,
            focused=node.focused,
            path=node.path,
            listed=node.listed,
        )

    def node(self) -> Node:
        return Node(ref=None, role=self.role, name=self.name)


@dataclass(frozen=True)
class Look:
    """The target window at one moment: its app's top-level windows (role and name) and the
    elements of the window itself, by the backend's handle."""

    windows: dict[ElementRef, tuple[str, str]]
    elements: dict[ElementRef, Seen] = field(default_factory=dict)

    def same(self, other: Look) -> bool:
        return self.windows == other.windows and self.elements == other.elements


# Reads the elements of a look again, cheaply: each one's name, states and value (and a
# container's children), its role and place kept; None for one that is gone.
Refresh = Callable[[Sequence[Node]], Awaitable[list[Node | None]]]


@runtime_checkable
class Refreshes(Protocol):
    """A backend that can read elements again cheaply (AT-SPI's: `atspi/watching.py`); a
    watch on it uses that for the looks after the action."""

    async def refresh(self, nodes: Sequence[Node]) -> list[Node | None]: ...


@dataclass
class Watch:
    """One window watched across one action: `start()` looks before it, `outcome()` after.

    With `refresh`, a look after the first re-reads only what an action changes of the
    elements already read (a few calls each, in one batch); when an element went, or one's
    children or visibility changed, it reads the window's tree again."""

    accessibility: AccessibilityBackend
    app: App
    frame: Node  # the target window
    target: Node | None = None  # the element acted on
    limits: Limits = LIMITS
    refresh: Refresh | None = None
    before: Look | None = None
    _nodes: list[Node] = field(default_factory=list, repr=False)  # the last tree read

    def __post_init__(self) -> None:
        if self.refresh is None and isinstance(self.accessibility, Refreshes):
            self.refresh = self.accessibility.refresh

    async def look(self) -> Look:
        """The window as it is now (raises `ScreenError` when the bus or the app fails)."""
        frames = await self.accessibility.frames(self.app)
        windows = {
            frame.ref: (frame.role, frame.name)
            for frame in frames
            if frame.showing or frame.ref == self.frame.ref
        }
        if self.frame.ref not in windows:
            return Look(windows=windows)  # the window closed: nothing of it to read
        nodes = await self._again() if self.refresh is not None and self._nodes else None
        if nodes is None:
            nodes, _ = await self.accessibility.tree([self.frame.ref], self.limits)
            self._nodes = nodes
        lengths = await self._lengths(nodes)
        elements = {
            node.ref: Seen.of(node, lengths.get(node.ref))
            for node in nodes
            if node.ref != self.frame.ref
        }
        return Look(windows=windows, elements=elements)

    async def _lengths(self, nodes: Sequence[Node]) -> dict[ElementRef, int]:
        """The whole text's length of each field whose value the reader cut: typing at the end
        of a long document changes nothing in its first characters."""
        lengths: dict[ElementRef, int] = {}
        for node in nodes:
            if not node.secure and node.value is not None and len(node.value) >= CUT_VALUE:
                text = await self.accessibility.text(node.ref)
                if text is not None:
                    lengths[node.ref] = len(text)
        return lengths

    async def _again(self) -> list[Node] | None:
        """The last tree's elements read again, or None when the tree must be read anew."""
        assert self.refresh is not None
        fresh = await self.refresh(self._nodes)
        out: list[Node] = []
        for was, now in zip(self._nodes, fresh, strict=True):
            if now is None or now.child_refs != was.child_refs or now.showing != was.showing:
                return None
            if not now.name and was.name and was.kind in ("T", "S"):
                now = replace(now, name=was.name)  # named by a label beside it, not its own
            out.append(now)
        return out

    async def start(self) -> Watch:
        self.before = await self.look()
        return self

    async def outcome(self, *, settle: float = SETTLE, quiet: float = QUIET) -> Outcome:
        """What changed since `start()`, once the window settled (`quiet` seconds after the
        action, two looks in a row the same; or `settle` passed): `done` with the lines,
        `no_effect`, or `unconfirmed` when the window could not be read again."""
        before = self.before
        if before is None:
            raise RuntimeError("outcome() before start()")
        began = time.monotonic()
        last = before
        try:
            # A look at an app that hangs is bounded too: then the outcome is not known.
            async with asyncio.timeout(settle + READ_LIMIT):
                while True:
                    await asyncio.sleep(POLL)
                    now = await self.look()
                    moment = time.monotonic()
                    # Settled: `quiet` after the action, and two looks in a row agree (a big
                    # window's look takes most of `quiet` itself: no third look is needed).
                    settled = now.same(last) and moment - began >= quiet
                    last = now
                    if settled or moment - began >= settle:
                        break
        except (ScreenError, TimeoutError):
            log.info("the target window could not be read again", exc_info=True)
            return Outcome(kind="unconfirmed", note=NOT_CONFIRMED, nothing=NOTHING_IN_WINDOW)
        lines = changes(before, last, frame=self.frame.ref, target=_ref(self.target))
        if not lines:
            return Outcome(kind="no_effect", nothing=NOTHING_IN_WINDOW)
        return Outcome(kind="done", changes=lines, nothing=NOTHING_IN_WINDOW)


async def watch_window(
    accessibility: AccessibilityBackend, window: Window, target: Node | None
) -> Watch | None:
    """A started watch of `window` (as the screen backend lists it), or None when its app
    shows no accessible window there."""
    framed = await accessibility.frame_of(window)
    if framed is None:
        return None
    app, frame = framed
    return await Watch(accessibility, app, frame, target=target).start()


def _ref(node: Node | None) -> ElementRef | None:
    return node.ref if node is not None else None


@runtime_checkable
class Watcher(Protocol):
    """An inspector that can watch the window a computer-toolset call acts on (`elements.py`'s
    `Inspector` with these two more answers). Both answer None when no element of another
    app is there (or it cannot be told): the call then reports no effect of its own."""

    async def watch_at(self, point: Point) -> Watch | None:
        """A started watch of the window under a point, its target the element there."""
        ...

    async def watch_focused(self) -> Watch | None:
        """A started watch of the window with the keyboard focus, its target the focused
        element."""
        ...


# --- comparing -----------------------------------------------------------------------------------


def changes(
    before: Look, after: Look, *, frame: ElementRef, target: ElementRef | None = None
) -> list[str]:
    """The lines for what differs between two looks at a window: its app's windows first, then
    the element acted on, then the others in reading order."""
    lines = _windows(before, after)
    if frame not in after.windows:
        return lines  # the window went: its elements went with it
    lines.extend(_elements(before, after, target))
    return lines


def _windows(before: Look, after: Look) -> list[str]:
    lines = [
        f"+ {_window_line(role, name)}"
        for ref, (role, name) in after.windows.items()
        if ref not in before.windows
    ]
    lines += [
        f"- {_window_line(role, name)}"
        for ref, (role, name) in before.windows.items()
        if ref not in after.windows
    ]
    return lines


def _window_line(role: str, name: str) -> str:
    word = _word(role) if role in WINDOW_ROLES else "window"
    return f"{word} {_quoted(name)}" if name else word


def _elements(before: Look, after: Look, target: ElementRef | None) -> list[str]:
    first: list[tuple[tuple[int, ...], str]] = []
    rest: list[tuple[tuple[int, ...], str]] = []
    for ref, now in after.elements.items():
        was = before.elements.get(ref)
        if was is None or not was.listed:
            if now.listed:
                rest.append((now.path, f"+ {line_subject(now.node())}"))
            continue
        if not now.listed:
            rest.append((was.path, f"- {line_subject(was.node())}"))
            continue
        line = _changed(was, now, is_target=ref == target)
        if line:
            (first if ref == target else rest).append((now.path, line))
    for ref, was in before.elements.items():
        if ref not in after.elements and was.listed:
            rest.append((was.path, f"- {line_subject(was.node())}"))
    rest.sort(key=lambda pair: pair[0])
    return [line for _, line in first + rest]


def _changed(was: Seen, now: Seen, *, is_target: bool) -> str:
    """The `~` line of an element present before and after, or "" when nothing shown changed."""
    parts: list[str] = []
    if was.value != now.value and not (was.value is None or now.value is None):
        parts.append(f"{_quoted(was.value)} → {_quoted(now.value)}")
    elif was.length != now.length and was.length is not None and now.length is not None:
        parts.append(f"{was.length:,} → {now.length:,} characters")  # past what is shown
    for flag, on, off in (
        ("checked", "checked", "not checked"),
        ("expanded", "expanded", "collapsed"),
        ("selected", "selected", "not selected"),
        ("enabled", "enabled", "not enabled"),
    ):
        if getattr(was, flag) != getattr(now, flag):
            parts.append(on if getattr(now, flag) else off)
    # A click focuses what it clicks: only focus that went somewhere else is news.
    if now.focused and not was.focused and not is_target:
        parts.append("focused")
    renamed = was.name != now.name and bool(was.name or now.name)
    if not parts and not renamed:
        return ""
    subject = line_subject(was.node())
    if renamed:
        subject += f" → {_quoted(now.name)}"
    return f"~ {subject}: {', '.join(parts)}" if parts else f"~ {subject}"


def holds_note(value: str | None) -> str:
    """The sentence after a field that took other text than was typed (a mask, a limit)."""
    return f"The field holds {_quoted(value or '')}, not the text typed."

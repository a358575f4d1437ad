"""Other apps' elements as the screen tools read them, whatever the platform's accessibility API.

Both backends (AT-SPI on Linux: `atspi/`; the Accessibility API on macOS: `ax/`) read an
application's windows into the same `Node`s, under the same `Limits`, and answer the same
questions (`AccessibilityBackend`); the `screen` tool, the snapshots and the gate know nothing
else. A node's `ref` is the backend's own handle for the element (an AT-SPI bus name and path,
an `AXUIElement`): only its backend reads it, everyone else compares it.

Role words are AT-SPI's names ("push button", "password text", "scroll pane") where the two APIs
have the same thing, so one set of rules (which roles scroll, which hold a value) serves both.
Everything read is screen content an attacker may have written: it is data, shown quoted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from pydantic import ConfigDict

from tools.data import Data
from tools.screen.a11y.atspi.tables import kind_of
from tools.screen.a11y.elements import Element
from tools.screen.geometry import Point, Rect
from tools.screen.windows import Window

__all__ = [
    "LIMITS",
    "SCROLLERS",
    "VALUE_ROLES",
    "AccessibilityBackend",
    "AccessibilityStatus",
    "App",
    "ElementRef",
    "Limits",
    "Node",
    "best_frame",
    "named_by_labels",
    "near_of",
    "nearest_control",
]

# The backend's own handle for an element: hashable and comparable, read only by its backend.
ElementRef = Any

# Containers whose off-screen children are still listed: their rows can be scrolled to.
SCROLLERS = frozenset(
    {"list", "list box", "table", "tree", "tree table", "scroll pane", "viewport", "tree item"}
)
VALUE_ROLES = frozenset(
    {"slider", "spin button", "scroll bar", "dial", "progress bar", "level bar"}
)


class AccessibilityStatus(Data):
    """Whether other applications' elements can be read here, and if not why and what to do."""

    model_config = ConfigDict(frozen=True)

    available: bool
    reason: str = ""
    fix: str = ""


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of a tree one read may take (the issue's bounds: depth, elements, children)."""

    depth: int = 12
    elements: int = 400  # listed elements
    children: int = 50  # children read per element
    nodes: int = 1000  # elements read in all, structural ones included


LIMITS = Limits()


@dataclass
class TreeBudget:
    """What a breadth-first read of a tree may still take under `limits`, and whether a limit cut
    it short. Both backends read their trees with it, so they leave out the same elements."""

    limits: Limits
    listed: int = 0
    cut: bool = False

    def keeps(self, node: Node, *, in_scroller: bool, depth: int) -> bool:
        """Whether `node` is kept: not when it is hidden below the roots outside a scroll area
        (with everything in it), nor when it would be listed past `limits.elements`."""
        if not node.showing and not in_scroller and depth > 0:
            return False
        if node.listed:
            if self.listed >= self.limits.elements:
                self.cut = True
                return False
            self.listed += 1
        return True

    def children(self, node: Node) -> tuple[ElementRef, ...]:
        """The children of `node` to read next, at most `limits.children`."""
        if len(node.child_refs) > self.limits.children:
            self.cut = True
            return node.child_refs[: self.limits.children]
        return node.child_refs


@dataclass(frozen=True, slots=True)
class App:
    """An application that exposes its elements."""

    ref: ElementRef
    name: str
    pid: int | None
    bundle_id: str = ""  # macOS: com.apple.TextEdit; empty elsewhere


@dataclass(frozen=True, slots=True)
class Node:
    """One element as read: everything a snapshot line, the gate and an action need."""

    ref: ElementRef
    role: str  # plain words, AT-SPI's where the APIs agree: "push button", "password text"
    name: str = ""
    kind: str = ""  # the snapshot letter (B, T, L…); empty: AT-SPI's table names it by role
    enabled: bool = False
    focused: bool = False
    showing: bool = False  # on screen now (an off-screen list row is not)
    checked: bool = False
    expanded: bool = False  # an expandable element (a tree row, a combo box) that is open
    selected: bool = False  # a list row, a tab or a cell that is selected
    editable: bool = False
    active: bool = False  # a top-level window that is the active one of its app
    bounds: Rect | None = None  # global logical units
    value: str | None = None  # a field's text or a slider's value; never read for secure fields
    path: tuple[int, ...] = ()  # child indices from the root read: sorts into reading order
    parent: ElementRef | None = None
    label_ref: ElementRef | None = None  # the label naming it, when it has no name of its own
    near: str = ""  # the name of the nearest named element holding it, below its window
    child_refs: tuple[ElementRef, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        if not self.kind:
            object.__setattr__(self, "kind", kind_of(self.role))

    @property
    def secure(self) -> bool:
        return self.role == "password text"

    @property
    def listed(self) -> bool:
        """Worth a line in a snapshot: a control, or a named or valued structural element."""
        return self.kind not in ("G", "X") or bool(self.name) or bool(self.value)

    def element(self, app: str = "", window: str = "") -> Element:
        return Element(
            role=self.role,
            name=self.name,
            app=app,
            window=window,
            near=self.near,
            secure=self.secure,
            bounds=self.bounds,
            enabled=self.enabled,
        )


class AccessibilityBackend(Protocol):
    """What the `screen` tool asks of a platform's accessibility API. Every method is a
    coroutine that never blocks the loop; an element that is gone reads as None."""

    async def apps(self) -> list[App]:
        """The applications that expose elements (Deskhand's own included: callers filter)."""
        ...

    async def frames(self, app: App) -> list[Node]:
        """The application's top-level windows as elements."""
        ...

    async def frame_of(self, window: Window) -> tuple[App, Node] | None:
        """The accessible window of a window as the screen backend lists it."""
        ...

    async def tree(
        self,
        roots: Sequence[ElementRef],
        limits: Limits = LIMITS,
        *,
        details: bool = True,
        until: Callable[[Node], bool] | None = None,
    ) -> tuple[list[Node], bool]:
        """The elements under `roots` (the roots included) in reading order, and whether a
        limit cut the read short; `until` stops at the level where an element satisfies it;
        without `details`, bounds, values and labels may be left out."""
        ...

    async def read(self, refs: Sequence[ElementRef], *, value: bool = False) -> list[Node | None]:
        """Each element again (None for one that is gone); `value`: with a field's text."""
        ...

    async def parent(self, ref: ElementRef) -> ElementRef | None: ...

    async def element_at(self, point: Point, window: Window) -> tuple[App, Node] | None:
        """The element of `window` under a global point (the nearest control holding it)."""
        ...

    async def focused(self, window: Window) -> tuple[App, Node] | None:
        """The element with the keyboard focus in `window`'s application."""
        ...

    async def takes_text(self, ref: ElementRef) -> bool:
        """Whether the element's text can be set directly (custom-drawn fields often cannot:
        those are clicked and typed into)."""
        ...

    async def press(self, ref: ElementRef) -> bool:
        """Press the element by its own action; False when it has none."""
        ...

    async def set_text(self, ref: ElementRef, text: str) -> bool:
        """Replace a field's text; False when it does not take text (or is secure)."""
        ...

    async def text(self, ref: ElementRef) -> str | None:
        """A field's whole text (never a secure field's)."""
        ...

    async def scroll_to(self, ref: ElementRef) -> bool:
        """Ask the application to scroll the element into view."""
        ...

    async def close(self) -> None: ...


def best_frame(frames: Sequence[Node], window: Window) -> Node | None:
    """Of an application's accessible windows, the one that is `window` as the screen backend
    lists it: the one covering it best, the title breaking a tie."""
    best: tuple[float, bool, Node] | None = None
    for frame in frames:
        if frame.bounds is None:
            continue
        overlap = frame.bounds.overlap(window.rect)
        score = (overlap, frame.name == window.title, frame)
        if overlap > 0 and (best is None or score[:2] > best[:2]):
            best = score
    return best[2] if best is not None else None


def nearest_control(path: Sequence[Node]) -> Node | None:
    """Of the elements from a window down to the deepest one under a point, the one a click
    there affects: the deepest control (a button's label is judged as the button), else the
    deepest element."""
    control = next((node for node in reversed(path) if node.kind not in ("G", "X")), None)
    return control or (path[-1] if path else None)


def near_of(path: Sequence[Node], control: Node) -> str:
    """The name of the nearest named element holding `control`, of the elements from just below
    its window down to it: what tells two buttons "Save" apart (a group "Billing", a list)."""
    above = path[: path.index(control)] if control in path else []
    return next((node.name for node in reversed(above) if node.name), "")


def named_by_labels(nodes: list[Node]) -> list[Node]:
    """An unnamed field takes the text of the label that names it: the one it points to, or
    else (as screen readers guess) the label just left of it on the same line, or just above it,
    among its siblings."""
    names = {node.ref: node.name for node in nodes if node.name}
    labels: dict[ElementRef | None, list[Node]] = {}
    for node in nodes:
        if node.role in ("label", "static") and node.name and node.bounds is not None:
            labels.setdefault(node.parent, []).append(node)
    out = []
    for node in nodes:
        if not node.name and node.label_ref is not None and node.label_ref in names:
            node = replace(node, name=names[node.label_ref])
        elif not node.name and node.kind in ("T", "S") and node.bounds is not None:
            label = _label_beside(node.bounds, labels.get(node.parent, []))
            if label is not None:
                node = replace(node, name=label.name)
        out.append(node)
    return out


LABEL_GAP = 40  # pixels between a field and the label guessed to name it


def _label_beside(field: Rect, labels: Sequence[Node]) -> Node | None:
    middle = field.y + field.height // 2
    left = [
        label
        for label in labels
        if label.bounds is not None
        and label.bounds.y <= middle < label.bounds.bottom
        and 0 <= field.x - label.bounds.right <= LABEL_GAP
    ]
    if left:
        return min(left, key=lambda label: field.x - label.bounds.right)  # type: ignore[union-attr]
    above = [
        label
        for label in labels
        if label.bounds is not None
        and 0 <= field.y - label.bounds.bottom <= LABEL_GAP
        and label.bounds.x < field.right
        and field.x < label.bounds.right
    ]
    return min(above, key=lambda label: field.y - label.bounds.bottom, default=None)  # type: ignore[union-attr]

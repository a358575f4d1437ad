"""The macOS Accessibility API's answers as the shared element model (pure: tested anywhere).

`reader.py` reads an element's attributes (`tables.ATTRIBUTES`, in one call) into a plain dict —
strings, booleans, numbers, `AXPosition` as (x, y), `AXSize` as (width, height), element handles
for `AXChildren` and `AXTitleUIElement`, and `AXValue` only where `reads_value` allows (never a
secure field's) — and hands it here: `ax_node` makes the `Node`, `walk` reads a window's tree
under the same `Limits` as AT-SPI's, in the same breadth-first reading order.

AX positions are global points, origin at the top-left of the main display, y down: the screen
driver's own global coordinates (Quartz's), so bounds need only rounding outwards (`ax_rect`);
`snapshot.shown_rect` maps them into a screenshot of their display as for AT-SPI.

macOS has no "showing" state: an element shows when it has a place inside its window and inside
every scroll area holding it (`clip`); rows scrolled out of a list are still listed, off-screen,
so they can be scrolled to.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tools.screen.a11y.accessible import (
    LIMITS,
    SCROLLERS,
    ElementRef,
    Limits,
    Node,
    TreeBudget,
    named_by_labels,
)
from tools.screen.a11y.ax.tables import ax_role, reads_value
from tools.screen.geometry import Rect

__all__ = ["VALUE_LIMIT", "Raw", "Reader", "ax_node", "ax_rect", "walk"]

Raw = Mapping[str, Any]  # attribute name → plain value, as `reader.py` reads it
# Reads one element: (element, with its value?) → its attributes, or None when it is gone.
Reader = Callable[[ElementRef, bool], Raw | None]

VALUE_LIMIT = 200  # characters of a field's text shown in a snapshot
NOWHERE = Rect(0, 0, 0, 0)  # the clip inside a scroll area that is itself out of view


def ax_rect(position: Any, size: Any) -> Rect | None:
    """Bounds from `AXPosition` and `AXSize` (points, maybe fractional), rounded outwards so
    the rectangle holds the whole element; None for an element with no place on screen."""
    if not _pair(position) or not _pair(size):
        return None
    x, y = float(position[0]), float(position[1])
    width, height = float(size[0]), float(size[1])
    if not all(math.isfinite(v) for v in (x, y, width, height)) or width <= 0 or height <= 0:
        return None
    left, top = math.floor(x), math.floor(y)
    return Rect(left, top, math.ceil(x + width) - left, math.ceil(y + height) - top)


def _pair(value: Any) -> bool:
    return (
        isinstance(value, tuple | list)
        and len(value) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    )


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _shown_value(value: Any) -> str | None:
    """A field's text or a slider's number as a snapshot shows it; None for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value[:VALUE_LIMIT]
    return None  # attributed strings, URLs, dates: not shown


def ax_node(
    ref: ElementRef,
    raw: Raw,
    path: tuple[int, ...] = (),
    parent: ElementRef | None = None,
    clip: Rect | None = None,
) -> Node | None:
    """The element as a `Node`, or None when it has no role (not an element). `clip`: the part
    of the screen its window and scroll areas show (None: not known, so any place counts)."""
    role = raw.get("AXRole")
    if not isinstance(role, str) or not role:
        return None
    subrole = _text(raw.get("AXSubrole")) or None
    word, kind = ax_role(role, subrole)
    # A secure field's value is dropped even if it was read: it is never shown or judged by.
    value = raw.get("AXValue") if reads_value(role, subrole) else None
    name = _text(raw.get("AXTitle")) or _text(raw.get("AXDescription"))
    shown: str | None = None
    checked = False
    if role == "AXStaticText":
        name = name or _text(value)[:VALUE_LIMIT]  # a static text's words are its value
    elif role in ("AXCheckBox", "AXRadioButton"):
        checked = isinstance(value, int | float) and value == 1  # 2 is "mixed"
    else:
        shown = _shown_value(value)
    bounds = ax_rect(raw.get("AXPosition"), raw.get("AXSize"))
    showing = (
        bounds is not None
        and raw.get("AXMinimized") is not True
        and (clip is None or bounds.intersection(clip) is not None)
    )
    children = raw.get("AXChildren")
    return Node(
        ref=ref,
        role=word,
        name=name,
        kind=kind,
        enabled=raw.get("AXEnabled") is not False,  # static text and groups do not say
        focused=raw.get("AXFocused") is True,
        showing=showing,
        checked=checked,
        expanded=raw.get("AXExpanded") is True,
        selected=raw.get("AXSelected") is True,
        editable=kind == "T",
        active=raw.get("AXMain") is True,
        bounds=bounds,
        value=shown,
        path=path,
        parent=parent,
        label_ref=raw.get("AXTitleUIElement"),
        child_refs=tuple(children) if isinstance(children, list | tuple) else (),
    )


def _inner_clip(node: Node, clip: Rect | None, depth: int) -> Rect | None:
    """What the element's children may show in: a window and every scroll area or list clip
    what they hold."""
    if node.bounds is None or not (depth == 0 or node.role in SCROLLERS):
        return clip
    if clip is None:
        return node.bounds
    return clip.intersection(node.bounds) or NOWHERE


def walk(
    roots: Sequence[ElementRef],
    read: Reader,
    limits: Limits = LIMITS,
    *,
    values: bool = True,
    until: Callable[[Node], bool] | None = None,
) -> tuple[list[Node], bool]:
    """The elements under `roots` (the roots included), in reading order, and whether a limit
    cut the read short — as AT-SPI's `Accessibility.tree` reads them: breadth first, at most
    `limits.depth` levels, `limits.children` children an element, `limits.elements` listed
    elements and `limits.nodes` read in all. Hidden elements are left out with all they hold,
    but for the rows of lists and tables. `values`: read fields' text too (a `wait` needs none).
    With `until`, the read stops after the level where an element first satisfies it."""
    # (element, path, parent, whether its parent scrolls, the clip it shows in)
    level: list[tuple[ElementRef, tuple[int, ...], ElementRef | None, bool, Rect | None]] = [
        (root, (index,), None, False, None) for index, root in enumerate(roots)
    ]
    nodes: list[Node] = []
    budget = TreeBudget(limits)
    seen = 0
    depth = 0
    while level:
        if seen + len(level) > limits.nodes:
            level, budget.cut = level[: max(0, limits.nodes - seen)], True
        found_here: list[Node] = []
        next_level: list[tuple[ElementRef, tuple[int, ...], ElementRef | None, bool, Rect | None]]
        next_level = []
        for ref, path, parent, in_scroller, clip in level:
            seen += 1
            raw = read(ref, values)
            node = ax_node(ref, raw, path, parent, clip) if raw is not None else None
            if node is None:
                continue  # gone, or not an element
            if not budget.keeps(node, in_scroller=in_scroller, depth=depth):
                continue
            found_here.append(node)
            if depth + 1 >= limits.depth:
                budget.cut |= bool(node.child_refs)
                continue
            if not (node.showing or depth == 0):
                continue
            children = budget.children(node)
            scroller = node.role in SCROLLERS
            inner = _inner_clip(node, clip, depth)
            next_level.extend(
                (child, (*path, number), node.ref, scroller, inner)
                for number, child in enumerate(children)
            )
        nodes.extend(found_here)
        if until is not None and any(until(node) for node in found_here):
            break
        level = next_level
        depth += 1
    nodes.sort(key=lambda node: node.path)
    return named_by_labels(nodes), budget.cut

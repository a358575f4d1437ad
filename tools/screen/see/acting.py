"""Acting on an element by its id: click, set_value, scroll_to, by the element's own means first.

An element is read again before anything happens to it (gone, moved, renamed: "see again"), and
refused when it is one of Deskhand's own, disabled, or a secure field. Its accessibility action,
editable text or scroll comes first; else the pointer at its centre, with every event reported
for the visualizer (`ScreenEvent`) like the computer tool's. A field without editable text is
clicked and typed into only once the click put the keyboard focus in it.

`ElementActions` is a part of `ScreenTool` (`tool.py`), which sets what it reads in its
constructor.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from tools.base import RunContext, ToolResult
from tools.outcome import Outcome
from tools.screen import errors
from tools.screen.a11y.accessible import SCROLLERS, VALUE_ROLES, AccessibilityBackend, Limits, Node
from tools.screen.a11y.effect import Watch, holds_note, line_subject, not_enabled
from tools.screen.backends.base import ScreenBackend
from tools.screen.displays import Display, display_at
from tools.screen.errors import ScreenError
from tools.screen.events import ScreenEvent
from tools.screen.geometry import Point, Rect
from tools.screen.hand import Hand
from tools.screen.risk import quote
from tools.screen.see import report
from tools.screen.see.access import ScreenAccess
from tools.screen.see.snapshot import Item, role_word
from tools.screen.windows import window_at
from tools.screen.worker import ScreenWorker

log = logging.getLogger(__name__)

__all__ = ["Acting", "ElementActions", "named", "refusal"]

SCROLL_NOTCHES = 60
TYPE_CHUNK = 20  # characters typed between two checks that the field still has the focus
FOCUS_LIMIT = 1.0  # seconds a clicked field may take to report the keyboard focus
UNREADABLE = "Not confirmed: the field's text cannot be read back."
POLL = 0.02  # seconds between two looks while waiting (a look at 200 elements takes ~60 ms)


class PersonHadControls(Exception):
    """The person used the computer while this call waited: it is not done; the model reads
    why (`tools/screen/hand.py`)."""


@dataclass(frozen=True)
class Acting:
    """What an action on an element works with: its chat, the backend, the call's context,
    the displays (to say on which one an event happens) and who has the controls."""

    session_id: int
    worker: ScreenWorker
    ctx: RunContext
    displays: Sequence[Display]
    hand: Hand | None = None

    async def input(self, send: Callable[[ScreenBackend], object]) -> None:
        """One input event, once the person's hand has let go of the controls; refused (not
        sent) when they had them since this call was planned."""
        if self.hand is not None and (note := await self.hand.wait_turn()) is not None:
            raise PersonHadControls(note)
        await self.worker.run(send)

    def display(self, point: Point) -> int | None:
        display = display_at(self.displays, point)
        return display.index if display is not None else None

    def how(self, means: str, point: Point | None) -> dict[str, Any]:
        """How an action acted ("accessibility", "pointer", "none") and where, for programs."""
        return {"how": means, **report.placed(point, self.displays)}


class ElementActions:
    """Acting on an element of a snapshot, for the `screen` tool."""

    # Set by the tool's constructor.
    limits: Limits
    _access: ScreenAccess

    async def _fresh(self, accessibility: AccessibilityBackend, item: Item) -> Item | None:
        """The element read again, or None when the snapshot no longer holds: it is gone, it
        changed role or name (a "Cancel" renamed "Delete all" while the sheet was open is not
        what was judged), or its window moved or closed."""
        (node,) = await accessibility.read([item.node.ref], value=True)
        if node is None or node.role != item.node.role:
            return None
        name = await self._name_now(accessibility, item, node)
        if name != item.node.name:
            return None
        node = replace(node, name=name)  # as a `see` shows it now (a label's, perhaps)
        if item.window is not None:
            worker = self._access.worker
            windows = await worker.windows() if worker is not None else None
            now = next((w for w in windows or () if w.id == item.window.id), None)
            if now is None or now.rect != item.window.rect or now.pid != item.window.pid:
                return None
        node = replace(node, path=item.node.path, parent=item.node.parent)
        return replace(item, node=node)

    async def _name_now(self, accessibility: AccessibilityBackend, item: Item, node: Node) -> str:
        """The element's name as a `see` would show it now: its own, or else (a field named by
        a label) the one its label gives it among its siblings."""
        parent = item.node.parent
        if node.name or not item.node.name or parent is None:
            return node.name
        siblings, _ = await accessibility.tree([parent], replace(self.limits, depth=2))
        return next((found.name for found in siblings if found.ref == node.ref), "")

    def _own_rects(self) -> list[Rect]:
        return [Rect(*(int(v) for v in rect)) for rect in self._access.own_windows()]

    async def _watch(self, item: Item, accessibility: AccessibilityBackend) -> Watch | None:
        """The element's window looked at right before the action, or None when it cannot be
        (no window, or its app stopped answering): the result then says nothing of effects."""
        if item.window is None:
            return None
        try:
            framed = await accessibility.frame_of(item.window)
            if framed is None:
                return None
            app, frame = framed
            return await Watch(accessibility, app, frame, target=item.node).start()
        except ScreenError:
            log.info("the window of %s could not be looked at", item.id, exc_info=True)
            return None

    async def _outcome(
        self, done: ToolResult, watch: Watch | None, item: Item, *, scrolled: bool = False
    ) -> ToolResult:
        """The action's result with its `Effect:` section: what the window shows changed (the
        tool's own word is not the outcome). A failure stays as it is."""
        if done.is_error or watch is None:
            return done
        seen = await watch.outcome()
        changes = list(seen.changes)
        if scrolled:
            changes.insert(0, f"~ {line_subject(item.node)}: scrolled into view")
        kind = seen.kind if not changes or seen.kind != "no_effect" else "done"
        note = seen.note
        said = done.outcome  # what the action itself knows: other text taken, text unreadable
        if said is not None and (said.kind == "differs" or kind == "no_effect"):
            kind, note = said.kind, said.note
        outcome = Outcome(kind=kind, changes=changes, note=note, nothing=seen.nothing)
        return done.model_copy(
            update={"text": f"{done.text}\n{outcome.effect_text()}", "outcome": outcome}
        )

    async def _clickable_centre(
        self, item: Item, accessibility: AccessibilityBackend, worker: ScreenWorker
    ) -> Point | None:
        """The centre of the element, if a click there lands on it (and on nothing of ours)."""
        point = _centre(item.node)
        if point is None or not item.node.showing:
            return None
        if any(rect.contains(point) for rect in self._own_rects()):
            return None
        windows = await worker.windows() or []
        window = window_at(windows, point)
        if window is None or window.pid in self._access.own_pids or window.pid != item.pid:
            return None
        hit = await accessibility.element_at(point, window)
        if hit is None:
            return None
        bounds = item.node.bounds
        hit_bounds = hit[1].bounds
        same = hit[1].ref == item.node.ref
        # Under the centre may be the element's own text or a plain part of it, never another
        # control (a row's "Delete" button, a field's clear button): that was not judged.
        inside = (
            hit[1].kind in ("G", "X")
            and bounds is not None
            and hit_bounds is not None
            and bounds.intersection(hit_bounds) == hit_bounds
        )
        return point if same or inside else None

    def _emit(self, acting: Acting, event: ScreenEvent) -> None:
        """Tell the visualizer what is about to happen (it must never cost the action)."""
        if self._access.on_event is None:
            return
        try:
            self._access.on_event(acting.session_id, event)
        except Exception:
            log.exception("The screen event callback failed")

    def _emit_click(self, acting: Acting, point: Point | None) -> None:
        if point is not None:
            self._emit(
                acting,
                ScreenEvent(
                    kind="click", display=acting.display(point), points=(point,), button="left"
                ),
            )

    async def _click(
        self, item: Item, accessibility: AccessibilityBackend, acting: Acting
    ) -> ToolResult:
        if await accessibility.press(item.node.ref):
            # Pressed by its own action: the ring still marks it where the person sees it.
            middle = _centre(item.node) if item.node.showing else None
            self._emit_click(acting, middle)
            return ToolResult(
                text=f"Pressed {named(item)}.", data=acting.how("accessibility", middle)
            )
        point = await self._clickable_centre(item, accessibility, acting.worker)
        if point is None:
            return ToolResult.failure(errors.NOT_PRESSED)
        self._emit_click(acting, point)
        await acting.input(functools.partial(_click_at, point=point))
        return ToolResult(
            text=f"Clicked {named(item)} at its centre.", data=acting.how("pointer", point)
        )

    async def _set_value(
        self, item: Item, value: str, accessibility: AccessibilityBackend, acting: Acting
    ) -> ToolResult:
        ref = item.node.ref
        if await accessibility.takes_text(ref) and await accessibility.set_text(ref, value):
            point = _centre(item.node) if item.node.showing else None
            self._emit(
                acting,
                ScreenEvent(
                    kind="type",
                    display=acting.display(point) if point else None,
                    points=(point,) if point else (),
                    text=value,
                ),
            )
            now = await accessibility.text(ref)
            if now is not None and now != value:
                return _differs(item, value, now, acting.how("accessibility", point))
            return ToolResult(
                text=f"Set {named(item)} to '{quote(value)}'.",
                data=acting.how("accessibility", point),
            )
        return await self._type_into(item, value, accessibility, acting)

    async def _type_into(
        self, item: Item, value: str, accessibility: AccessibilityBackend, acting: Acting
    ) -> ToolResult:
        """A field without editable text, the way a person fills it: click its centre, and once
        it has the keyboard focus select all and type. Every few characters the field must still
        have the focus (a dialog may take it), and a Stop ends the typing there."""
        if any(unicodedata.category(char) == "Cc" for char in value):
            return ToolResult.failure(errors.NOT_TYPEABLE)
        point = await self._clickable_centre(item, accessibility, acting.worker)
        if point is None:
            return ToolResult.failure(errors.NOT_REACHABLE)
        worker = acting.worker
        self._emit_click(acting, point)
        await acting.input(functools.partial(_click_at, point=point))
        if not await self._has_focus(item, accessibility, worker, wait=FOCUS_LIMIT):
            return ToolResult.failure(errors.NOT_FOCUSED)
        await acting.input(_select_all)
        if not value:
            await acting.input(_erase)
        self._emit(
            acting,
            ScreenEvent(kind="type", display=acting.display(point), points=(point,), text=value),
        )
        await worker.run(lambda backend: backend.prepare_keyboard())
        for start in range(0, len(value), TYPE_CHUNK):
            if acting.ctx.cancelled.is_set():
                return ToolResult.failure(errors.TYPING_STOPPED)
            if start and not await self._has_focus(item, accessibility, worker):
                return ToolResult.failure(errors.FOCUS_LEFT)
            chunk = value[start : start + TYPE_CHUNK]
            await acting.input(functools.partial(_type, text=chunk))
        now = await accessibility.text(item.node.ref)
        typed = acting.how("pointer", point)
        if now is None:
            return ToolResult(
                text=f"Typed '{quote(value)}' into {named(item)} (its text cannot be read back).",
                data=typed,
                outcome=Outcome(kind="unconfirmed", note=UNREADABLE),
            )
        if now != value:
            return _differs(item, value, now, typed)
        return ToolResult(text=f"Set {named(item)} to '{quote(value)}' by typing.", data=typed)

    async def _has_focus(
        self,
        item: Item,
        accessibility: AccessibilityBackend,
        worker: ScreenWorker,
        wait: float = 0.0,
    ) -> bool:
        """Whether the keyboard goes to the element: it reports the focus, it is not a password
        field, and the window with the keyboard is its app's (an element's own focus is only
        its app's: when the window system cannot tell which app has the keys, nothing is typed)."""
        deadline = time.monotonic() + wait
        while True:
            (node,) = await accessibility.read([item.node.ref])
            if node is not None and node.focused and not node.secure:
                window = await worker.run(lambda backend: backend.focused_window())
                if window is not None and window.pid is not None and window.pid == item.pid:
                    return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(POLL)

    async def _scroll_to(
        self, item: Item, accessibility: AccessibilityBackend, acting: Acting
    ) -> ToolResult:
        ref = item.node.ref
        scroller = await _scroller(accessibility, item.node)
        if _in_view(item.node, scroller):
            return ToolResult(
                text=f"{named(item)[:1].upper()}{named(item)[1:]} is in view already.",
                data=acting.how("none", _centre(item.node)),
            )
        box = scroller.bounds if scroller is not None else None
        mark = _centre(scroller) if scroller is not None else _centre(item.node)
        if mark is not None:
            up = item.node.bounds is not None and box is not None and item.node.bounds.y < box.y
            self._emit(
                acting,
                ScreenEvent(
                    kind="scroll",
                    display=acting.display(mark),
                    points=(mark,),
                    text="up" if up else "down",
                ),
            )
        if await accessibility.scroll_to(ref):
            (scrolled,) = await accessibility.read([ref])
            if scrolled is not None and _in_view(scrolled, scroller):
                return _scrolled(item, scrolled, acting.how("accessibility", _centre(scrolled)))
        if box is None:
            return ToolResult.failure(errors.NOT_SCROLLED)
        point = Point(box.x + box.width // 2, box.y + box.height // 2)
        worker = acting.worker
        windows = await worker.windows() or []
        window = window_at(windows, point)
        if (
            any(rect.contains(point) for rect in self._own_rects())
            or window is None
            or window.pid != item.pid
        ):
            return ToolResult.failure(errors.NOT_SCROLLED)
        # The wheel acts on what is under the pointer: never on a control it would change.
        under = await accessibility.element_at(point, window)
        if under is None or under[1].role in VALUE_ROLES or under[1].role == "combo box":
            return ToolResult.failure(errors.NOT_SCROLLED)
        node = item.node
        for _ in range(SCROLL_NOTCHES):
            up = node.bounds is not None and node.bounds.y < box.y
            await acting.input(
                functools.partial(_wheel, point=point, direction="up" if up else "down")
            )
            (now,) = await accessibility.read([ref])
            if now is None:
                return ToolResult.failure(errors.STALE)
            if _in_view(now, scroller):
                return _scrolled(item, now, acting.how("pointer", point))
            node = now
        return ToolResult.failure(errors.NOT_SCROLLED)


def named(item: Item) -> str:
    node = item.node
    name = f" '{quote(node.name)}'" if node.name else ""
    app = f", {quote(item.app, 30)}" if item.app else ""
    return f"{item.id}{name} ({role_word(node)}{app})"


def _differs(item: Item, value: str, now: str, data: dict[str, Any]) -> ToolResult:
    """The field took other text than was given (a mask, a length limit, a script): said as it
    is, with what it holds (never a password field's: those are never filled)."""
    return ToolResult(
        text=f"Put '{quote(value)}' into {named(item)}.",
        data=data,
        outcome=Outcome(kind="differs", note=holds_note(now)),
    )


def refusal(action: str, item: Item, own_pids: frozenset[int]) -> ToolResult | None:
    node = item.node
    if item.pid is not None and item.pid in own_pids:
        return ToolResult.failure(errors.OWN_ELEMENT)
    if action == "set_value":
        if node.secure:
            return ToolResult.failure(errors.SECURE_VALUE)
        if node.kind != "T" and not node.editable:
            return ToolResult.failure(errors.NOT_EDITABLE)
    if action in ("click", "set_value") and not node.enabled:
        refused = not_enabled(node, "clicked" if action == "click" else "changed")
        return ToolResult(
            text=refused.note, is_error=True, data={"code": "refused"}, outcome=refused
        )
    return None


async def _scroller(accessibility: AccessibilityBackend, node: Node) -> Node | None:
    """The nearest list, table or scroll pane holding the element (five levels up at most)."""
    parent = node.parent
    for _ in range(5):
        if parent is None:
            return None
        (found,) = await accessibility.read([parent])
        if found is None:
            return None
        if found.role in SCROLLERS and found.bounds is not None:
            return found
        parent = await accessibility.parent(parent)
    return None


def _in_view(node: Node, scroller: Node | None) -> bool:
    if not node.showing or node.bounds is None:
        return False
    if scroller is None or scroller.bounds is None:
        return True
    return scroller.bounds.intersection(node.bounds) == node.bounds


def _scrolled(item: Item, node: Node, data: dict[str, Any]) -> ToolResult:
    assert node.bounds is not None
    box = node.bounds
    return ToolResult(
        text=f"Scrolled {named(item)} into view (now at global ({box.x}, {box.y}) "
        f"{box.width}×{box.height}; see again for its screenshot coordinates).",
        data=data,
    )


def _centre(node: Node) -> Point | None:
    box = node.bounds
    return Point(box.x + box.width // 2, box.y + box.height // 2) if box is not None else None


def _wheel(backend: ScreenBackend, point: Point, direction: Literal["up", "down"]) -> None:
    backend.move(point)
    backend.wheel(direction)


def _click_at(backend: ScreenBackend, point: Point) -> None:
    backend.move(point)
    backend.button("left", True, 1)
    backend.button("left", False, 1)


def _select_all(backend: ScreenBackend) -> None:
    """Cmd+A on a Mac, Ctrl+A elsewhere: what is typed next replaces the field's text."""
    modifier = "Super_L" if backend.name == "macos" else "Control_L"
    backend.key(modifier, True)
    try:
        backend.key("a", True)
        backend.key("a", False)
    finally:
        backend.key(modifier, False)


def _erase(backend: ScreenBackend) -> None:
    """BackSpace: the selected text goes (setting a field to nothing types nothing)."""
    backend.key("BackSpace", True)
    backend.key("BackSpace", False)


def _type(backend: ScreenBackend, text: str) -> None:
    for char in text:
        backend.type_char(char)

"""The `screen` function tool: see other apps' elements with ids, wait for them, act on them by id.

Actions (one tool, a table of rows below):

- `screens`, `windows`: the displays, and the open windows front to back with their ids (reads);
- `see` (read): a snapshot of a target window (or display): an id and a line per element, the
  ids optionally drawn on a screenshot of its display (`elements` in `snapshot.py`);
- `screenshot` (read): the pixels of a target window or display;
- `wait` (read): until an element with a role and/or label appears (or, with `gone`, disappears)
  in the target's app, polling its tree; fails at the timeout (5 s by default, at most 30) with
  what it last saw;
- `click`, `set_value`, `scroll_to`: act on an element by its id, by the element's own means
  first (its accessibility action, editable text, scroll), else through the pointer at its centre;
  a field without editable text is clicked and typed into (select-all first, so the text replaces
  what was there), only once the click put the keyboard focus in it. Each is judged like the
  click or typing it amounts to, by the element as it is now (`risk.py`), and a password field
  is never filled.

What each action does is reported as the computer tool's `ScreenEvent`s (a click ring at the
element's centre, the typed text, a scroll), so the app's visualizer shows it the same way; its
captures are wrapped in the same `before_capture` / `after_capture` hooks.

Targets are in `targets.py`. Before any call runs the snapshot's element is read again: if it is
gone, or its window moved or closed, the call is refused with "see again" (an element of a
snapshot put back from another process, `saved.py`, must also still have the same name). Deskhand's own windows
are never listed, looked into or acted on. The first look at the screen in a chat is a question
of its own, shared with the computer tool (`Looks`).
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from PIL import Image
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools.base import (
    ActionInfo,
    FunctionTool,
    InvalidInput,
    Risk,
    RunContext,
    ToolImage,
    ToolResult,
)
from tools.screen import errors
from tools.screen.a11y.accessible import (
    LIMITS,
    SCROLLERS,
    VALUE_ROLES,
    AccessibilityBackend,
    ElementRef,
    Limits,
    Node,
)
from tools.screen.a11y.atspi_tables import KIND_NAMES
from tools.screen.backends.base import ScreenBackend
from tools.screen.displays import Display, describe_displays, display_at, primary_display
from tools.screen.errors import AccessibilityDenied, ScreenError
from tools.screen.events import ScreenEvent, around_capture
from tools.screen.geometry import Point, Rect
from tools.screen.risk import quote, screen_risk
from tools.screen.scaling import ImageFrame
from tools.screen.see import report
from tools.screen.see.access import Looks, ScreenAccess
from tools.screen.see.annotate import annotate
from tools.screen.see.snapshot import (
    Item,
    Snapshot,
    SnapshotStore,
    element_line,
    number_items,
    role_word,
    shown_rect,
)
from tools.screen.see.targets import Resolved, Target, TargetError, resolve
from tools.screen.windows import Window, describe_windows, window_at
from tools.screen.worker import ScreenWorker

log = logging.getLogger(__name__)

__all__ = ["Looks", "ScreenCall", "ScreenInput", "ScreenTool"]

Action = Literal[
    "screens", "windows", "see", "screenshot", "wait", "click", "set_value", "scroll_to"
]
READS = frozenset({"screens", "windows", "see", "screenshot", "wait"})
WAIT_DEFAULT = 5.0
WAIT_MAX = 30.0
POLL = 0.02  # seconds between two looks while waiting (a look at 200 elements takes ~60 ms)
SCROLL_NOTCHES = 60
TYPE_CHUNK = 20  # characters typed between two checks that the field still has the focus
FOCUS_LIMIT = 1.0  # seconds a clicked field may take to report the keyboard focus
LAST_SEEN = 30  # element lines a failed wait reports
FIRST_LOOK = "Let Claude see your screen in this chat?"
FIRST_LOOK_REASON = "The first look at your screen in this chat"

DESCRIPTION = """\
See and use other apps' windows through their accessibility elements, with ids.
- windows: the open windows, front to back, with ids. screens: the displays.
- see: a snapshot of a window: an id and a line per element, e.g. `T1 text field "Name" (412,230 \
200×28)`. Ids: B button, T text field, L link, C checkbox, R radio, S slider, M menu item, \
I image, G group, X other. Bounds are pixels of a screenshot of the window's display (the \
computer tool's coordinates). annotate: true adds that screenshot with the ids drawn on it.
- click, set_value (with value), scroll_to: act on an element by its id from the latest see \
(or from `snapshot`). If the window changed since, you are asked to see again.
- wait: until an element with that role and/or label appears (gone: true, disappears), \
up to timeout seconds (default 5, at most 30).
- screenshot: the pixels of a window or display.
Target (see, wait, screenshot): nothing for the front-most window; app (its name or class), \
with window_index (0 = its front-most window) or title; title alone (text in the window title); \
window_id (from windows); display (an index: all of it). Password fields are never filled."""


class ScreenInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Action
    app: str | None = Field(default=None, max_length=200)
    title: str | None = Field(default=None, max_length=200)
    window_index: int | None = Field(default=None, ge=0, le=1000)
    window_id: int | None = Field(default=None, ge=0)
    display: int | None = Field(default=None, ge=0, le=64)
    annotate: bool = False
    id: str | None = Field(default=None, pattern=r"^[BTLCRSMIGX][0-9]{1,4}$")
    snapshot: str | None = Field(default=None, pattern=r"^s[0-9]{1,9}$")
    value: str | None = Field(default=None, max_length=10_000)
    role: str | None = Field(default=None, max_length=60)
    label: str | None = Field(default=None, max_length=200)
    gone: bool = False
    timeout: float = Field(default=WAIT_DEFAULT, gt=0, le=WAIT_MAX)

    def target(self) -> Target:
        return Target(
            app=self.app,
            title=self.title,
            window_index=self.window_index,
            window_id=self.window_id,
            display=self.display,
        )


@dataclass(frozen=True)
class ScreenCall:
    """One call: its input and the chat it is made in."""

    input: ScreenInput
    session_id: int = 0


@dataclass(frozen=True)
class _Row:
    """One action: its usual risk (before the element is known) and what it is for."""

    risk: Risk
    description: str
    member: str = ""  # the computer member it is judged like ("left_click", "type", "scroll")


ROWS: dict[str, _Row] = {
    "screens": _Row(Risk.READ, "Lists the displays"),
    "windows": _Row(Risk.READ, "Lists the open windows"),
    "see": _Row(Risk.READ, "Reads a window's elements (names, values, where they are)"),
    "screenshot": _Row(Risk.READ, "Takes a screenshot of a window or display"),
    "wait": _Row(Risk.READ, "Waits for an element to appear or disappear"),
    "click": _Row(Risk.CHANGE, "Presses an element; judged by the element", "left_click"),
    "set_value": _Row(Risk.CHANGE, "Puts text in a field; judged by the field", "type"),
    "scroll_to": _Row(Risk.READ, "Scrolls an element into view", "scroll"),
}


class ScreenTool(FunctionTool[ScreenCall]):
    name = "screen"
    title = "Screen elements"
    description = DESCRIPTION

    def __init__(
        self,
        access: ScreenAccess,
        *,
        snapshots: SnapshotStore | None = None,
        limits: Limits = LIMITS,
    ) -> None:
        """`access`: what the tool reads the screen through and tells the app (see `access`)."""
        self._access = access
        self.snapshots = snapshots or SnapshotStore()
        self.limits = limits

    # --- the contract --------------------------------------------------------------------------

    def input_schema(self) -> dict[str, Any]:
        schema = ScreenInput.model_json_schema()
        schema.pop("title", None)
        return schema

    def validate(self, raw: dict[str, Any], session_id: int = 0) -> ScreenCall:
        try:
            return ScreenCall(input=ScreenInput.model_validate(raw), session_id=session_id)
        except ValidationError as exc:
            raise InvalidInput(self.name) from exc

    def offered(self) -> bool:
        return self._access.available()

    def action(self, call: ScreenCall) -> str:
        return call.input.action

    def actions(self) -> list[ActionInfo]:
        return [
            ActionInfo(name=name, risk=row.risk, description=row.description)
            for name, row in ROWS.items()
        ]

    def _first_look(self, call: ScreenCall) -> bool:
        return (
            call.input.action in READS
            and call.input.action != "screens"
            and self._access.looks is not None
            and not self._access.looks.seen(call.session_id)
        )

    def _item(self, call: ScreenCall) -> Item | None:
        if call.input.id is None:
            return None
        return self.snapshots.latest_item(call.session_id, call.input.snapshot, call.input.id)

    def risk(self, call: ScreenCall) -> tuple[Risk, str]:
        action = call.input.action
        if self._first_look(call):
            return Risk.CHANGE, FIRST_LOOK_REASON  # Ask and Ask-for-changes modes ask
        row = ROWS[action]
        if not row.member:
            return row.risk, row.description
        item = self._item(call)
        element = item.node.element(item.app) if item is not None else None
        return screen_risk(row.member, {}, element=element)

    def summary(self, call: ScreenCall) -> str:
        given = call.input
        if self._first_look(call):
            return FIRST_LOOK
        where = given.target().words()
        match given.action:
            case "screens":
                return "List the displays"
            case "windows":
                return "List the open windows"
            case "see":
                marked = ", with the ids drawn on a screenshot" if given.annotate else ""
                return f"See the elements of {where}{marked}"
            case "screenshot":
                return f"Take a screenshot of {where}"
            case "wait":
                what = _wanted_words(given.role, given.label)
                change = "disappear" if given.gone else "appear"
                return f"Wait up to {given.timeout:g} s for {what} to {change} in {where}"
        item = self._item(call)
        named = _named(item) if item is not None else f"element {given.id}"
        match given.action:
            case "click":
                return f"Click {named}"
            case "set_value":
                return f"Set {named} to '{quote(given.value or '')}'"
            case _:
                return f"Scroll {named} into view"

    def target(self, call: ScreenCall) -> str | None:
        item = self._item(call)
        if item is not None:
            window = f" — {quote(item.window.title, 60)}" if item.window else ""
            return f"{quote(item.app, 40)}{window}"
        if call.input.action in ("see", "wait", "screenshot"):
            return call.input.target().words()
        return None

    async def prepare(self, call: ScreenCall) -> ScreenCall | ToolResult:
        """What no answer could allow, refused before anyone is asked: a missing id or value,
        an id from no fresh snapshot, a changed window, a password field, Deskhand's own.
        Else the call, with its element read again so the gate judges it as it is now."""
        prepared = await self._prepare(call)
        return _coded(prepared) if isinstance(prepared, ToolResult) else prepared

    async def _prepare(self, call: ScreenCall) -> ScreenCall | ToolResult:
        given = call.input
        if given.action == "wait" and not (given.role or given.label):
            return ToolResult.failure(errors.NEEDS_WHAT)
        if given.action not in ("click", "set_value", "scroll_to"):
            return call
        if given.id is None:
            return ToolResult.failure(errors.NEEDS_ID)
        if given.action == "set_value" and given.value is None:
            return ToolResult.failure(errors.NEEDS_VALUE)
        accessibility = self._access.accessibility
        if accessibility is None:
            return ToolResult.failure(errors.NO_ACCESSIBILITY)
        snapshot = self.snapshots.get(call.session_id, given.snapshot)
        if snapshot is None:
            return ToolResult.failure(errors.NO_SNAPSHOT)
        item = snapshot.items.get(given.id)
        if item is None:
            return ToolResult.failure(errors.NO_SUCH_ID)
        try:
            fresh = await self._fresh(accessibility, item)
        except AccessibilityDenied:
            return ToolResult.failure(errors.ACCESSIBILITY_DENIED)
        except ScreenError:
            return ToolResult.failure(errors.UNEXPECTED)
        if fresh is None:
            return ToolResult.failure(errors.STALE)
        self.snapshots.refresh(call.session_id, snapshot.id, fresh)  # the gate judges it as is
        return _refusal(given.action, fresh, self._access.own_pids) or call

    # --- running -------------------------------------------------------------------------------

    async def run(self, call: ScreenCall, ctx: RunContext) -> ToolResult:
        action = call.input.action
        worker = self._access.worker
        if worker is None:
            return ToolResult.failure(errors.UNAVAILABLE)
        try:
            result = await self._run(action, call, worker, ctx)
        except TargetError as exc:
            return await self._missed(exc, worker)
        except AccessibilityDenied:
            return _coded(ToolResult.failure(errors.ACCESSIBILITY_DENIED))
        except ScreenError:
            log.warning("the screen tool's %s failed", action, exc_info=True)
            return _coded(ToolResult.failure(errors.UNEXPECTED))
        if action in READS and not result.is_error and self._access.looks is not None:
            self._access.looks.saw(call.session_id)
        return _coded(result)

    async def _missed(self, exc: TargetError, worker: ScreenWorker) -> ToolResult:
        """A target that named no window (or several): the message, and the candidates as data."""
        try:
            displays = await worker.displays() if exc.windows else list(exc.displays)
            every = await self._windows(worker) if exc.windows else []
        except (TargetError, ScreenError):
            displays, every = [], []
        names = await self._app_names()
        candidates = [
            {"type": "window", **report.window(w, displays, every, names)} for w in exc.windows
        ] + [{"type": "screen", **report.screen(d)} for d in exc.displays]
        return ToolResult.failure(str(exc), {"code": exc.code, "candidates": candidates})

    async def _run(
        self, action: str, call: ScreenCall, worker: ScreenWorker, ctx: RunContext
    ) -> ToolResult:
        if action == "screens":
            displays = await worker.displays()
            return ToolResult(
                text=describe_displays(displays, None),
                data={"screens": [report.screen(display) for display in displays]},
            )
        if action == "windows":
            windows = await self._windows(worker)
            displays = await worker.displays()
            names = await self._app_names()
            listed = [report.window(w, displays, windows, names) for w in windows]
            return ToolResult(text=await self._windows_text(windows), data={"windows": listed})
        if action == "screenshot":
            return await self._screenshot(call.input, worker)
        accessibility = self._access.accessibility
        if accessibility is None:
            return ToolResult.failure(errors.NO_ACCESSIBILITY)
        if action == "see":
            return await self._see(call, accessibility, worker)
        if action == "wait":
            return await self._wait(call, accessibility, worker, ctx)
        item = self._item(call)
        if item is None:
            return ToolResult.failure(errors.NO_SNAPSHOT)
        fresh = await self._fresh(accessibility, item)  # approval may have taken a while
        if fresh is None:
            return ToolResult.failure(errors.STALE)
        if (refused := _refusal(action, fresh, self._access.own_pids)) is not None:
            return refused
        acting = _Acting(call.session_id, worker, ctx, await worker.displays())
        if action == "click":
            done = await self._click(fresh, accessibility, acting)
        elif action == "set_value":
            done = await self._set_value(fresh, call.input.value or "", accessibility, acting)
        else:
            done = await self._scroll_to(fresh, accessibility, acting)
        if done.data is not None:  # how and where it acted, with the element it acted on
            snapshot = self.snapshots.get(call.session_id, call.input.snapshot)
            centre = _centre(fresh.node)
            display = display_at(acting.displays, centre) if centre is not None else None
            display = display or primary_display(acting.displays)
            done.data = {
                "snapshot": snapshot.id if snapshot is not None else None,
                "element": report.element(fresh, display),
                **done.data,
            }
        return done

    # --- looking -------------------------------------------------------------------------------

    async def _windows(self, worker: ScreenWorker) -> list[Window]:
        windows = await worker.windows()
        if windows is None:
            raise TargetError(errors.NO_WINDOW_LIST)
        return [w for w in windows if w.pid not in self._access.own_pids]

    async def _app_names(self) -> dict[int, str]:
        accessibility = self._access.accessibility
        if accessibility is None:
            return {}
        try:
            return {app.pid: app.name for app in await accessibility.apps() if app.pid is not None}
        except ScreenError:
            return {}

    async def _windows_text(self, windows: Sequence[Window]) -> str:
        names = await self._app_names()
        text = describe_windows(windows)
        extra = [
            f"- window {w.id}'s app is also known as '{quote(names[w.pid], 40)}'"
            for w in windows
            if w.pid in names and names[w.pid].casefold() not in (n.casefold() for n in w.names())
        ]
        return "\n".join([text, *extra])

    async def _resolve(
        self, given: ScreenInput, worker: ScreenWorker
    ) -> tuple[Resolved, dict[int, str]]:
        windows = await self._windows(worker)
        names = await self._app_names()
        return resolve(given.target(), windows, await worker.displays(), names), names

    async def _see(
        self, call: ScreenCall, accessibility: AccessibilityBackend, worker: ScreenWorker
    ) -> ToolResult:
        resolved, names = await self._resolve(call.input, worker)
        snapshot, silent, bundles = await self._snapshot(
            call.session_id, resolved, names, accessibility
        )
        text = snapshot.lines()
        if silent:
            text += "\n" + "\n".join(f"- window {w.id}: {errors.NO_APP_ELEMENTS}" for w in silent)
        data = report.snapshot(snapshot, resolved.display, resolved.window, bundles, names)
        data["silent_windows"] = [w.id for w in silent]
        if not call.input.annotate:
            return ToolResult(text=text, data=data)
        image = await self._annotated(snapshot, worker)
        frame = snapshot.frame
        data["image"] = {
            "width": image.width,
            "height": image.height,
            "scale": frame.width / frame.region.width,
        }
        return ToolResult(text=text, images=[image], data=data)

    async def _snapshot(
        self,
        session_id: int,
        resolved: Resolved,
        names: Mapping[int, str],
        accessibility: AccessibilityBackend,
    ) -> tuple[Snapshot, list[Window], dict[int, str]]:
        """The snapshot, the windows whose apps share no elements, and the apps' bundle ids."""
        frame = ImageFrame.for_region(resolved.display.index, resolved.display.frame)
        found: list[tuple[Node, str, int | None, Window | None]] = []
        silent: list[Window] = []
        bundles: dict[int, str] = {}
        cut = False
        budget = self.limits.elements
        for window in resolved.windows:
            if budget <= 0:
                cut = True
                break
            framed = await accessibility.frame_of(window)
            if framed is None:
                silent.append(window)
                continue
            app, root = framed
            if app.pid is not None and app.bundle_id:
                bundles[app.pid] = app.bundle_id
            nodes, window_cut = await accessibility.tree(
                [root.ref], replace(self.limits, elements=budget)
            )
            cut = cut or window_cut
            listed = [node for node in nodes if node.listed and len(node.path) > 1]
            budget -= len(listed)
            found.extend((node, app.name, app.pid, window) for node in listed)
        snapshot = self.snapshots.add(
            session_id, frame, number_items(found), resolved.subject(names), cut=cut
        )
        return snapshot, silent, bundles

    async def _annotated(self, snapshot: Snapshot, worker: ScreenWorker) -> ToolImage:
        frame = snapshot.frame
        pixels = await self._capture(worker, frame)
        boxes = [
            (item.id, shown)
            for item in snapshot.items.values()
            if item.node.showing
            and item.node.bounds is not None
            and (shown := shown_rect(item.node.bounds, frame)) is not None
        ]
        return await asyncio.to_thread(_png, annotate(pixels, boxes) if boxes else pixels)

    async def _screenshot(self, given: ScreenInput, worker: ScreenWorker) -> ToolResult:
        resolved, names = await self._resolve(given, worker)
        region = resolved.display.frame
        if resolved.window is not None:
            region = resolved.window.rect.intersection(resolved.display.frame) or region
        frame = ImageFrame.for_region(resolved.display.index, region)
        pixels = await self._capture(worker, frame)
        image = await asyncio.to_thread(_png, pixels)
        text = (
            f"Screenshot of {resolved.subject(names)}: the area ({region.x}, {region.y}) "
            f"{region.width}×{region.height} of display {resolved.display.index}, at "
            f"{frame.width}×{frame.height}."
        )
        data = {
            "width": image.width,
            "height": image.height,
            "scale": image.width / region.width,
            "screen": resolved.display.index,
            "window": resolved.window.id if resolved.window is not None else None,
            "global_bounds": report.rect(region),
        }
        return ToolResult(text=text, images=[image], data=data)

    async def _capture(self, worker: ScreenWorker, frame: ImageFrame) -> Image.Image:
        async with around_capture(self._access.before_capture, self._access.after_capture):
            return await worker.run(lambda backend: backend.capture(frame.region, frame.size))

    # --- waiting -------------------------------------------------------------------------------

    async def _wait(
        self,
        call: ScreenCall,
        accessibility: AccessibilityBackend,
        worker: ScreenWorker,
        ctx: RunContext,
    ) -> ToolResult:
        given = call.input
        resolved, names = await self._resolve(given, worker)
        deadline = time.monotonic() + given.timeout
        started = time.monotonic()
        pids = {w.pid for w in resolved.windows if w.pid is not None}
        last: list[Node] = []
        while True:
            roots = await _roots(accessibility, pids)

            def wanted(node: Node) -> bool:
                return node.showing and _matches(node, given.role, given.label)

            last, _ = await accessibility.tree(
                roots, self.limits, details=False, until=None if given.gone else wanted
            )
            matches = [node for node in last if wanted(node)]
            if bool(matches) != given.gone:
                waited = time.monotonic() - started
                break
            if time.monotonic() >= deadline or ctx.cancelled.is_set():
                phrase = _timed_out(given, resolved, names, last)
                return ToolResult.failure(phrase, {"code": "timeout", "candidates": []})
            await asyncio.sleep(POLL)
        what = _wanted_words(given.role, given.label)
        elapsed = round(waited * 1000)
        if given.gone:
            return ToolResult(
                text=f"{what[:1].upper()}{what[1:]} disappeared after {waited:.2f} s.",
                data={"state": "gone", "element": None, "snapshot": None, "elapsed_ms": elapsed},
            )
        snapshot, _, _ = await self._snapshot(call.session_id, resolved, names, accessibility)
        wanted_refs = {m.ref for m in matches}
        items = [item for item in snapshot.items.values() if item.node.ref in wanted_refs]
        found = ", ".join(item.id for item in items) if items else "it (not in the new snapshot)"
        first = report.element(items[0], resolved.display) if items else None
        return ToolResult(
            text=f"{what[:1].upper()}{what[1:]} appeared after {waited:.2f} s: {found}.\n"
            + snapshot.lines(),
            data={
                "state": "found",
                "element": first,
                "snapshot": snapshot.id,
                "elapsed_ms": elapsed,
            },
        )

    # --- acting --------------------------------------------------------------------------------

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

    def _emit(self, acting: _Acting, event: ScreenEvent) -> None:
        """Tell the visualizer what is about to happen (it must never cost the action)."""
        if self._access.on_event is None:
            return
        try:
            self._access.on_event(acting.session_id, event)
        except Exception:
            log.exception("The screen event callback failed")

    def _emit_click(self, acting: _Acting, point: Point | None) -> None:
        if point is not None:
            self._emit(
                acting,
                ScreenEvent(
                    kind="click", display=acting.display(point), points=(point,), button="left"
                ),
            )

    async def _click(
        self, item: Item, accessibility: AccessibilityBackend, acting: _Acting
    ) -> ToolResult:
        if await accessibility.press(item.node.ref):
            # Pressed by its own action: the ring still marks it where the person sees it.
            centre = _centre(item.node) if item.node.showing else None
            self._emit_click(acting, centre)
            return ToolResult(
                text=f"Pressed {_named(item)}.", data=acting.how("accessibility", centre)
            )
        point = await self._clickable_centre(item, accessibility, acting.worker)
        if point is None:
            return ToolResult.failure(errors.NOT_PRESSED)
        self._emit_click(acting, point)
        await acting.worker.run(functools.partial(_click_at, point=point))
        return ToolResult(
            text=f"Clicked {_named(item)} at its centre.", data=acting.how("pointer", point)
        )

    async def _set_value(
        self, item: Item, value: str, accessibility: AccessibilityBackend, acting: _Acting
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
                return ToolResult.failure(errors.NOT_SET)
            return ToolResult(
                text=f"Set {_named(item)} to '{quote(value)}'.",
                data=acting.how("accessibility", point),
            )
        return await self._type_into(item, value, accessibility, acting)

    async def _type_into(
        self, item: Item, value: str, accessibility: AccessibilityBackend, acting: _Acting
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
        await worker.run(functools.partial(_click_at, point=point))
        if not await self._has_focus(item, accessibility, worker, wait=FOCUS_LIMIT):
            return ToolResult.failure(errors.NOT_FOCUSED)
        await worker.run(_select_all)
        if not value:
            await worker.run(_erase)
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
            await worker.run(functools.partial(_type, text=chunk))
        now = await accessibility.text(item.node.ref)
        typed = acting.how("pointer", point)
        if now is None:
            return ToolResult(
                text=f"Typed '{quote(value)}' into {_named(item)} (its text cannot be read back).",
                data=typed,
            )
        if now != value:
            return ToolResult.failure(errors.TYPED_DIFFERENTLY)
        return ToolResult(text=f"Set {_named(item)} to '{quote(value)}' by typing.", data=typed)

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
        self, item: Item, accessibility: AccessibilityBackend, acting: _Acting
    ) -> ToolResult:
        ref = item.node.ref
        scroller = await _scroller(accessibility, item.node)
        if _in_view(item.node, scroller):
            return ToolResult(
                text=f"{_named(item)[:1].upper()}{_named(item)[1:]} is in view already.",
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
            await worker.run(
                functools.partial(_wheel, point=point, direction="up" if up else "down")
            )
            (now,) = await accessibility.read([ref])
            if now is None:
                return ToolResult.failure(errors.STALE)
            if _in_view(now, scroller):
                return _scrolled(item, now, acting.how("pointer", point))
            node = now
        return ToolResult.failure(errors.NOT_SCROLLED)


@dataclass(frozen=True)
class _Acting:
    """What an action on an element works with: its chat, the backend, the call's context and
    the displays (to say on which one an event happens)."""

    session_id: int
    worker: ScreenWorker
    ctx: RunContext
    displays: Sequence[Display]

    def display(self, point: Point) -> int | None:
        display = display_at(self.displays, point)
        return display.index if display is not None else None

    def how(self, means: str, point: Point | None) -> dict[str, Any]:
        """How an action acted ("accessibility", "pointer", "none") and where, for programs."""
        return {"how": means, **report.placed(point, self.displays)}


# --- helpers -------------------------------------------------------------------------------------


def _png(image: Image.Image) -> ToolImage:
    """PNG bytes of an image (CPU work: call it in a thread). The pipeline bounds what the
    model gets; this keeps the full capture for the thread."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return ToolImage(
        data=buffer.getvalue(), media_type="image/png", width=image.width, height=image.height
    )


def _named(item: Item) -> str:
    node = item.node
    name = f" '{quote(node.name)}'" if node.name else ""
    app = f", {quote(item.app, 30)}" if item.app else ""
    return f"{item.id}{name} ({role_word(node)}{app})"


def _refusal(action: str, item: Item, own_pids: frozenset[int]) -> ToolResult | None:
    node = item.node
    if item.pid is not None and item.pid in own_pids:
        return ToolResult.failure(errors.OWN_ELEMENT)
    if action == "set_value":
        if node.secure:
            return ToolResult.failure(errors.SECURE_VALUE)
        if node.kind != "T" and not node.editable:
            return ToolResult.failure(errors.NOT_EDITABLE)
    if action in ("click", "set_value") and not node.enabled:
        return ToolResult.failure(errors.DISABLED)
    return None


def _wanted_words(role: str | None, label: str | None) -> str:
    thing = role or "an element"
    return f"{thing} '{quote(label, 40)}'" if label else thing


def _matches(node: Node, role: str | None, label: str | None) -> bool:
    if role is not None:
        wanted = role.casefold().strip()
        names = {node.role, role_word(node), KIND_NAMES[node.kind], node.kind.casefold()}
        if wanted not in {name.casefold() for name in names}:
            return False
    return label is None or label.casefold() in node.name.casefold()


async def _roots(accessibility: AccessibilityBackend, pids: set[int]) -> list[ElementRef]:
    """The top-level accessible windows of these processes (read again on every look, so a
    dialog that opens while waiting is searched too)."""
    roots: list[ElementRef] = []
    for app in await accessibility.apps():
        if app.pid in pids:
            roots.extend(frame.ref for frame in await accessibility.frames(app) if frame.showing)
    return roots


def _timed_out(
    given: ScreenInput, resolved: Resolved, names: Mapping[int, str], last: Sequence[Node]
) -> str:
    what = _wanted_words(given.role, given.label)
    change = "disappear" if given.gone else "appear"
    frame = ImageFrame.for_region(resolved.display.index, resolved.display.frame)
    shown = [n for n in last if n.listed and n.showing and len(n.path) > 1][:LAST_SEEN]
    items = number_items([(node, "", None, None) for node in shown])
    lines = [element_line(item, frame).split(" ", 1)[1] for item in items.values()]
    seen = "\n".join(f"- {line}" for line in lines) or "- nothing"
    return (
        f"Timed out: {what} did not {change} in {resolved.subject(names)} within "
        f"{given.timeout:g} s. What it showed last (no ids; see again to act):\n{seen}"
    )


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
        text=f"Scrolled {_named(item)} into view (now at global ({box.x}, {box.y}) "
        f"{box.width}×{box.height}; see again for its screenshot coordinates).",
        data=data,
    )


def _coded(result: ToolResult) -> ToolResult:
    """A failure with its code for programs, when it has none yet (`report.CODES`)."""
    if result.is_error and result.data is None:
        return result.model_copy(update={"data": {"code": report.code_of(result.text)}})
    return result


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

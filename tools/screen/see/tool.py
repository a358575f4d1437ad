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

Each acting call's result ends with the `Effect:` lines of what changed in the element's window,
read before and after (`a11y/effect.py`); a disabled element is refused with `not enabled`, and
a field that keeps other text than was given says what it holds (`differs`).

What each action does is reported as the computer tool's `ScreenEvent`s (a click ring at the
element's centre, the typed text, a scroll), so the app's visualizer shows it the same way; its
captures are wrapped in the same `before_capture` / `after_capture` hooks.

Targets are in `targets.py`, acting on an element in `acting.py`. Before any call runs the
snapshot's element is read again: if it is gone, or its window moved or closed, the call is
refused with "see again" (an element of a snapshot put back from another process, `saved.py`,
must also still have the same name). Deskhand's own windows are never listed, looked into or
acted on. The first look at the screen in a chat is a question of its own, shared with the
computer tool (`Looks`).
"""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from PIL import Image
from pydantic import ValidationError

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
    AccessibilityBackend,
    ElementRef,
    Limits,
    Node,
)
from tools.screen.a11y.atspi.tables import KIND_NAMES
from tools.screen.displays import describe_displays
from tools.screen.errors import AccessibilityDenied, ScreenError
from tools.screen.events import around_capture
from tools.screen.risk import quote, screen_risk
from tools.screen.scaling import ImageFrame
from tools.screen.see import report
from tools.screen.see.access import Looks, ScreenAccess
from tools.screen.see.acting import (
    POLL,
    Acting,
    ElementActions,
    PersonHadControls,
    named,
    refusal,
)
from tools.screen.see.annotate import annotate
from tools.screen.see.inputs import (
    DESCRIPTION,
    FIRST_LOOK,
    FIRST_LOOK_REASON,
    LAST_SEEN,
    READS,
    ROWS,
    ScreenCall,
    ScreenInput,
)
from tools.screen.see.snapshot import (
    Item,
    Snapshot,
    SnapshotStore,
    element_line,
    number_items,
    role_word,
    shown_rect,
)
from tools.screen.see.targets import Resolved, TargetError, resolve
from tools.screen.windows import Window, describe_windows
from tools.screen.worker import ScreenWorker

log = logging.getLogger(__name__)

__all__ = ["Looks", "ScreenCall", "ScreenInput", "ScreenTool"]


class ScreenTool(ElementActions, FunctionTool[ScreenCall]):
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
        what_item = named(item) if item is not None else f"element {given.id}"
        match given.action:
            case "click":
                return f"Click {what_item}"
            case "set_value":
                return f"Set {what_item} to '{quote(given.value or '')}'"
            case _:
                return f"Scroll {what_item} into view"

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
        return refusal(given.action, fresh, self._access.own_pids) or call

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
        except PersonHadControls as exc:  # the person's own hand took over: not sent
            return ToolResult.failure(str(exc), {"code": "refused"})
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
        if (refused := refusal(action, fresh, self._access.own_pids)) is not None:
            return refused
        hand = self._access.hand_for(call.session_id)
        acting = Acting(call.session_id, worker, ctx, await worker.displays(), hand)
        watch = await self._watch(fresh, accessibility)  # the window as it was before
        if action == "click":
            done = await self._click(fresh, accessibility, acting)
        elif action == "set_value":
            done = await self._set_value(fresh, call.input.value or "", accessibility, acting)
        else:
            done = await self._scroll_to(fresh, accessibility, acting)
        moved = action == "scroll_to" and (done.data or {}).get("how") not in (None, "none")
        done = await self._outcome(done, watch, fresh, scrolled=moved)
        if done.data is not None:  # how and where it acted, with the element it acted on
            snapshot = self.snapshots.get(call.session_id, call.input.snapshot)
            display = report.screen_of(acting.displays, fresh.node.bounds)
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


# --- helpers -------------------------------------------------------------------------------------


def _png(image: Image.Image) -> ToolImage:
    """PNG bytes of an image (CPU work: call it in a thread). The pipeline bounds what the
    model gets; this keeps the full capture for the thread."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return ToolImage(
        data=buffer.getvalue(), media_type="image/png", width=image.width, height=image.height
    )


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


def _coded(result: ToolResult) -> ToolResult:
    """A failure with its code for programs, when it has none yet (`report.CODES`)."""
    if result.is_error and result.data is None:
        return result.model_copy(update={"data": {"code": report.code_of(result.text)}})
    return result

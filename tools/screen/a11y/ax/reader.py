"""macOS accessibility: other apps' elements through the Accessibility API (pyobjc), for the
`screen` tool and the screen gate. Imported only on a Mac (`backend.py` picks it).

Kept to the calls themselves: `AXUIElementCopyMultipleAttributeValues` reads an element's
attributes (`tables.ATTRIBUTES`) into the plain dict `read.py` turns into a `Node`, and walks
a window with the same limits as AT-SPI; `AXValue` is asked only where `tables.reads_value`
allows, never for a secure text field. Acting is the element's own: `AXPress` to click,
setting `AXValue` for `set_value` (refused for a secure field), `AXScrollToVisible` to scroll.
The gate's questions are `AXUIElementCopyElementAtPosition` and `AXFocusedUIElement`.

AX calls block (each is a message to the other app, bounded by the messaging timeout), so they
all run on one thread of their own, never on the event loop. Without the Accessibility
permission macOS answers `kAXErrorAPIDisabled`: `status()` says where to grant it, and a call
made without it raises `AccessibilityDenied`. Tests: `test_ax_mac.py`, marked `macos`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, TypeVar

import ApplicationServices as AX
import CoreFoundation as CF
import objc
from AppKit import NSRunningApplication, NSWorkspace

from tools.screen.a11y.accessible import (
    LIMITS,
    AccessibilityStatus,
    App,
    ElementRef,
    Limits,
    Node,
    best_frame,
    near_of,
    nearest_control,
)
from tools.screen.a11y.ax.read import Raw, ax_node, walk
from tools.screen.a11y.ax.tables import ATTRIBUTES, is_secure, reads_value
from tools.screen.a11y.elements import Element
from tools.screen.backends.mac_permissions import GRANT_ACCESSIBILITY
from tools.screen.errors import AccessibilityDenied, ScreenError
from tools.screen.geometry import Point
from tools.screen.windows import Window

log = logging.getLogger(__name__)

__all__ = ["AxAccessibility", "AxInspector", "status", "trusted"]

T = TypeVar("T")

CALL_LIMIT = 2.0  # seconds an application may take to answer one AX message
HIT_DEPTH = 32  # AXParent steps from the element under a point up to its window
PRESS_ACTIONS = ("AXPress", "AXConfirm", "AXPick", "AXOpen")
TOP_ROLES = frozenset({"AXWindow", "AXSheet", "AXApplication"})
PROHIBITED = 2  # NSApplicationActivationPolicyProhibited: background agents without windows

NOT_TRUSTED = AccessibilityStatus(
    available=False,
    reason="macOS has not allowed Deskhand to read other apps' buttons and fields "
    "(Accessibility), so clicks and typing on the screen always ask.",
    fix=GRANT_ACCESSIBILITY,
)


def trusted() -> bool:
    """Whether macOS lets this process use the Accessibility API (as of its launch)."""
    return bool(AX.AXIsProcessTrusted())


def status() -> AccessibilityStatus:
    return AccessibilityStatus(available=True) if trusted() else NOT_TRUSTED


# --- single calls (on the AX thread) -------------------------------------------------------------


def _check(error: int) -> bool:
    """True on success; raises when the permission is missing; False for any other failure
    (the element is gone, has no such attribute, or its app did not answer)."""
    if error == AX.kAXErrorAPIDisabled:
        raise AccessibilityDenied("accessibility is off")
    return error == AX.kAXErrorSuccess


def _plain(value: Any) -> Any:
    """An attribute's value as `read.py` takes it: str, bool, number, (x, y), (width, height),
    a list, an element handle; None for what it does not use (errors, attributed text…)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    kind = CF.CFGetTypeID(value)
    if kind == AX.AXValueGetTypeID():
        value_type = AX.AXValueGetType(value)
        if value_type == AX.kAXValueCGPointType:
            ok, point = AX.AXValueGetValue(value, value_type, None)
            return (float(point.x), float(point.y)) if ok else None
        if value_type == AX.kAXValueCGSizeType:
            ok, size = AX.AXValueGetValue(value, value_type, None)
            return (float(size.width), float(size.height)) if ok else None
        return None  # kAXValueAXErrorType: the attribute is missing
    if kind == CF.CFArrayGetTypeID():
        return list(value)
    if kind == AX.AXUIElementGetTypeID():
        return value
    return None


def _attribute(element: Any, name: str) -> Any:
    error, value = AX.AXUIElementCopyAttributeValue(element, name, None)
    return _plain(value) if _check(error) else None


def _read(element: Any, values: bool) -> Raw | None:
    """An element's attributes (its value only where it is shown, never a secure field's)."""
    error, found = AX.AXUIElementCopyMultipleAttributeValues(element, list(ATTRIBUTES), 0, None)
    if not _check(error) or found is None:
        return None
    raw = {name: _plain(value) for name, value in zip(ATTRIBUTES, found, strict=False)}
    role, subrole = raw.get("AXRole"), raw.get("AXSubrole")
    if not isinstance(role, str):
        return None
    # A static text's words are its name: read them even when no values are wanted.
    if reads_value(role, subrole) and (values or role == "AXStaticText"):
        raw["AXValue"] = _attribute(element, "AXValue")
    return raw


def _pid(element: Any) -> int | None:
    error, pid = AX.AXUIElementGetPid(element, None)
    return int(pid) if _check(error) else None


def _actions(element: Any) -> list[str]:
    error, names = AX.AXUIElementCopyActionNames(element, None)
    return [str(name) for name in names or ()] if _check(error) else []


def _perform(element: Any, action: str) -> bool:
    return _check(AX.AXUIElementPerformAction(element, action))


def _secure(element: Any) -> bool:
    role, subrole = _attribute(element, "AXRole"), _attribute(element, "AXSubrole")
    return not isinstance(role, str) or is_secure(role, subrole)  # unknown counts as secure


def _app(pid: int) -> App:
    running = NSRunningApplication.runningApplicationWithProcessIdentifier_(pid)
    name = str(running.localizedName() or "") if running is not None else ""
    bundle = str(running.bundleIdentifier() or "") if running is not None else ""
    return App(ref=AX.AXUIElementCreateApplication(pid), name=name, pid=pid, bundle_id=bundle)


def _path_up(element: Any) -> list[Any]:
    """The element and its ancestors up to its window, top first."""
    path = [element]
    for _ in range(HIT_DEPTH):
        role = _attribute(path[-1], "AXRole")
        if role in TOP_ROLES:
            break
        parent = _attribute(path[-1], "AXParent")
        if parent is None or parent in path:
            break
        path.append(parent)
    return path[::-1]


def _hit(container: Any, point: Point) -> Node | None:
    """The element a click at `point` affects, hit-tested within `container` (an app, or the
    system-wide element): the nearest control holding the deepest element there."""
    error, element = AX.AXUIElementCopyElementAtPosition(
        container, float(point.x), float(point.y), None
    )
    if not _check(error) or element is None:
        return None
    nodes = []
    for ref in _path_up(element):
        raw = _read(ref, True)
        node = ax_node(ref, raw) if raw is not None else None
        if node is not None:
            nodes.append(node)
    control = nearest_control(nodes)
    if control is None:
        return None
    # The path starts at the window: what holds the control is below it.
    return replace(control, near=near_of(nodes[1:], control))


def _focused_in(container: Any) -> Node | None:
    element = _attribute(container, "AXFocusedUIElement")
    if element is None:
        return None
    raw = _read(element, True)
    return ax_node(element, raw) if raw is not None else None


def _pooled(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` inside an autorelease pool: the thread lives long, its Cocoa objects not."""
    with objc.autorelease_pool():
        return fn(*args)


class _AxThread:
    """The one thread every AX call of a backend runs on."""

    def __init__(self, name: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        # Every app's answers are bounded from the start (the system-wide element sets the
        # default for all).
        self._pool.submit(
            AX.AXUIElementSetMessagingTimeout, AX.AXUIElementCreateSystemWide(), CALL_LIMIT
        )

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool, functools.partial(_pooled, fn, *args))
        except ScreenError:
            raise
        except Exception as exc:  # pyobjc raises whatever the bridge met: an element gone
            raise ScreenError("accessibility call failed") from exc

    def close(self) -> None:
        self._pool.shutdown(wait=False)


class AxAccessibility:
    """The `AccessibilityBackend` on macOS (`accessible.py`)."""

    def __init__(self) -> None:
        self._thread = _AxThread("deskhand-ax")
        # The gate's questions have a thread of their own: they never wait behind a long read.
        self.gate_thread = _AxThread("deskhand-ax-gate")

    async def apps(self) -> list[App]:
        def listed() -> list[App]:
            running = NSWorkspace.sharedWorkspace().runningApplications()
            return [
                _app(int(app.processIdentifier()))
                for app in running
                if app.activationPolicy() != PROHIBITED and app.processIdentifier() > 0
            ]

        return await self._thread.run(listed)

    async def frames(self, app: App) -> list[Node]:
        def read() -> list[Node]:
            nodes = []
            for ref in _attribute(app.ref, "AXWindows") or ():
                raw = _read(ref, False)
                node = ax_node(ref, raw) if raw is not None else None
                if node is not None:
                    nodes.append(node)
            return nodes

        return await self._thread.run(read)

    async def frame_of(self, window: Window) -> tuple[App, Node] | None:
        if window.pid is None:
            return None
        app = await self._thread.run(_app, window.pid)
        best = best_frame(await self.frames(app), window)
        return (app, best) if best is not None else None

    async def tree(
        self,
        roots: Sequence[ElementRef],
        limits: Limits = LIMITS,
        *,
        details: bool = True,
        until: Callable[[Node], bool] | None = None,
    ) -> tuple[list[Node], bool]:
        return await self._thread.run(
            functools.partial(walk, list(roots), _read, limits, values=details, until=until)
        )

    async def read(self, refs: Sequence[ElementRef], *, value: bool = False) -> list[Node | None]:
        def read_all() -> list[Node | None]:
            out: list[Node | None] = []
            for ref in refs:
                raw = _read(ref, value)
                out.append(ax_node(ref, raw) if raw is not None else None)
            return out

        return await self._thread.run(read_all)

    async def parent(self, ref: ElementRef) -> ElementRef | None:
        return await self._thread.run(_attribute, ref, "AXParent")

    async def element_at(self, point: Point, window: Window) -> tuple[App, Node] | None:
        if window.pid is None:
            return None
        # Hit-tested system-wide: a floating panel or alert of another app over the point
        # (absent from the window list) is what a click there reaches, so it must answer.
        node = await self._thread.run(_hit, AX.AXUIElementCreateSystemWide(), point)
        if node is None or await self._thread.run(_pid, node.ref) != window.pid:
            return None
        app = await self._thread.run(_app, window.pid)
        return app, node

    async def focused(self, window: Window) -> tuple[App, Node] | None:
        if window.pid is None:
            return None
        app = await self._thread.run(_app, window.pid)
        node = await self._thread.run(_focused_in, app.ref)
        return (app, node) if node is not None else None

    async def takes_text(self, ref: ElementRef) -> bool:
        def settable() -> bool:
            if _secure(ref):
                return False
            error, settable = AX.AXUIElementIsAttributeSettable(ref, "AXValue", None)
            return _check(error) and bool(settable)

        return await self._thread.run(settable)

    async def press(self, ref: ElementRef) -> bool:
        def press() -> bool:
            actions = _actions(ref)
            wanted = next((action for action in PRESS_ACTIONS if action in actions), None)
            return wanted is not None and _perform(ref, wanted)

        return await self._thread.run(press)

    async def set_text(self, ref: ElementRef, text: str) -> bool:
        def set_value() -> bool:
            if _secure(ref):
                return False  # a password is never filled in, whatever asked for it
            error, settable = AX.AXUIElementIsAttributeSettable(ref, "AXValue", None)
            if not _check(error) or not settable:
                return False
            return _check(AX.AXUIElementSetAttributeValue(ref, "AXValue", text))

        return await self._thread.run(set_value)

    async def text(self, ref: ElementRef) -> str | None:
        def read_text() -> str | None:
            if _secure(ref):
                return None
            value = _attribute(ref, "AXValue")
            return value if isinstance(value, str) else None

        return await self._thread.run(read_text)

    async def scroll_to(self, ref: ElementRef) -> bool:
        def scroll() -> bool:
            return "AXScrollToVisible" in _actions(ref) and _perform(ref, "AXScrollToVisible")

        return await self._thread.run(scroll)

    async def close(self) -> None:
        self._thread.close()
        self.gate_thread.close()


class AxInspector:
    """The driver's `Inspector` on macOS: what is under a point (hit-tested across every app,
    as the window server stacks them) and what has the keyboard focus, system-wide.

    Elements of `own_pids` (Deskhand's) are not looked into: the driver refuses those itself.
    Any failure answers None: the effect is unknown, and the gate counts the call as
    consequential.
    """

    def __init__(self, accessibility: AxAccessibility, *, own_pids: Collection[int] = ()) -> None:
        self._thread = accessibility.gate_thread
        self._own_pids = frozenset(own_pids or (os.getpid(),))

    def _element(self, found: Callable[[Any], Node | None]) -> Element | None:
        system = AX.AXUIElementCreateSystemWide()
        node = found(system)
        if node is None:
            return None
        pid = _pid(node.ref)
        if pid is None or pid in self._own_pids:
            return None
        return node.element(_app(pid).name)

    async def element_at(self, point: Point) -> Element | None:
        with contextlib.suppress(ScreenError):
            return await self._thread.run(self._element, lambda system: _hit(system, point))
        log.info("no element at %s", point)
        return None

    async def focused_element(self) -> Element | None:
        with contextlib.suppress(ScreenError):
            return await self._thread.run(self._element, _focused_in)
        log.info("no focused element")
        return None

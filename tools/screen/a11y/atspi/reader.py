"""Linux accessibility: the elements of other applications' windows, over AT-SPI's D-Bus bus.

`Accessibility` is one connection to the AT-SPI bus (found through the session bus, as every
assistive technology finds it), opened on first use on the running loop. It answers:

- `apps()`: the applications that expose a tree, with their process ids (to match X11 windows);
- `tree(roots, limits)`: a bounded, breadth-first read of the elements under some windows, one
  round trip per level (`bus.py` sends a level's calls at once);
- `element_at(point, window)` and `focused(window)`: what the screen gate judges a click or a
  keystroke by;
- `press`, `takes_text`, `set_text`, `scroll_to`, `read`: acting on and re-reading one element.

`AtspiInspector` turns the last two questions into the driver's `Inspector` (elements.py), with
the window under the point or with the focus taken from the X server's stacking order.

Everything read here is screen content an attacker may have written: it is data, shown quoted.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any, TypedDict

from tools.screen.a11y.accessible import (
    LIMITS,
    SCROLLERS,
    VALUE_ROLES,
    AccessibilityStatus,
    App,
    Limits,
    Node,
    TreeBudget,
    best_frame,
    named_by_labels,
    nearest_control,
)
from tools.screen.a11y.atspi.bus import CALL_LIMIT, BusClient, BusError, Call
from tools.screen.a11y.atspi.tables import State, has_state, role_name
from tools.screen.a11y.elements import Element
from tools.screen.a11y.find import near_above
from tools.screen.errors import ScreenError
from tools.screen.geometry import Point, Rect
from tools.screen.windows import Window, window_at
from tools.screen.worker import ScreenWorker

log = logging.getLogger(__name__)

__all__ = [
    "LIMITS",
    "Accessibility",
    "AccessibilityStatus",
    "App",
    "AtspiInspector",
    "Limits",
    "Node",
    "Ref",
    "accessibility_status",
]

Ref = tuple[str, str]  # (bus name, object path): one accessible object

ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT = "org.a11y.atspi.Component"
ACTION = "org.a11y.atspi.Action"
TEXT = "org.a11y.atspi.Text"
EDITABLE_TEXT = "org.a11y.atspi.EditableText"
VALUE = "org.a11y.atspi.Value"
REGISTRY: Ref = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
NULL_PATH = "/org/a11y/atspi/null"
SCREEN_COORDS = 0  # ATSPI_COORD_TYPE_SCREEN
SCROLL_ANYWHERE = 4  # ATSPI_SCROLL_ANYWHERE
LABELLED_BY = 2  # ATSPI_RELATION_LABELLED_BY
VALUE_LIMIT = 200  # characters of a field's text read for a snapshot
HIT_DEPTH = 32  # GetAccessibleAtPoint steps before giving up on a (cyclic) tree
# The names toolkits give the action that presses a control, best first (GTK, Qt, others).
PRESS_ACTIONS = ("click", "press", "activate", "jump", "toggle", "open", "select")


class AccessibilityUnavailable(BusError):
    pass


def _ref(value: Any) -> Ref | None:
    """An object reference from a reply, or None for AT-SPI's null object."""
    if not isinstance(value, tuple | list) or len(value) != 2:
        return None
    bus, path = str(value[0]), str(value[1])
    return None if not bus or path == NULL_PATH else (bus, path)


def _rect(extents: Any) -> Rect | None:
    if not isinstance(extents, tuple | list) or len(extents) != 4:
        return None
    x, y, width, height = (int(v) for v in extents)
    # Toolkits report (-1, -1, -1, -1) or an empty size for what has no place on screen.
    return Rect(x, y, width, height) if width > 0 and height > 0 else None


class Accessibility:
    """The AT-SPI bus; every method is a coroutine on the loop that first used it."""

    def __init__(
        self,
        address: str | None = None,
        *,
        session: str | None = None,
        limit: float = CALL_LIMIT,
    ) -> None:
        """`address`: the AT-SPI bus's D-Bus address; by default asked of the session bus
        (`session`, else `DBUS_SESSION_BUS_ADDRESS`)."""
        self._address = address
        self._session = session
        self._limit = limit
        self._client: BusClient | None = None
        self._connecting = asyncio.Lock()
        self._apps: dict[str, App] = {}  # by bus name; a connection's process never changes

    # --- the connection ------------------------------------------------------------------------

    async def _bus(self) -> BusClient:
        client = self._client
        if client is not None and not client.closed:
            return client
        async with self._connecting:
            if self._client is None or self._client.closed:
                address = self._address or await _bus_address(self._session)
                self._client = await BusClient.open(address)
                self._apps.clear()
        return self._client

    async def _replies(self, calls: Sequence[Call]) -> list[tuple[Any, ...] | None]:
        """Many calls at once, each `(bus, path, interface, method[, signature, body])`; each
        reply body, or None where that call failed or took too long."""
        if not calls:
            return []
        bus = await self._bus()
        return await bus.batch(calls, limit=self._limit)

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    # --- applications --------------------------------------------------------------------------

    async def apps(self) -> list[App]:
        """The applications on the bus (those that died since are left out)."""
        bus = await self._bus()
        (children,) = await bus.call(*REGISTRY, ACCESSIBLE, "GetChildren", limit=self._limit)
        refs = [ref for ref in (_ref(child) for child in children) if ref is not None]
        new = [ref for ref in refs if ref[0] not in self._apps]
        if new:
            replies = await self._replies(
                [
                    call
                    for ref in new
                    for call in (
                        _get(ref, ACCESSIBLE, "Name"),
                        (
                            "org.freedesktop.DBus",
                            "/org/freedesktop/DBus",
                            "org.freedesktop.DBus",
                            "GetConnectionUnixProcessID",
                            "s",
                            (ref[0],),
                        ),
                    )
                ]
            )
            for index, ref in enumerate(new):
                name, pid = replies[2 * index], replies[2 * index + 1]
                if name is None:
                    continue  # gone already
                self._apps[ref[0]] = App(
                    ref=ref, name=str(name[0][1]), pid=int(pid[0]) if pid else None
                )
        live = {ref[0] for ref in refs}
        for gone in set(self._apps) - live:
            del self._apps[gone]
        return [self._apps[ref[0]] for ref in refs if ref[0] in self._apps]

    async def app_of(self, pid: int | None) -> App | None:
        if pid is None:
            return None
        return next((app for app in await self.apps() if app.pid == pid), None)

    async def frames(self, app: App) -> list[Node]:
        """The application's top-level windows as accessible objects (role, name, states,
        bounds); a frame that does not answer is left out."""
        children = await self._replies([(*app.ref, ACCESSIBLE, "GetChildren")])
        refs = [r for r in (_ref(c) for c in (children[0] or ((),))[0]) if r is not None]
        nodes = await self.read(refs)
        return [node for node in nodes if node is not None]

    async def frame_of(self, window: Window) -> tuple[App, Node] | None:
        """The accessible frame of an X11 window: same process, and of that process's frames
        the one that covers the window best (the title breaks a tie)."""
        app = await self.app_of(window.pid)
        if app is None:
            return None
        best = best_frame(await self.frames(app), window)
        return (app, best) if best is not None else None

    # --- reading -------------------------------------------------------------------------------

    async def read(self, refs: Sequence[Ref], *, value: bool = False) -> list[Node | None]:
        """Role, name, states and bounds of each object (None for one that is gone); with
        `value`, a field's text or a slider's value too (never a secure field's)."""
        basics = await self._replies([call for ref in refs for call in _basic_calls(ref)])
        nodes: list[Node | None] = []
        for index, ref in enumerate(refs):
            node = _basic_node(ref, basics[4 * index : 4 * index + 4])
            nodes.append(node)
        if value:
            nodes = await self._with_values(nodes)
        extents = await self._replies(
            [(*n.ref, COMPONENT, "GetExtents", "u", (SCREEN_COORDS,)) for n in nodes if n]
        )
        placed = iter(extents)
        return [
            replace(node, bounds=_rect((next(placed) or (None,))[0])) if node else None
            for node in nodes
        ]

    async def _with_values(self, nodes: list[Node | None]) -> list[Node | None]:
        asks: list[tuple[int, tuple[Any, ...]]] = []
        for index, node in enumerate(nodes):
            call = _value_call(node) if node is not None else None
            if call is not None:
                asks.append((index, call))
        replies = await self._replies([call for _, call in asks])
        out = list(nodes)
        for (index, _), reply in zip(asks, replies, strict=True):
            node = out[index]
            if node is not None and reply is not None:
                out[index] = replace(node, value=_value_text(reply))
        return out

    async def tree(
        self,
        roots: Sequence[Ref],
        limits: Limits = LIMITS,
        *,
        details: bool = True,
        until: Callable[[Node], bool] | None = None,
    ) -> tuple[list[Node], bool]:
        """The elements under `roots` (the roots included), in reading order, and whether a
        limit cut the read short. With `until`, the read stops at the level where an element
        first satisfies it (what `wait` looks for is found without reading deeper).

        Breadth first, one batch of calls per level: the role, name, states and children of
        this level's elements go together with the bounds, values and labels of the previous
        level's listed ones (`details`; without it only what `wait` needs is read). Elements
        that are not showing are left out with all they hold, except the rows of lists and
        tables, which are listed (off-screen) so they can be scrolled to.
        """
        level: list[tuple[Ref, tuple[int, ...], Ref | None, bool]] = [
            (root, (index,), None, False) for index, root in enumerate(roots)
        ]
        read: list[Node] = []
        pending: list[Node] = []  # listed elements of the previous level, waiting for details
        budget = TreeBudget(limits)
        depth = 0
        while level or pending:
            if len(read) + len(level) > limits.nodes:
                level, budget.cut = level[: max(0, limits.nodes - len(read))], True
            calls = [call for ref, _, _, _ in level for call in _basic_calls(ref)]
            extra = [call for node in pending for call in _detail_calls(node)] if details else []
            replies = await self._replies(calls + extra)
            if details and pending:
                read.extend(_with_details(pending, replies[len(calls) :]))
            elif pending:
                read.extend(pending)
            pending = []
            next_level: list[tuple[Ref, tuple[int, ...], Ref | None, bool]] = []
            for index, (ref, path, parent, in_scroller) in enumerate(level):
                node = _basic_node(ref, replies[4 * index : 4 * index + 4], path, parent)
                if node is None or not budget.keeps(node, in_scroller=in_scroller, depth=depth):
                    continue
                (pending if node.listed else read).append(node)
                if depth + 1 >= limits.depth or not (node.showing or depth == 0):
                    budget.cut |= depth + 1 >= limits.depth and bool(node.child_refs)
                    continue
                children = budget.children(node)
                scroller = node.role in SCROLLERS
                next_level.extend(
                    (child, (*path, number), node.ref, scroller)
                    for number, child in enumerate(children)
                )
            level = next_level
            depth += 1
            if until is not None and any(until(node) for node in [*read, *pending]):
                read.extend(pending)
                break
        read.sort(key=lambda node: node.path)
        return named_by_labels(read), budget.cut

    # --- the gate's questions ------------------------------------------------------------------

    async def element_at(self, point: Point, window: Window) -> tuple[App, Node] | None:
        """The element of `window` under a global point: the deepest one there, or the nearest
        control holding it (a button's label is judged as the button)."""
        found = await self.frame_of(window)
        if found is None:
            return None
        app, frame = found
        if frame.bounds is None or not frame.bounds.contains(point):
            return None
        refs = [frame.ref]
        for _ in range(HIT_DEPTH):
            (reply,) = await self._replies(
                [(*refs[-1], COMPONENT, "GetAccessibleAtPoint", "iiu", (*point, SCREEN_COORDS))]
            )
            child = _ref(reply[0]) if reply else None
            if child is None or child in refs:
                break
            refs.append(child)
        path = [node for node in await self.read(refs[1:]) if node is not None]
        control = nearest_control(path)
        if control is None:
            return app, frame
        return app, replace(control, near=await near_above(self, control.ref, frame.ref))

    async def focused(self, window: Window) -> tuple[App, Node] | None:
        """The element with the keyboard focus in `window`'s application (its active frame is
        searched first, then its other frames, such as an open menu)."""
        app = await self.app_of(window.pid)
        if app is None:
            return None
        frames = await self.frames(app)
        frames.sort(key=lambda f: not f.active)
        for frame in frames:
            if frame.focused:
                return app, frame
            found = await self._find_focus(frame.ref)
            if found is not None:
                (node,) = await self.read([found.ref])
                return app, node or found
        return None

    async def _find_focus(self, root: Ref, limits: Limits = LIMITS) -> Node | None:
        level: list[Ref] = [root]
        seen = 0
        for _ in range(limits.depth):
            if not level or seen > limits.nodes:
                return None
            replies = await self._replies([call for ref in level for call in _basic_calls(ref)])
            seen += len(level)
            next_level: list[Ref] = []
            for index, ref in enumerate(level):
                node = _basic_node(ref, replies[4 * index : 4 * index + 4])
                if node is None or not node.showing:
                    continue
                if node.focused and ref != root:
                    return node
                next_level.extend(node.child_refs[: limits.children])
            level = next_level
        return None

    async def parent(self, ref: Ref) -> Ref | None:
        (reply,) = await self._replies([_get(ref, ACCESSIBLE, "Parent")])
        return _ref(reply[0][1]) if reply else None

    # --- acting --------------------------------------------------------------------------------

    async def actions(self, ref: Ref) -> list[str]:
        """The names of the element's own actions ("Press", "Click", "Toggle"...)."""
        (reply,) = await self._replies([(*ref, ACTION, "GetActions")])
        if not reply:
            return []
        return [str(action[0]) for action in reply[0]]

    async def press(self, ref: Ref) -> bool:
        """Press the element through its own action; False when it has none that presses."""
        names = [name.casefold() for name in await self.actions(ref)]
        for wanted in PRESS_ACTIONS:
            if wanted in names:
                (reply,) = await self._replies(
                    [(*ref, ACTION, "DoAction", "i", (names.index(wanted),))]
                )
                return bool(reply and reply[0])
        return False

    async def takes_text(self, ref: Ref) -> bool:
        """Whether the element offers AT-SPI's editable text (custom-drawn fields often do not:
        those are typed into)."""
        (reply,) = await self._replies([(*ref, ACCESSIBLE, "GetInterfaces")])
        if not reply:
            return False
        return EDITABLE_TEXT in (str(name) for name in reply[0])

    async def set_text(self, ref: Ref, text: str) -> bool:
        """Replace an editable field's text; False when the element does not take text."""
        (reply,) = await self._replies([(*ref, EDITABLE_TEXT, "SetTextContents", "s", (text,))])
        return bool(reply and reply[0])

    async def text(self, ref: Ref) -> str | None:
        (reply,) = await self._replies([(*ref, TEXT, "GetText", "ii", (0, -1))])
        return str(reply[0]) if reply else None

    async def scroll_to(self, ref: Ref) -> bool:
        """Ask the toolkit to scroll the element into view (not every toolkit can)."""
        (reply,) = await self._replies([(*ref, COMPONENT, "ScrollTo", "u", (SCROLL_ANYWHERE,))])
        return bool(reply and reply[0])


# --- building calls and reading replies ----------------------------------------------------------


def _get(ref: Ref, interface: str, name: str) -> tuple[Any, ...]:
    return (*ref, "org.freedesktop.DBus.Properties", "Get", "ss", (interface, name))


def _basic_calls(ref: Ref) -> list[tuple[Any, ...]]:
    return [
        (*ref, ACCESSIBLE, "GetRole"),
        _get(ref, ACCESSIBLE, "Name"),
        (*ref, ACCESSIBLE, "GetState"),
        (*ref, ACCESSIBLE, "GetChildren"),
    ]


class _States(TypedDict):
    """The states of an element that a refresh reads again (`watching.py`) as well."""

    enabled: bool
    focused: bool
    showing: bool
    checked: bool
    expanded: bool
    selected: bool


def _states(words: tuple[int, ...]) -> _States:
    return _States(
        enabled=has_state(words, State.ENABLED) or has_state(words, State.SENSITIVE),
        focused=has_state(words, State.FOCUSED),
        showing=has_state(words, State.SHOWING),
        checked=has_state(words, State.CHECKED),
        expanded=has_state(words, State.EXPANDED),
        selected=has_state(words, State.SELECTED),
    )


def _basic_node(
    ref: Ref,
    replies: Sequence[tuple[Any, ...] | None],
    path: tuple[int, ...] = (),
    parent: Ref | None = None,
) -> Node | None:
    role, name, states, children = replies
    if role is None:
        return None  # gone, or not an accessible object
    words = tuple(int(word) for word in states[0]) if states else (0, 0)
    return Node(
        ref=ref,
        role=role_name(int(role[0])),
        name=str(name[0][1]).strip() if name else "",
        **_states(words),
        editable=has_state(words, State.EDITABLE),
        active=has_state(words, State.ACTIVE),
        path=path,
        parent=parent,
        child_refs=tuple(r for r in (_ref(c) for c in (children or ((),))[0]) if r is not None),
    )


def _value_call(node: Node) -> tuple[Any, ...] | None:
    if node.secure:
        return None  # a password's characters are never read
    if node.kind == "T" or (node.editable and node.role not in ("check box", "radio button")):
        return (*node.ref, TEXT, "GetText", "ii", (0, VALUE_LIMIT))
    if node.role in VALUE_ROLES:
        return _get(node.ref, VALUE, "CurrentValue")
    return None


def _value_text(reply: tuple[Any, ...]) -> str | None:
    value = reply[0]
    if isinstance(value, tuple):  # a property: (signature, value)
        value = value[1]
    if isinstance(value, float):
        return f"{value:g}"
    return str(value) if value is not None else None


def _detail_calls(node: Node) -> list[tuple[Any, ...]]:
    """Bounds, then the value (a field's text, a slider's number) if it has one, then the
    labels naming it if it has no name: `_with_details` reads them back in that order."""
    calls: list[tuple[Any, ...]] = [(*node.ref, COMPONENT, "GetExtents", "u", (SCREEN_COORDS,))]
    if (value := _value_call(node)) is not None:
        calls.append(value)
    if not node.name:
        calls.append((*node.ref, ACCESSIBLE, "GetRelationSet"))
    return calls


def _with_details(nodes: Sequence[Node], replies: Sequence[tuple[Any, ...] | None]) -> list[Node]:
    out = []
    answers = iter(replies)
    for node in nodes:
        extents = next(answers)
        value = next(answers) if _value_call(node) is not None else None
        relations = next(answers) if not node.name else None
        out.append(
            replace(
                node,
                bounds=_rect(extents[0]) if extents else None,
                value=_value_text(value) if value is not None else None,
                label_ref=_labelled_by(relations),
            )
        )
    return out


def _labelled_by(reply: tuple[Any, ...] | None) -> Ref | None:
    if not reply or not isinstance(reply[0], list):
        return None
    for relation in reply[0]:
        if int(relation[0]) == LABELLED_BY and relation[1]:
            return _ref(relation[1][0])
    return None


async def _bus_address(session_address: str | None = None) -> str:
    """The AT-SPI bus address: `AT_SPI_BUS_ADDRESS`, or as the session bus's `org.a11y.Bus` gives
    it. Asking also makes sure the bus runs (D-Bus starts its launcher)."""
    if session_address is None:
        if address := os.environ.get("AT_SPI_BUS_ADDRESS"):
            return address
        session_address = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if not session_address:
        raise AccessibilityUnavailable("no session bus")
    session = await BusClient.open(session_address)
    try:
        (address,) = await session.call(
            "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", limit=CALL_LIMIT * 3
        )
        await _enable(session)
    except BusError as exc:
        raise AccessibilityUnavailable("no accessibility bus") from exc
    finally:
        await session.close()
    return str(address)


async def _enable(session: BusClient) -> None:
    """Turn accessibility on for the session, as screen readers do: toolkits that only expose
    their elements while an assistive technology runs (Qt, Chromium) start doing so."""
    try:
        enabled = await session.get("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Status", "IsEnabled")
        if not enabled:
            await session.call(
                "org.a11y.Bus",
                "/org/a11y/bus",
                "org.freedesktop.DBus.Properties",
                "Set",
                "ssv",
                ("org.a11y.Status", "IsEnabled", ("b", True)),
            )
    except BusError:
        log.info("could not turn the session's accessibility on", exc_info=True)


NO_SESSION = AccessibilityStatus(
    available=False,
    reason="There is no desktop session bus (D-Bus), so other apps' buttons and fields cannot "
    "be read.",
    fix="Start Deskhand from a desktop session.",
)
NO_BUS = AccessibilityStatus(
    available=False,
    reason="The accessibility service (AT-SPI) is not running, so other apps' buttons and "
    "fields cannot be read; clicks and typing on the screen always ask.",
    fix="Install the at-spi2-core package (Debian/Ubuntu: sudo apt install at-spi2-core) and "
    "log in again.",
)


async def accessibility_status(session: str | None = None) -> AccessibilityStatus:
    """Whether the AT-SPI bus answers (connects once, then lets go)."""
    if session is None and not os.environ.get("AT_SPI_BUS_ADDRESS"):
        if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
            return NO_SESSION
    probe = Accessibility(session=session)
    try:
        await probe.apps()
    except BusError:
        return NO_BUS
    finally:
        await probe.close()
    return AccessibilityStatus(available=True)


class AtspiInspector:
    """The driver's `Inspector` on AT-SPI: the element under a point or with the focus, in the
    window the X server says is there (front-most at the point; the focused one for keys).

    Windows of `own_pids` (Deskhand's) are not looked into: the driver refuses those itself.
    Any failure (an app that hangs, a window that closed) answers None: the effect is unknown,
    and the gate counts the call as consequential.
    """

    def __init__(
        self,
        accessibility: Accessibility,
        worker: ScreenWorker,
        *,
        own_pids: Collection[int] = (),
    ) -> None:
        self.accessibility = accessibility
        self._worker = worker
        self._own_pids = frozenset(own_pids or (os.getpid(),))

    async def element_at(self, point: Point) -> Element | None:
        try:
            found = await self._found_at(point)
        except (ScreenError, OSError):
            log.info("no element at %s", point, exc_info=True)
            return None
        if found is None:
            return None
        window, (app, node) = found
        return node.element(app.name, window.title)

    async def _all_windows(self) -> list[Window]:
        return list(await self._worker.windows() or ())

    async def focused_element(self) -> Element | None:
        try:
            found = await self._found_focused()
        except (ScreenError, OSError):
            log.info("no focused element", exc_info=True)
            return None
        if found is None:
            return None
        window, (app, node) = found
        return node.element(app.name, window.title)

    # What the gate asks about and what a watch looks at are found the same way; never in a
    # window of Deskhand's own.

    async def _found_at(self, point: Point) -> tuple[Window, tuple[App, Node]] | None:
        """The window under `point` and the element of it there."""
        window = window_at(await self._all_windows(), point)
        if window is None or window.pid in self._own_pids:
            return None
        found = await self.accessibility.element_at(point, window)
        return None if found is None else (window, found)

    async def _found_focused(self) -> tuple[Window, tuple[App, Node]] | None:
        """The window with the keyboard focus and its focused element."""
        window = next((w for w in await self._all_windows() if w.focused), None)
        if window is None or window.pid in self._own_pids:
            return None
        found = await self.accessibility.focused(window)
        return None if found is None else (window, found)

"""The X11 backend: input through the XTest extension (python-xlib, in-process), capture with `mss`.

Every input event is one XTest request on our own connection, flushed and synced, so the X
server has queued it before the call returns; no process is started per event. Displays are the
RandR 1.5 monitors (the whole screen when RandR is missing); X11 has no scale factor, so one
logical unit is one pixel. Blocking: the driver calls it from its worker thread only.

Under Wayland only X11 applications (through XWayland) can be seen and controlled; `status`
says so.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import mss
from PIL import Image
from Xlib import X
from Xlib import display as xdisplay
from Xlib import error as xerror
from Xlib.ext import randr, xtest
from Xlib.protocol import event as xevent

from tools.screen.backends.base import MouseButton, ScreenStatus, ScrollDirection, WindowInfo
from tools.screen.backends.x11.keyboard import Keyboard
from tools.screen.displays import Display
from tools.screen.errors import BackendError
from tools.screen.geometry import Point, Rect
from tools.screen.scaling import resize
from tools.screen.windows import Window

__all__ = ["X11Backend", "own_clients", "status"]

log = logging.getLogger(__name__)

UNREACHABLE = "The X display could not be reached."
CONNECT_TRIES = 3
CONNECT_PAUSE = 0.15  # seconds between tries

# The resource-id bases of this process's open backend connections: the XTest events they send
# are Deskhand's own, which the input watcher (`tools/screen/watch/x11.py`) must not take for
# the person's.
_OWN_CLIENTS: set[int] = set()


def own_clients() -> frozenset[int]:
    return frozenset(_OWN_CLIENTS)


_BUTTONS: dict[str, int] = {"left": 1, "middle": 2, "right": 3}
_WHEEL: dict[str, int] = {"up": 4, "down": 5, "left": 6, "right": 7}


def _wayland_only() -> bool:
    return (
        bool(os.environ.get("WAYLAND_DISPLAY")) or os.environ.get("XDG_SESSION_TYPE") == "wayland"
    )


def status(display: str | None = None) -> ScreenStatus:
    """Whether an X server with XTest can be reached (blocks for one connection)."""
    name = display or os.environ.get("DISPLAY")
    if not name:
        if _wayland_only():
            return ScreenStatus(
                available=False,
                reason="This is a Wayland session without XWayland, which Deskhand cannot control.",
                fix="Enable XWayland, or choose an X11 (Xorg) session on the login screen.",
            )
        return ScreenStatus(
            available=False,
            reason="No graphical display was found (DISPLAY is not set).",
            fix="Start Deskhand from a desktop session.",
        )
    try:
        connection = xdisplay.Display(name)
    except (xerror.DisplayError, OSError):
        return ScreenStatus(
            available=False,
            reason="The X display could not be reached.",
            fix="Check that the desktop is running and that DISPLAY names it.",
        )
    try:
        has_xtest = connection.query_extension("XTEST") is not None
    finally:
        connection.close()
    if not has_xtest:
        return ScreenStatus(
            available=False,
            reason="The X server does not offer the XTEST extension, which input needs.",
            fix="Enable XTEST in the X server's configuration.",
        )
    reason = ""
    if _wayland_only():
        reason = "Wayland session: only X11 applications can be seen and controlled."
    return ScreenStatus(available=True, backend="x11", reason=reason)


def _connect(name: str | None) -> xdisplay.Display:
    """The X display. A server that closes the connection during its handshake (one starting
    up, or at its client limit) is tried again a moment later; then it is unreachable."""
    tries_left = CONNECT_TRIES
    while True:
        tries_left -= 1
        try:
            return xdisplay.Display(name)
        except xerror.ConnectionClosedError as exc:
            if not tries_left:
                raise BackendError(UNREACHABLE) from exc
        except (xerror.DisplayError, OSError) as exc:
            raise BackendError(UNREACHABLE) from exc
        time.sleep(CONNECT_PAUSE)  # on the backend's own thread, never the event loop


class X11Backend:
    name = "x11"

    def __init__(self, display: str | None = None) -> None:
        self._name = display or os.environ.get("DISPLAY") or ""
        self._x = _connect(self._name or None)
        if self._x.query_extension("XTEST") is None:
            self._x.close()
            raise BackendError("The X server has no XTEST extension.")
        self._root = self._x.screen().root
        self._id_base = int(self._x.display.info.resource_id_base)
        _OWN_CLIENTS.add(self._id_base)
        self._keyboard = Keyboard(self._x)
        self._mss: mss.MSS | None = None
        self._wm_pid = self._x.intern_atom("_NET_WM_PID")
        self._atoms = {
            name: self._x.intern_atom(name)
            for name in (
                "_NET_CLIENT_LIST_STACKING",
                "_NET_ACTIVE_WINDOW",
                "_NET_WM_NAME",
                "_NET_WM_STATE",
                "_NET_WM_STATE_HIDDEN",
                "UTF8_STRING",
            )
        }
        self._wm_state = self._x.intern_atom("WM_STATE")
        self._active_window = self._x.intern_atom("_NET_ACTIVE_WINDOW")

    # --- displays and pixels -------------------------------------------------------------------

    def displays(self) -> list[Display]:
        screen = self._x.screen()
        whole = Display(frame=Rect(0, 0, screen.width_in_pixels, screen.height_in_pixels))
        if not self._x.has_extension("RANDR"):
            return [whole]
        version = randr.query_version(self._x)
        if (version.major_version, version.minor_version) < (1, 5):
            return [whole]
        reply = randr.get_monitors(self._root, is_active=True)
        found = [
            Display(
                frame=Rect(m.x, m.y, m.width_in_pixels, m.height_in_pixels),
                primary=bool(m.primary),
                name=self._atom_name(m.name),
            )
            for m in reply.monitors
        ]
        return found or [whole]

    def _atom_name(self, atom: int) -> str:
        try:
            return str(self._x.get_atom_name(atom))
        except Exception:
            return ""

    def capture(self, region: Rect, size: tuple[int, int]) -> Image.Image:
        if self._mss is None:
            self._mss = mss.MSS(display=self._name or None)
        try:
            shot = self._mss.grab(
                {"left": region.x, "top": region.y, "width": region.width, "height": region.height}
            )
        except Exception as exc:
            raise BackendError("The screen could not be captured.") from exc
        # The X server's pixels are B, G, R, X. Wrapped as they are (no copy, no conversion of
        # the full-size capture), resized, and only then put in R, G, B order.
        pixels = Image.frombuffer("RGBX", shot.size, shot.raw, "raw", "RGBX", 0, 1)
        blue, green, red, _ = resize(pixels, size).split()
        return Image.merge("RGB", (red, green, blue))

    # --- pointer -------------------------------------------------------------------------------

    def pointer(self) -> Point:
        reply = self._root.query_pointer()
        return Point(reply.root_x, reply.root_y)

    def move(self, point: Point) -> None:
        xtest.fake_input(self._x, X.MotionNotify, x=point.x, y=point.y)
        self._x.sync()

    def button(self, button: MouseButton, down: bool, clicks: int = 1) -> None:
        event = X.ButtonPress if down else X.ButtonRelease
        xtest.fake_input(self._x, event, _BUTTONS[button])
        self._x.sync()

    def wheel(self, direction: ScrollDirection) -> None:
        xtest.fake_input(self._x, X.ButtonPress, _WHEEL[direction])
        xtest.fake_input(self._x, X.ButtonRelease, _WHEEL[direction])
        self._x.sync()

    # --- keyboard ------------------------------------------------------------------------------

    def prepare_keyboard(self) -> None:
        self._keyboard.refresh()

    def key(self, key: str, down: bool) -> None:
        self._keyboard.key(key, down)

    def type_char(self, char: str) -> None:
        self._keyboard.type_char(char)

    def focused_window(self) -> WindowInfo | None:
        """The top-level window with the input focus; with focus-follows-pointer (no window
        manager, or PointerRoot) the top-level window under the pointer."""
        try:
            focus = self._x.get_input_focus().focus
            if isinstance(focus, int) or focus == self._root:  # None or PointerRoot
                focus = self._root.query_pointer().child
                if isinstance(focus, int) or not focus:
                    return None
            top = self._top_level(focus)
            geometry = top.get_geometry()
            origin = self._root.translate_coords(top, 0, 0)
            rect = Rect(origin.x, origin.y, geometry.width, geometry.height)
            return WindowInfo(rect=rect, pid=self._pid(top), handle=self._client(top).id)
        except (xerror.XError, AttributeError):
            return None  # the window went away while we looked

    # --- windows -------------------------------------------------------------------------------

    def windows(self) -> list[Window]:
        """The visible top-level windows, front to back.

        With a window manager, its client list in stacking order (`_NET_CLIENT_LIST_STACKING`);
        without one, the root window's mapped children, which X stacks bottom to top. Windows
        that vanish while they are looked at are left out.
        """
        stacking = self._root.get_full_property(
            self._atoms["_NET_CLIENT_LIST_STACKING"], X.AnyPropertyType
        )
        if stacking is not None and len(stacking.value):
            candidates = [self._x.create_resource_object("window", w) for w in stacking.value]
        else:
            candidates = list(self._root.query_tree().children)
        focused = self._focused_top_level()
        found: list[Window] = []
        for candidate in reversed(candidates):
            try:
                window = self._describe_window(candidate, focused)
            except (xerror.XError, AttributeError):
                continue
            if window is not None:
                found.append(window)
        return found

    def _focused_top_level(self) -> int | None:
        active = self._root.get_full_property(self._atoms["_NET_ACTIVE_WINDOW"], X.AnyPropertyType)
        if active is not None and len(active.value) and active.value[0]:
            return int(active.value[0])
        try:
            focus = self._x.get_input_focus().focus
            if isinstance(focus, int) or focus == self._root:
                return None
            return int(self._top_level(focus).id)
        except (xerror.XError, AttributeError):
            return None

    def _describe_window(self, window: Any, focused: int | None) -> Window | None:
        attributes = window.get_attributes()
        if attributes.map_state != X.IsViewable or attributes.override_redirect:
            return None
        client = window if window.get_wm_class() is not None else self._client_inside(window)
        if client is None:
            return None  # an app's helper window: no class, no title
        state = client.get_full_property(self._atoms["_NET_WM_STATE"], X.AnyPropertyType)
        if state is not None and self._atoms["_NET_WM_STATE_HIDDEN"] in state.value:
            return None  # minimised
        geometry = window.get_geometry()
        origin = self._root.translate_coords(window, 0, 0)
        instance, app = client.get_wm_class() or ("", "")
        return Window(
            id=int(client.id),
            title=self._title(client),
            app=str(app or instance),
            instance=str(instance),
            pid=self._pid(client),
            rect=Rect(origin.x, origin.y, geometry.width, geometry.height),
            focused=focused in (int(client.id), int(window.id)),
        )

    def _client_inside(self, frame: Any) -> Any | None:
        """The application's window inside a window manager's frame, if there is one."""
        for child in frame.query_tree().children:
            if child.get_wm_class() is not None:
                return child
        return None

    def _title(self, window: Any) -> str:
        name = window.get_full_property(self._atoms["_NET_WM_NAME"], self._atoms["UTF8_STRING"])
        if name is not None and name.value:
            value = name.value
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        legacy = window.get_wm_name()
        if isinstance(legacy, bytes):
            return legacy.decode("latin-1")
        return str(legacy or "")

    def activate(self, window: WindowInfo) -> None:
        """Ask the window manager to activate the window, as a pager or taskbar does (window
        managers honour that even while they prevent focus stealing), and set the input focus
        directly, which is all there is without one."""
        if window.handle is None:
            return
        target = self._x.create_resource_object("window", window.handle)
        message = xevent.ClientMessage(
            window=target,
            client_type=self._active_window,
            data=(32, [2, X.CurrentTime, 0, 0, 0]),  # 2: from a pager, on the person's behalf
        )
        mask = X.SubstructureRedirectMask | X.SubstructureNotifyMask
        catch = xerror.CatchError(xerror.BadWindow, xerror.BadMatch)
        self._root.send_event(message, event_mask=mask, onerror=catch)
        target.set_input_focus(X.RevertToParent, X.CurrentTime, onerror=catch)
        self._x.sync()
        if catch.get_error() is not None:
            log.info("The window to focus again is gone or not shown")

    def _top_level(self, window: Any) -> Any:
        while True:
            parent = window.query_tree().parent
            if not parent or parent == self._root:
                return window
            window = parent

    def _client(self, top: Any) -> Any:
        """The application's own window: the top-level itself, or the one a window manager's
        frame holds (it carries WM_STATE)."""
        for candidate in [top, *top.query_tree().children]:
            if candidate.get_property(self._wm_state, X.AnyPropertyType, 0, 1) is not None:
                return candidate
        return top

    def _pid(self, window: Any) -> int | None:
        """`_NET_WM_PID` of the window, or of its client window inside a window manager frame."""
        for candidate in [window, *window.query_tree().children]:
            prop = candidate.get_property(self._wm_pid, X.AnyPropertyType, 0, 1)
            if prop is not None and prop.value:
                return int(prop.value[0])
        return None

    def close(self) -> None:
        _OWN_CLIENTS.discard(self._id_base)
        try:
            self._keyboard.close()
        finally:
            if self._mss is not None:
                self._mss.close()
            self._x.close()

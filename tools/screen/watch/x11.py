"""The person's own input on X11, told apart from the XTest events Deskhand sends.

Two threads, each with its own connections (python-xlib connections are not shared between
threads), so nothing here ever blocks the event loop:

- XRecord: every XTest `FakeInput` request any client sends, with the resource-id base of the
  client that sent it. Ours (`own_clients()`) are Claude's; any other client's (a remote
  desktop, an automation tool) are the person's.
- XInput2 raw events on the root window: input from real devices. Raw events carry the slave
  device they came from; the "XTEST" slave devices are synthetic (already covered above).

Each sends at most one report per `THROTTLE` seconds: a moving mouse makes hundreds.
"""

from __future__ import annotations

import logging
import os
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from Xlib import X
from Xlib import display as xdisplay
from Xlib import error as xerror
from Xlib.ext import record, xinput

from tools.screen.backends.x11.backend import own_clients
from tools.screen.backends.x11.events import events_until
from tools.screen.hand import InputKind, PersonInput

__all__ = ["X11Watcher"]

log = logging.getLogger(__name__)

THROTTLE = 0.1
FAKE_INPUT = 2  # the XTEST extension's FakeInput request
_KINDS: dict[int, InputKind] = {
    X.KeyPress: "key",
    X.KeyRelease: "key",
    X.ButtonPress: "button",
    X.ButtonRelease: "button",
    X.MotionNotify: "motion",
}
_RAW_KINDS: dict[int, InputKind] = {
    xinput.RawKeyPress: "key",
    xinput.RawButtonPress: "button",
    xinput.RawMotion: "motion",
}
_RAW_MASK = xinput.RawKeyPressMask | xinput.RawButtonPressMask | xinput.RawMotionMask


class _Reporter:
    """Where the pointer is and who has the keyboard, read on the reporting thread's own
    connection, and the report itself, throttled."""

    def __init__(self, name: str | None, report: Callable[[PersonInput], None]) -> None:
        self._x = xdisplay.Display(name)
        self._root = self._x.screen().root
        self._pid_atom = self._x.intern_atom("_NET_WM_PID")
        self._report = report
        self._last = 0.0

    def __call__(self, kind: InputKind) -> None:
        now = time.monotonic()
        if now - self._last < THROTTLE:
            return
        self._last = now
        try:
            pointer = self._root.query_pointer()
            event = PersonInput(
                kind=kind,
                x=pointer.root_x,
                y=pointer.root_y,
                focus_own=kind == "key" and self._focus_is_own(),
            )
        except xerror.XError:
            event = PersonInput(kind=kind)
        self._report(event)

    def _focus_is_own(self) -> bool:
        window: Any = self._x.get_input_focus().focus
        if isinstance(window, int) or window == self._root:
            return False
        while window and window != self._root:
            prop = window.get_property(self._pid_atom, X.AnyPropertyType, 0, 1)
            if prop is not None and prop.value:
                return int(prop.value[0]) == os.getpid()
            window = window.query_tree().parent
        return False

    def close(self) -> None:
        self._x.close()


class X11Watcher:
    """Reports the person's own input to `report`, from threads of its own."""

    def __init__(self, report: Callable[[PersonInput], None], display: str | None = None) -> None:
        self._report = report
        self._name = display or os.environ.get("DISPLAY")
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._record: xdisplay.Display | None = None
        self._context: int | None = None

    def start(self) -> None:
        if self._threads:
            return
        self._stop.clear()
        self._threads = [
            threading.Thread(target=self._guard(self._watch_clients), daemon=True),
            threading.Thread(target=self._guard(self._watch_devices), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        """Ask both threads to end; the XRecord one is woken by disabling its context from a
        connection of its own (the recording connection is busy until then)."""
        self._stop.set()
        context, self._context = self._context, None
        if context is not None:
            threading.Thread(target=self._disable, args=(context,), daemon=True).start()
        self._threads = []

    def _disable(self, context: int) -> None:
        try:
            control = xdisplay.Display(self._name)
            try:
                control.record_disable_context(context)
                control.record_free_context(context)
                control.sync()
            finally:
                control.close()
        except Exception:  # the server is gone, and the recording with it
            log.info("The input recording could not be ended cleanly", exc_info=True)

    def _guard(self, work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                work()
            except Exception:
                # Without a watcher Claude is still stopped by Stop and Take over.
                log.warning("The input watcher stopped", exc_info=True)

        return run

    # --- other clients' XTest events -----------------------------------------------------------

    def _watch_clients(self) -> None:
        reporter = _Reporter(self._name, self._report)
        connection = xdisplay.Display(self._name)
        try:
            xtest = connection.query_extension("XTEST")
            if xtest is None or not connection.has_extension("RECORD"):
                log.info("No XRecord here: other programs' synthetic input is not watched")
                return
            opcode = xtest.major_opcode
            context = connection.record_create_context(
                0,
                [record.AllClients],
                [
                    {
                        "core_requests": (0, 0),
                        "core_replies": (0, 0),
                        "ext_requests": (opcode, opcode, FAKE_INPUT, FAKE_INPUT),
                        "ext_replies": (0, 0, 0, 0),
                        "delivered_events": (0, 0),
                        "device_events": (0, 0),
                        "errors": (0, 0),
                        "client_started": False,
                        "client_died": False,
                    }
                ],
            )
            self._context = context
            if self._stop.is_set():  # stopped while starting
                self._context = None
                self._disable(context)
                return

            def recorded(reply: Any) -> None:
                if reply.category != record.FromClient or self._stop.is_set():
                    return
                if int(reply.id_base) in own_clients():
                    return  # Claude's own event
                data = bytes(reply.data)
                if len(data) >= 5 and data[4] in _KINDS:
                    reporter(_KINDS[data[4]])

            connection.record_enable_context(context, recorded)  # returns once disabled
        finally:
            reporter.close()
            connection.close()

    # --- real devices --------------------------------------------------------------------------

    def _watch_devices(self) -> None:
        reporter = _Reporter(self._name, self._report)
        connection = xdisplay.Display(self._name)
        try:
            if not connection.has_extension("XInputExtension"):
                log.info("No XInput2 here: real devices are not watched")
                return
            synthetic = {
                device.deviceid
                for device in connection.xinput_query_device(xinput.AllDevices).devices
                if "XTEST" in str(device.name)
            }
            root = connection.screen().root
            root.xinput_select_events([(xinput.AllMasterDevices, _RAW_MASK)])
            connection.flush()
            for event in events_until(self._stop, connection):
                kind = _RAW_KINDS.get(getattr(event, "evtype", -1))
                data = getattr(event, "data", b"")
                if kind is None or not isinstance(data, bytes | bytearray) or len(data) < 12:
                    continue
                # deviceid (2), time (4), detail (4), then the slave device: sourceid (2).
                (source,) = struct.unpack_from("=H", data, 10)
                if source not in synthetic:
                    reporter(kind)
        finally:
            reporter.close()
            connection.close()

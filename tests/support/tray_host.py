"""A stand-in for the desktop's system tray (the panel's notification area) on an Xvfb display:
it owns `_NET_SYSTEM_TRAY_S0` as a freedesktop system tray does, announces itself, and prints
"dock WINDOW" for each icon that asks to dock (`SYSTEM_TRAY_REQUEST_DOCK`). It embeds nothing:
an app sees a tray and docks its icon, which is what the tests look for.

Run as `python -m tests.support.tray_host`, with DISPLAY set; it prints "ready" once it owns the
selection, and runs until killed.
"""

from __future__ import annotations

import sys

from Xlib import X, Xatom, display
from Xlib.protocol import event

REQUEST_DOCK = 0


def main() -> int:
    screen_display = display.Display()
    screen = screen_display.screen()
    selection = screen_display.intern_atom("_NET_SYSTEM_TRAY_S0")
    opcode = screen_display.intern_atom("_NET_SYSTEM_TRAY_OPCODE")
    manager = screen_display.intern_atom("MANAGER")
    orientation = screen_display.intern_atom("_NET_SYSTEM_TRAY_ORIENTATION")
    owner = screen.root.create_window(0, 0, 1, 1, 0, screen.root_depth)
    owner.change_property(orientation, Xatom.CARDINAL, 32, [0])  # horizontal
    owner.set_selection_owner(selection, X.CurrentTime)
    screen_display.flush()
    if screen_display.get_selection_owner(selection) != owner:
        print("not the owner", flush=True)
        return 1
    announce = event.ClientMessage(
        window=screen.root,
        client_type=manager,
        data=(32, [X.CurrentTime, selection, owner.id, 0, 0]),
    )
    screen.root.send_event(announce, event_mask=X.StructureNotifyMask)
    screen_display.flush()
    print("ready", flush=True)
    while True:
        received = screen_display.next_event()
        if received.type == X.ClientMessage and received.client_type == opcode:
            _format, data = received.data
            if data[1] == REQUEST_DOCK:
                print(f"dock {data[2]}", flush=True)


if __name__ == "__main__":
    sys.exit(main())

"""Keystrokes through XTest for any key name and any character, whatever the keyboard layout.

A character on the current layout is typed with its own key, with Shift for the shifted level.
A character the layout lacks ("ü" on a US layout, "Ω", "€") gets a spare keycode (one with no
keysyms) mapped to it for the rest of the session, the way xdotool does. Each such character
keeps its own keycode: remapping a keycode while an application has not yet read the key event
sent on it would make it read the new character, so a keycode is reused for another character
only when every spare one is taken, and only after a pause. `close()` clears the mappings.

Blocking; used from the driver's worker thread only.
"""

from __future__ import annotations

import time
from collections import OrderedDict

from Xlib import XK, X
from Xlib.display import Display as XDisplay
from Xlib.ext import xtest

from tools.screen.errors import NoKeycode

__all__ = ["Keyboard", "char_keysym"]

REUSE_PAUSE = 0.05  # seconds before a spare keycode is remapped to another character

_SPECIAL_CHARS = {"\n": XK.XK_Return, "\t": XK.XK_Tab, " ": XK.XK_space}


def char_keysym(char: str) -> int:
    """The keysym that types `char`: Latin-1 keysyms are the code point, others the Unicode
    range (0x01000000 + code point), which X servers and toolkits understand."""
    special = _SPECIAL_CHARS.get(char)
    if special is not None:
        return special
    code = ord(char)
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    return 0x01000000 | code


def _cases(keysym: int) -> tuple[int, int]:
    """The lower- and upper-case keysyms of a Latin-1 or Unicode keysym (others have no case)."""
    if 0 < keysym < 0x100:
        base = 0
    elif keysym & 0xFF000000 == 0x01000000:
        base = 0x01000000
    else:
        return keysym, keysym
    char = chr(keysym - base)
    lower, upper = char.lower(), char.upper()
    if len(lower) != 1 or len(upper) != 1 or (base == 0 and max(ord(lower), ord(upper)) > 0xFF):
        return keysym, keysym
    return base + ord(lower), base + ord(upper)


class Keyboard:
    def __init__(self, display: XDisplay) -> None:
        self._display = display
        self._lookup: dict[int, tuple[int, int]] = {}  # keysym -> (keycode, level 0 or 1)
        self._spare: list[int] = []
        self._assigned: OrderedDict[int, tuple[int, float]] = (
            OrderedDict()
        )  # keysym -> (keycode, last used)
        self._shift = display.keysym_to_keycode(XK.XK_Shift_L)
        self.refresh()

    def refresh(self) -> None:
        """Re-read the layout (the person may have switched it since the last keystroke)."""
        info = self._display.display.info
        first, last = info.min_keycode, info.max_keycode
        mapping = self._display.get_keyboard_mapping(first, last - first + 1)
        lookup: dict[int, tuple[int, int]] = {}
        spare: list[int] = []
        ours = {code for code, _ in self._assigned.values()}
        for offset, keysyms in enumerate(mapping):
            keycode = first + offset
            if keycode in ours:
                continue
            if not any(keysyms):
                spare.append(keycode)
                continue
            for level in (0, 1):
                keysym = keysyms[level] if level < len(keysyms) else 0
                if keysym and keysym not in lookup:
                    lookup[keysym] = (keycode, level)
            # A letter listed once stands for both cases (lower-case, then Shift for upper).
            lower, upper = _cases(keysyms[0])
            if (len(keysyms) < 2 or not keysyms[1]) and lower != upper:
                lookup.setdefault(lower, (keycode, 0))
                lookup.setdefault(upper, (keycode, 1))
        self._lookup = lookup
        self._spare = spare

    # --- keys by name -------------------------------------------------------------------------

    def key(self, name: str, down: bool) -> None:
        """Press or release one canonical key (see `tools.screen.keys`)."""
        keysym = XK.string_to_keysym(name) if len(name) > 1 else char_keysym(name)
        if not keysym:
            raise NoKeycode(name)
        keycode, level = self._keycode(keysym)
        # A character on the shifted level ("!") needs Shift around it, as a person would press.
        if down:
            if level:
                self._fake(X.KeyPress, self._shift)
            self._fake(X.KeyPress, keycode)
        else:
            self._fake(X.KeyRelease, keycode)
            if level:
                self._fake(X.KeyRelease, self._shift)
        self._display.sync()

    def type_char(self, char: str) -> None:
        keycode, level = self._keycode(char_keysym(char))
        if level:
            self._fake(X.KeyPress, self._shift)
        self._fake(X.KeyPress, keycode)
        self._fake(X.KeyRelease, keycode)
        if level:
            self._fake(X.KeyRelease, self._shift)
        self._display.sync()

    # --- keycodes ------------------------------------------------------------------------------

    def _fake(self, event_type: int, keycode: int) -> None:
        xtest.fake_input(self._display, event_type, keycode)

    def _keycode(self, keysym: int) -> tuple[int, int]:
        found = self._lookup.get(keysym)
        if found is not None:
            return found
        assigned = self._assigned.get(keysym)
        if assigned is not None:
            self._assigned[keysym] = (assigned[0], time.monotonic())
            self._assigned.move_to_end(keysym)
            return assigned[0], 0
        return self._assign(keysym), 0

    def _assign(self, keysym: int) -> int:
        if self._spare:
            keycode = self._spare.pop()
        elif self._assigned:
            old, (keycode, used) = next(iter(self._assigned.items()))
            del self._assigned[old]
            wait = REUSE_PAUSE - (time.monotonic() - used)
            if wait > 0:
                time.sleep(wait)
        else:
            raise NoKeycode(hex(keysym))
        self._display.change_keyboard_mapping(keycode, [(keysym, keysym)])
        self._display.sync()
        self._assigned[keysym] = (keycode, time.monotonic())
        return keycode

    def close(self) -> None:
        """Give the spare keycodes back (after a pause, so the last keystrokes are read first)."""
        if not self._assigned:
            return
        time.sleep(REUSE_PAUSE)
        for keycode, _ in self._assigned.values():
            self._display.change_keyboard_mapping(keycode, [(X.NoSymbol, X.NoSymbol)])
        self._assigned.clear()
        self._display.sync()

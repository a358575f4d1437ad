"""A shortcut as Deskhand stores it: modifiers and one key, lower case, joined by "+".

"ctrl+alt+space" is the default on every platform: Ctrl+Alt+Space on Linux, ⌃⌥Space on a
Mac (there "ctrl" is the Control key and "alt" the Option key; "super" is ⌘). An empty
string means the shortcut is off.
"""

from __future__ import annotations

import sys

from tools.data import Data

__all__ = ["DEFAULT_SHORTCUT", "MODIFIERS", "Shortcut"]

DEFAULT_SHORTCUT = "ctrl+alt+space"
MODIFIERS = ("ctrl", "alt", "shift", "super")  # in the order they are written and shown
_ALIASES = {"control": "ctrl", "option": "alt", "cmd": "super", "meta": "super", "win": "super"}
_MAC_SYMBOLS = {"ctrl": "⌃", "alt": "⌥", "shift": "⇧", "super": "⌘"}
_LINUX_NAMES = {"ctrl": "Ctrl", "alt": "Alt", "shift": "Shift", "super": "Super"}


class Shortcut(Data, frozen=True):
    """Modifiers (at least one: a bare key would be taken from every app) and a key name."""

    modifiers: tuple[str, ...]
    key: str  # "space", "a", "f5", "return"…

    @classmethod
    def parse(cls, text: str) -> Shortcut | None:
        """The shortcut a stored string names; None for "" (off). Raises ValueError."""
        parts = [p.strip().lower() for p in text.split("+") if p.strip()]
        if not parts:
            return None
        *mods, key = parts
        named = {_ALIASES.get(m, m) for m in mods}
        unknown = named - set(MODIFIERS)
        if unknown:
            raise ValueError(f"unknown modifier: {', '.join(sorted(unknown))}")
        if not named:
            raise ValueError("a system-wide shortcut needs Ctrl, Alt, Shift or Super")
        if key in MODIFIERS or key in _ALIASES:
            raise ValueError("a shortcut ends with a key that is not a modifier")
        return cls(modifiers=tuple(m for m in MODIFIERS if m in named), key=key)

    def stored(self) -> str:
        return "+".join([*self.modifiers, self.key])

    def shown(self, platform: str = sys.platform) -> str:
        """For a person: "Ctrl+Alt+Space" on Linux, "⌃⌥Space" on a Mac."""
        key = self.key if len(self.key) > 1 and not self.key[0] == "f" else self.key.upper()
        key = key[:1].upper() + key[1:]
        if platform == "darwin":
            return "".join(_MAC_SYMBOLS[m] for m in self.modifiers) + key
        return "+".join([*(_LINUX_NAMES[m] for m in self.modifiers), key])

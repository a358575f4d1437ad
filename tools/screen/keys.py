"""Key names as the model writes them ("Return", "ctrl+s", "alt+Tab") to one canonical spelling.

Pure. The canonical names are X keysym names ("Return", "Control_L", "Prior", "F5"), which is
the spelling the model learned (xdotool's); a single character stands for the key that types
it. Each backend maps canonical names to its own key codes. Names are case-insensitive, as the
toolset's contract says: "ctrl+A" is ctrl+a, and shift is written when it is meant.

`parse_sequence("ctrl+a Return")` gives `[("Control_L", "a"), ("Return",)]`: chords separated by
spaces, each pressed together (in order) and released in reverse. An unknown name raises
`UnknownKey`, which the driver turns into a fixed phrase rather than guessing.
"""

from __future__ import annotations

from tools.toolset_driver import UnknownKey, key_chord, key_sequence

__all__ = [
    "MODIFIERS",
    "NAMED_KEYS",
    "UnknownKey",
    "is_text_entry",
    "parse_chord",
    "parse_modifiers",
    "parse_sequence",
]


MODIFIERS = frozenset({"Control_L", "Shift_L", "Alt_L", "Super_L"})

_ALIASES = {
    "ctrl": "Control_L",
    "control": "Control_L",
    "control_l": "Control_L",
    "control_r": "Control_L",
    "shift": "Shift_L",
    "shift_l": "Shift_L",
    "shift_r": "Shift_L",
    "alt": "Alt_L",
    "alt_l": "Alt_L",
    "alt_r": "Alt_L",
    "option": "Alt_L",
    "opt": "Alt_L",
    "super": "Super_L",
    "super_l": "Super_L",
    "super_r": "Super_L",
    "cmd": "Super_L",
    "command": "Super_L",
    "meta": "Super_L",
    "win": "Super_L",
    "windows": "Super_L",
    "return": "Return",
    "enter": "Return",
    "kp_enter": "Return",
    "tab": "Tab",
    "escape": "Escape",
    "esc": "Escape",
    "backspace": "BackSpace",
    "back_space": "BackSpace",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "ins": "Insert",
    "home": "Home",
    "end": "End",
    "page_up": "Prior",
    "pageup": "Prior",
    "prior": "Prior",
    "page_down": "Next",
    "pagedown": "Next",
    "next": "Next",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "arrowup": "Up",
    "arrowdown": "Down",
    "arrowleft": "Left",
    "arrowright": "Right",
    "space": "space",
    "spacebar": "space",
    "caps_lock": "Caps_Lock",
    "capslock": "Caps_Lock",
    "menu": "Menu",
    "contextmenu": "Menu",
    "print": "Print",
    "printscreen": "Print",
    # punctuation by name, as xdotool spells it: the character's own key
    "minus": "-",
    "plus": "+",
    "equal": "=",
    "comma": ",",
    "period": ".",
    "slash": "/",
    "backslash": "\\",
    "semicolon": ";",
    "apostrophe": "'",
    "quote": "'",
    "grave": "`",
    "bracketleft": "[",
    "bracketright": "]",
}
_ALIASES.update({f"f{n}": f"F{n}" for n in range(1, 25)})

NAMED_KEYS = frozenset(name for name in _ALIASES.values() if len(name) > 1)

# Keys that move or leave a field without entering text: allowed even in a password field.
_NON_TEXT = frozenset(
    {
        "Return",
        "Tab",
        "Escape",
        "Up",
        "Down",
        "Left",
        "Right",
        "Home",
        "End",
        "Prior",
        "Next",
        "BackSpace",
        "Delete",
        "Caps_Lock",
        "Menu",
        *(f"F{n}" for n in range(1, 25)),
        *MODIFIERS,
    }
)


def _key(name: str) -> str:
    canonical = _ALIASES.get(name.lower())
    if canonical is not None:
        return canonical
    if len(name) == 1 and name.isprintable() and not name.isspace():
        return name.lower()
    raise UnknownKey(name)


def parse_chord(chord: str) -> tuple[str, ...]:
    """One chord ("ctrl+shift+p"; "+" alone and "ctrl++" name the plus key) as canonical names."""
    return tuple(key_chord(chord, _key))


def parse_sequence(text: str) -> list[tuple[str, ...]]:
    """Space-separated chords, each a tuple of keys pressed together."""
    return [tuple(chord) for chord in key_sequence(text, _key)]


def parse_modifiers(text: str | None) -> tuple[str, ...]:
    """The keys held during a click or scroll ("ctrl", "ctrl+shift"); only modifiers may be held."""
    if not text or not text.strip():
        return ()
    keys = parse_chord(text.strip())
    if any(key not in MODIFIERS for key in keys):
        raise UnknownKey(text)
    return keys


def is_text_entry(chord: tuple[str, ...]) -> bool:
    """Whether pressing this chord can put characters into a field, pasting included."""
    if all(key in _NON_TEXT for key in chord):
        return False
    # alt (option) is not among them: on a Mac option+key types a character.
    if any(key in ("Control_L", "Super_L") for key in chord):
        return "v" in chord  # ctrl+v / cmd+v paste; other shortcuts enter no text
    return True

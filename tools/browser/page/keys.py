"""Key names as the model writes them (xdotool style: "Return", "ctrl+a") to Playwright's names.

Pure: `parse_sequence("ctrl+a Return")` gives `[["Control", "a"], ["Enter"]]`, each chord
pressed as one. An unknown name raises `UnknownKey`, which the driver turns into a fixed
phrase rather than guessing which key was meant.
"""

from __future__ import annotations

from typing import Literal

from tools.toolset_driver import UnknownKey, key_chord, key_sequence

__all__ = [
    "MODIFIERS",
    "UnknownKey",
    "activation",
    "focus_move",
    "is_text_entry",
    "modifier_keys",
    "parse_chord",
    "parse_sequence",
]


_MODIFIER_KEYS = {
    "ctrl": "Control",
    "control": "Control",
    "shift": "Shift",
    "alt": "Alt",
    "option": "Alt",
    "opt": "Alt",
    "cmd": "Meta",
    "command": "Meta",
    "meta": "Meta",
    "super": "Meta",
    "win": "Meta",
    "windows": "Meta",
}
MODIFIERS = frozenset(_MODIFIER_KEYS.values())

_NAMED = {
    "return": "Enter",
    "enter": "Enter",
    "kp_enter": "Enter",
    "tab": "Tab",
    "escape": "Escape",
    "esc": "Escape",
    "backspace": "Backspace",
    "back_space": "Backspace",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "ins": "Insert",
    "home": "Home",
    "end": "End",
    "page_up": "PageUp",
    "pageup": "PageUp",
    "prior": "PageUp",
    "page_down": "PageDown",
    "pagedown": "PageDown",
    "next": "PageDown",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "arrowup": "ArrowUp",
    "arrowdown": "ArrowDown",
    "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight",
    "space": "Space",
    "spacebar": "Space",
    "minus": "Minus",
    "plus": "+",
    "equal": "Equal",
    "comma": "Comma",
    "period": "Period",
    "slash": "Slash",
    "backslash": "Backslash",
    "semicolon": "Semicolon",
    "quote": "Quote",
    "apostrophe": "Quote",
    "bracketleft": "BracketLeft",
    "bracketright": "BracketRight",
    "grave": "Backquote",
    "capslock": "CapsLock",
    "caps_lock": "CapsLock",
    "numlock": "NumLock",
    "contextmenu": "ContextMenu",
    "menu": "ContextMenu",
    "printscreen": "PrintScreen",
    "pause": "Pause",
}
_NAMED.update({f"f{n}": f"F{n}" for n in range(1, 13)})

# Keys that move focus or leave a field without entering text: allowed even in a password field.
_NON_TEXT = frozenset(
    {
        "Enter",
        "Tab",
        "Escape",
        "ArrowUp",
        "ArrowDown",
        "ArrowLeft",
        "ArrowRight",
        "Home",
        "End",
        "PageUp",
        "PageDown",
        "Shift",
        "Backspace",
        "Delete",
        *[f"F{n}" for n in range(1, 13)],
    }
)


def _key(name: str) -> str:
    lowered = name.lower()
    if lowered in _MODIFIER_KEYS:
        return _MODIFIER_KEYS[lowered]
    if lowered in _NAMED:
        return _NAMED[lowered]
    if len(name) == 1 and name.isprintable():
        return name
    raise UnknownKey(name)


def parse_chord(chord: str) -> list[str]:
    """One chord ("ctrl+shift+p", "+" alone is the plus key) as Playwright key names."""
    return key_chord(chord, _key)


def parse_sequence(text: str) -> list[list[str]]:
    """Space-separated chords, each a list of keys pressed together."""
    return key_sequence(text, _key)


def modifier_keys(chord: str | None) -> list[str]:
    """The modifier chord of a click ("shift", "ctrl+shift", "cmd+alt") as Playwright modifiers."""
    if not chord:
        return []
    keys = parse_chord(chord)
    if any(key not in MODIFIERS for key in keys):
        raise UnknownKey(chord)
    # Playwright's "ControlOrMeta" would be more portable, but the model names the key it means.
    return keys


def is_text_entry(chord: list[str]) -> bool:
    """Whether pressing this chord can put characters into a field (or paste into it)."""
    if all(key in _NON_TEXT or key in MODIFIERS for key in chord):
        return False
    return not any(key in ("Control", "Meta") for key in chord) or any(
        key.lower() == "v" for key in chord
    )


def activation(chord: list[str]) -> Literal["enter", "space"] | None:
    """How this chord can activate the focused element: Return/Enter (with any modifiers, since
    apps send on Ctrl+Return), or Space (alone or with Shift); None if it cannot."""
    *held, last = chord
    if last == "Enter":
        return "enter"
    if last in ("Space", " ") and all(key == "Shift" for key in held):
        return "space"
    return None


def focus_move(chord: list[str]) -> int | None:
    """Where the chord moves the focus: 1 (Tab), -1 (Shift+Tab), 0 (nowhere that changes which
    element acts), None (somewhere that cannot be foreseen, e.g. Ctrl+Tab)."""
    if "Tab" not in chord:
        return 0
    if chord == ["Tab"]:
        return 1
    if sorted(chord) == ["Shift", "Tab"]:
        return -1
    return None

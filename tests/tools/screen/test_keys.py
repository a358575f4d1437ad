"""Key names as the model writes them, in the canonical spelling the backends know."""

from __future__ import annotations

import pytest

from tools.screen.keys import (
    UnknownKey,
    is_text_entry,
    parse_chord,
    parse_modifiers,
    parse_sequence,
)


def test_xdotool_names_and_aliases() -> None:
    assert parse_sequence("ctrl+a Return") == [("Control_L", "a"), ("Return",)]
    assert parse_chord("alt+Tab") == ("Alt_L", "Tab")
    assert parse_chord("ctrl+shift+Escape") == ("Control_L", "Shift_L", "Escape")
    assert parse_chord("Page_Down") == ("Next",)
    assert parse_chord("BackSpace") == ("BackSpace",)
    assert parse_chord("cmd+c") == ("Super_L", "c")
    assert parse_chord("KP_Enter") == ("Return",)
    assert parse_chord("F12") == ("F12",)


def test_names_are_case_insensitive() -> None:
    assert parse_chord("CTRL+A") == parse_chord("ctrl+a") == ("Control_L", "a")
    assert parse_chord("return") == ("Return",)


def test_plus_and_punctuation() -> None:
    assert parse_chord("+") == ("+",)
    assert parse_chord("ctrl++") == ("Control_L", "+")
    assert parse_chord("ctrl+minus") == ("Control_L", "-")
    assert parse_chord("ü") == ("ü",)


@pytest.mark.parametrize("bad", ["", "   ", "ctrl+", "Hyperdrive", "ctrl+Hyperdrive", "a+ +b"])
def test_unknown_names_are_refused(bad: str) -> None:
    with pytest.raises(UnknownKey):
        parse_sequence(bad)


def test_only_modifiers_may_be_held_during_a_click() -> None:
    assert parse_modifiers(None) == ()
    assert parse_modifiers("ctrl+shift") == ("Control_L", "Shift_L")
    with pytest.raises(UnknownKey):
        parse_modifiers("ctrl+a")


def test_which_chords_enter_text() -> None:
    assert is_text_entry(("a",))
    assert is_text_entry(("Shift_L", "a"))
    assert is_text_entry(("space",))
    assert is_text_entry(("Control_L", "v"))  # paste
    assert is_text_entry(("Super_L", "v"))
    assert is_text_entry(("Alt_L", "e"))  # option+e types on a Mac
    assert not is_text_entry(("Control_L", "a"))
    assert not is_text_entry(("Return",))
    assert not is_text_entry(("Tab",))
    assert not is_text_entry(("Shift_L", "Tab"))
    assert not is_text_entry(("BackSpace",))

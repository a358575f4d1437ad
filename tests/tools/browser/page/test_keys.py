"""Key names as the model writes them, and which keys activate, move the focus or enter text."""

from __future__ import annotations

import pytest

from tools.browser.page.keys import (
    UnknownKey,
    activation,
    focus_move,
    is_text_entry,
    modifier_keys,
    parse_sequence,
)


def test_key_names() -> None:
    assert parse_sequence("ctrl+a Return") == [["Control", "a"], ["Enter"]]
    assert parse_sequence("BackSpace Page_Down cmd+shift+p") == [
        ["Backspace"],
        ["PageDown"],
        ["Meta", "Shift", "p"],
    ]
    assert parse_sequence("ctrl++") == [["Control", "+"]]
    assert modifier_keys("ctrl+shift") == ["Control", "Shift"]
    with pytest.raises(UnknownKey):
        parse_sequence("Hyper_Q")
    with pytest.raises(UnknownKey):
        modifier_keys("ctrl+a")


def test_keys_that_activate_or_move_the_focus() -> None:
    assert activation(["Enter"]) == "enter" and activation(["Control", "Enter"]) == "enter"
    assert activation(["Space"]) == "space" and activation(["Control", "Space"]) is None
    assert activation(["a"]) is None and activation(["Tab"]) is None
    assert focus_move(["Tab"]) == 1 and focus_move(["Shift", "Tab"]) == -1
    assert focus_move(["Control", "Tab"]) is None and focus_move(["Enter"]) == 0


def test_text_entry_keys() -> None:
    assert is_text_entry(["a"])
    assert is_text_entry(["Control", "v"])
    assert is_text_entry(["Shift", "Insert"])
    assert is_text_entry(["Meta", "v"])
    assert not is_text_entry(["Tab"])
    assert not is_text_entry(["Enter"])
    assert not is_text_entry(["Control", "a"])
    assert not is_text_entry(["Backspace"])

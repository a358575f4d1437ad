"""Pure helpers: risk levels and approval-sheet lines, key names, download names, form values."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.browser.downloads import safe_filename, unique_path
from tools.browser.forms import as_bool, as_text, pick_option
from tools.browser.keys import UnknownKey, is_text_entry, modifier_keys, parse_sequence
from tools.browser.risk import browser_risk, browser_summary

LABELS = {"ref_1": "Sign in", "ref_2": "Place order", "ref_3": "Email"}
REF = {"type": "ref", "ref": "ref_1"}


@pytest.mark.parametrize(
    ("member", "input", "level"),
    [
        ("screenshot", {}, "read"),
        ("read_page", {"filter": "interactive"}, "read"),
        ("find", {"query": "x"}, "read"),
        ("get_page_text", {}, "read"),
        (
            "scroll",
            {"scroll_direction": "down", "target": {"type": "coordinate", "x": 1, "y": 1}},
            "read",
        ),
        ("new_tab", {}, "read"),
        ("switch_tab", {"tab_id": "tab_2"}, "read"),
        ("navigate", {"url": "example.com"}, "change"),
        ("navigate", {"url": "back"}, "change"),
        ("close_tab", {"tab_id": "tab_2"}, "change"),
        ("left_click", {"target": REF}, "change"),
        ("type", {"text": "hi"}, "change"),
        ("key", {"text": "ctrl+a"}, "change"),
        ("form_input", {"target": {"type": "ref", "ref": "ref_3"}, "value": "a@b.c"}, "change"),
        ("left_click_drag", {}, "change"),
        ("left_click", {"target": {"type": "ref", "ref": "ref_2"}}, "consequential"),
        ("javascript_exec", {"text": "1"}, "consequential"),
        ("file_upload", {"paths": ["/x"]}, "consequential"),
        ("made_up", {}, "consequential"),
    ],
)
def test_risk_levels(member: str, input: dict, level: str) -> None:
    risk, reason = browser_risk(member, input, ref_label=LABELS.get)
    assert risk == level and reason


def test_summaries_name_the_element_and_the_site() -> None:
    url = "https://accounts.example.com/login?next=/"
    assert browser_summary("left_click", {"target": REF}, url, ref_label=LABELS.get) == (
        "Click 'Sign in' on accounts.example.com"
    )
    assert (
        browser_summary("left_click", {"target": {"type": "coordinate", "x": 5, "y": 9}}, url)
        == "Click at (5, 9) on accounts.example.com"
    )
    assert browser_summary("navigate", {"url": "example.org/a"}, url) == "Open example.org/a"
    assert browser_summary("navigate", {"url": "back"}, url) == "Go back"
    assert (
        browser_summary(
            "form_input",
            {"target": {"type": "ref", "ref": "ref_3"}, "value": True},
            None,
            ref_label=LABELS.get,
        )
        == "Check 'Email'"
    )
    assert browser_summary(
        "file_upload", {"paths": ["/u/a.pdf", "/u/b.png"], "target": REF}, url
    ).startswith("Upload a.pdf, b.png to")
    assert (
        browser_summary("javascript_exec", {"text": "x"}, url)
        == "Run JavaScript on accounts.example.com"
    )


def test_summary_escapes_invisible_characters() -> None:
    line = browser_summary("type", {"text": "pay\u202eevil\n"}, None)
    assert "\u202e" not in line and "\n" not in line
    assert "\\u202e" in line and "\\n" in line


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


def test_text_entry_keys() -> None:
    assert is_text_entry(["a"])
    assert is_text_entry(["Control", "v"])
    assert not is_text_entry(["Tab"])
    assert not is_text_entry(["Enter"])
    assert not is_text_entry(["Control", "a"])
    assert not is_text_entry(["Backspace"])


def test_download_names_stay_inside_the_folder(tmp_path: Path) -> None:
    assert safe_filename("../../etc/passwd") == "passwd"
    assert safe_filename("..\\..\\boot.ini") == "boot.ini"
    assert safe_filename(".bashrc") == "bashrc"
    assert safe_filename("") == "download"
    assert safe_filename("report\u202egpj.exe") == "report_gpj.exe"
    (tmp_path / "a.txt").write_text("x")
    assert unique_path(tmp_path, "a.txt").name == "a (2).txt"


def test_form_values() -> None:
    assert as_bool(True) is True and as_bool("off") is False and as_bool("maybe") is None
    assert as_text(7.0) == "7" and as_text(False) == "false"
    options = [["", "Choose…", "Choose…"], ["ca", "Canada", "Canada"]]
    assert pick_option(options, "") == ""
    assert pick_option(options, "canada") == "ca"
    assert pick_option(options, "Mars") is None

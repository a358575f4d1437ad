"""The page's changes between two aria snapshots, on snapshot text (no browser)."""

from __future__ import annotations

from tools.browser.outcome.changes import diff, render
from tools.browser.page.snapshot import AriaNode, parse_snapshot
from tools.outcome import Outcome


def lines(before: str, after: str, secret: frozenset[str] = frozenset()) -> list[str]:
    def ref_of(node: AriaNode) -> str:
        return f"ref_{node.pw_ref}"

    changes = diff(parse_snapshot(before), parse_snapshot(after))
    return [render(change, secret=secret, ref_of=ref_of) for change in changes]


PAGE = """- generic [ref=e1]:
  - heading "Account" [level=1] [ref=e2]
  - dialog "Cookies" [ref=e3]:
    - paragraph [ref=e4]: We use cookies
    - button "Accept" [ref=e5]
  - textbox "Name" [ref=e6]
  - textbox "Password" [ref=e7]
  - checkbox "Remember me" [ref=e8]
  - combobox "Country" [ref=e9]:
    - option "France" [selected]
    - option "Spain"
  - button "Save" [ref=e10]
"""


def test_the_same_page_has_no_changes() -> None:
    assert lines(PAGE, PAGE) == []


def test_what_appeared_went_and_changed_in_page_order() -> None:
    after = (
        PAGE.replace('  - dialog "Cookies" [ref=e3]:\n', "")
        .replace("    - paragraph [ref=e4]: We use cookies\n", "")
        .replace('    - button "Accept" [ref=e5]\n', "")
        .replace('textbox "Name" [ref=e6]', 'textbox "Name" [ref=e6]: AB')
        .replace('checkbox "Remember me" [ref=e8]', 'checkbox "Remember me" [checked] [ref=e8]')
        .replace('"France" [selected]', '"France"')
        .replace('"Spain"', '"Spain" [selected]')
        .replace(
            '  - button "Save" [ref=e10]\n',
            '  - button "Save" [ref=e10]\n  - alert [ref=e11]: Saved\n  - button "Undo" [ref=e12]\n',
        )
    )
    assert lines(PAGE, after) == [
        '- dialog "Cookies"',
        '~ textbox "Name": "" → "AB"',
        '~ checkbox "Remember me": checked',
        '~ combobox "Country": "France" → "Spain"',
        '+ alert "Saved"',
        '+ button "Undo" [ref_e12]',
    ]


def test_a_password_fields_value_is_hidden() -> None:
    after = PAGE.replace('textbox "Password" [ref=e7]', 'textbox "Password" [ref=e7]: hunter2')
    assert lines(PAGE, after, frozenset({"e7"})) == ['~ textbox "Password": (hidden)']


def test_a_field_without_a_ref_is_hidden_too() -> None:
    before = '- textbox "PIN"\n'
    assert lines(before, '- textbox "PIN": 1234\n') == ['~ textbox "PIN": (hidden)']


def test_an_appearing_container_never_shows_a_fields_value() -> None:
    after = (
        PAGE
        + "  - dialog [ref=e20]:\n    - textbox [ref=e21]: hunter2\n    - text: Sign in again\n"
    )
    assert lines(PAGE, after) == ['+ dialog "Sign in again"', "+ textbox [ref_e21]"]


def test_a_renamed_button_and_a_changed_status() -> None:
    before = '- button "Save" [ref=e1]\n- status [ref=e2]\n'
    after = '- button "Saved ✓" [ref=e3]\n- status [ref=e2]: Saved at 10:02\n'
    assert lines(before, after) == [
        '~ button "Save" → "Saved ✓"',
        '~ status "" → "Saved at 10:02"',
    ]


def test_text_in_the_pages_wrappers_and_unchecked_and_disabled() -> None:
    before = (
        '- generic:\n  - text: Draft\n- checkbox "A" [checked] [ref=e1]\n- button "Go" [ref=e2]\n'
    )
    after = '- generic:\n  - text: Published\n- checkbox "A" [ref=e1]\n- button "Go" [disabled] [ref=e2]\n'
    assert lines(before, after) == [
        '- text "Draft"',
        '+ text "Published"',
        '~ checkbox "A": not checked',
        '~ button "Go": disabled',
    ]


def test_a_new_dialog_lists_its_first_controls_with_their_refs() -> None:
    before = '- heading "Shop" [level=1] [ref=e1]\n'
    buttons = "".join(f'    - button "Option {n}" [ref=e{n + 10}]\n' for n in range(1, 8))
    after = (
        before
        + '- dialog "Cookies" [ref=e2]:\n  - paragraph [ref=e3]: We use cookies\n  - group:\n'
        + buttons
    )
    assert lines(before, after) == [
        '+ dialog "Cookies"',
        '+ button "Option 1" [ref_e11]',
        '+ button "Option 2" [ref_e12]',
        '+ button "Option 3" [ref_e13]',
        '+ button "Option 4" [ref_e14]',
        '+ button "Option 5" [ref_e15]',
    ]


def test_many_changes_stay_within_the_sections_bounds() -> None:
    before = '- list "Results" [ref=e1]\n'
    after = before + "".join(f"  - listitem [ref=e{n + 2}]: Result number {n}\n" for n in range(60))
    section = Outcome(kind="done", changes=lines(before, after)).effect_text()
    assert len(section.splitlines()) == 20 and len(section) <= 1500
    assert section.splitlines()[1] == '+ listitem "Result number 0"'
    assert section.splitlines()[-1] == "… and 42 more"

"""A card says what a call really did in a person's words, from the same `Effect:` lines the
model reads: one line shape each, as the issue lists them, and each kind of outcome."""

from __future__ import annotations

import pytest

from desktop.calls.card_text import card_words, change_words
from tools.browser import errors
from tools.outcome import Outcome


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('+ alert "Email is invalid"', 'alert "Email is invalid" appeared'),
        ('- dialog "Cookies"', 'dialog "Cookies" went away'),
        ('~ checkbox "Remember me": checked', 'checkbox "Remember me" is now checked'),
        ('~ textbox "Name": "" → "AB"', 'textbox "Name" now holds "AB"'),
        ('~ password text "PIN": (hidden) → (hidden)', 'password text "PIN" now holds (hidden)'),
        ("→ navigated to https://example.com/done", "went to https://example.com/done"),
        ('→ new tab 3: "Receipt"', 'new tab 3: "Receipt"'),
        ('→ dialog "Leave site?"', 'dialog "Leave site?"'),
        ("→ download report.pdf", "download report.pdf"),
    ],
)
def test_each_effect_line_in_words(line: str, words: str) -> None:
    assert change_words(line) == words


def test_each_kind_of_outcome_on_the_cards_line() -> None:
    def said(effect: Outcome, ending: str = "ok") -> tuple[str, str, str]:
        words = card_words(ending, "Clicked.", effect, source="browser")
        return words.state, words.status, words.detail

    typed = Outcome(kind="done", changes=['~ textbox "Name": "" → "AB"'])
    assert said(typed) == ("done", 'Typed: the field holds "AB"', 'Textbox "Name" now holds "AB"')
    late = Outcome(kind="done", changes=['+ status "Saved ✓"', '- button "Save"'])
    assert said(late) == (
        "done",
        'Status "Saved ✓" appeared (+1)',
        'Status "Saved ✓" appeared\nButton "Save" went away',
    )
    window = Outcome(kind="no_effect", nothing="nothing in the window changed.")
    assert said(window)[:2] == ("no_effect", "No change in the window")
    covered = Outcome(kind="refused", note='Covered by dialog "Cookies".')
    assert said(covered, "error") == ("failed", "Not done", 'Covered by dialog "Cookies".')
    mail = Outcome(kind="unconfirmed", note="Not confirmed: the message is not in Sent.")
    assert said(mail) == ("unconfirmed", "Not confirmed", "The message is not in Sent.")
    # How it ended comes first: a denial is the person's, whatever the source said.
    assert said(Outcome(kind="refused"), "denied")[:2] == ("denied", "You denied this")
    long = Outcome(kind="done", changes=[f'+ alert "{"x" * 80}"'])
    assert len(said(long)[1]) == 48 and said(long)[1].endswith("…")


def test_a_browser_action_refused_before_acting_says_why_on_its_card() -> None:
    """The driver's own refusals (tools/browser/page/actionable.py): the card reads the check
    that failed, the very words the model reads; an element gone from the page reads as a page
    that changed, as a stale reference always has."""
    covered = errors.not_actionable("covered", cover='dialog "Cookies"')
    words = card_words("error", covered, Outcome(kind="refused", note=covered), source="browser")
    assert (words.state, words.status, words.detail) == ("failed", "Not done", covered)
    assert 'covered by dialog "Cookies"' in words.detail
    disabled = errors.not_actionable("disabled")
    words = card_words("error", disabled, Outcome(kind="refused", note=disabled), source="browser")
    assert words.status == "Not done" and "not enabled" in words.detail
    gone = Outcome(kind="refused", note=errors.DETACHED)
    words = card_words("error", errors.DETACHED, gone, source="browser")
    assert (words.status, words.detail) == (
        "Page changed",
        "The page changed before Claude could act; it will look again.",
    )

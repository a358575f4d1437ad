"""The fixed phrases the model reads when a browser action fails, and how failures map to them."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError

from tools.browser import errors
from tools.browser.page.actionable import cover_words


def test_a_read_that_meets_a_navigation_says_so_not_that_an_element_was_covered() -> None:
    raised = PlaywrightError(
        "Page.evaluate: Execution context was destroyed, most likely because of a navigation"
    )
    assert str(errors.from_playwright(raised)) == errors.NAVIGATED_MEANWHILE


def test_each_failed_check_has_its_own_words() -> None:
    words = {
        check: errors.not_actionable(check, noun="click", cover='dialog "Cookies"')
        for check in ("detached", "hidden", "disabled", "readonly", "moving", "covered", "ok")
    }
    assert len(set(words.values())) == len(words)
    assert words["covered"].startswith('Refused: the element is covered by dialog "Cookies", ')
    assert "would receive the click instead" in words["covered"]
    assert "not enabled" in words["disabled"]
    assert "still moving" in words["moving"]
    assert "detached" in words["detached"] and "hidden" in words["hidden"]
    hover = errors.not_actionable("covered", noun="pointer", cover="banner <header>")
    assert "covered by banner <header>, which would receive the pointer instead" in hover


def test_a_cover_is_named_by_role_and_name_and_its_page_text_kept_in_bounds() -> None:
    assert cover_words({"role": "dialog", "name": "Cookies", "tag": "div"}) == 'dialog "Cookies"'
    assert cover_words({"role": "generic", "name": "", "tag": "div"}) == "generic <div>"
    odd = cover_words({"role": 'x"><script', "name": 'a "b"\n c' + "z" * 200, "tag": "DIV"})
    assert odd.startswith("xscript \"a 'b' c") and len(odd) < 100

"""Form values as the model gives them: booleans, text, and the option a select means."""

from __future__ import annotations

from tools.browser.page.forms import as_bool, as_text, pick_option


def test_form_values() -> None:
    assert as_bool(True) is True and as_bool("off") is False and as_bool("maybe") is None
    assert as_text(7.0) == "7" and as_text(False) == "false"
    options = [["", "Choose…", "Choose…"], ["ca", "Canada", "Canada"]]
    assert pick_option(options, "") == ""
    assert pick_option(options, "canada") == "ca"
    assert pick_option(options, "Mars") is None

"""Setting one form field to the value the model gave `form_input`, whatever kind of field it is.

Values arrive as a string, a number or a boolean: a boolean checks a checkbox or radio
button, a select takes an option's value or its label, a range input its number, anything
editable (inputs, textareas, contenteditable) its text. Values go to the page as arguments,
never inside script text. Each waits for the field as a click waits for its target
(`actionable.act`), within the call's budget. Password fields are refused before this runs (see `passwords`).
"""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError

from tools.browser import errors
from tools.browser.page.actionable import Budget, Element, act

__all__ = ["as_bool", "as_text", "set_field"]

OPTIONS_SCRIPT = "select => [...select.options].map(o => [o.value, o.label, o.text])"
SET_RANGE_SCRIPT = (
    "(element, value) => { element.value = value;"
    " element.dispatchEvent(new Event('input', {bubbles: true}));"
    " element.dispatchEvent(new Event('change', {bubbles: true})); }"
)


def as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in (
        "true",
        "false",
        "on",
        "off",
        "yes",
        "no",
    ):
        return value.strip().lower() in ("true", "on", "yes")
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    return None


def as_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def pick_option(options: list[list[str]], wanted: str) -> str | None:
    """The value of the option whose value is `wanted`, else whose label or text is (any case)."""
    for value, _label, _text in options:
        if value == wanted:
            return value
    folded = wanted.strip().lower()
    for value, label, text in options:
        if folded in (label.strip().lower(), text.strip().lower()):
            return value
    return None


async def set_field(
    locator: Element, role: str, value: str | float | bool, *, budget: Budget
) -> None:
    """Set the field at `locator` (its snapshot role is `role`) within `budget`; raises a
    fixed-phrase ToolError, or `NotActionable` when the field could not take the value."""
    kind = (await locator.get_attribute("type") or "").strip().lower()
    if kind == "file":
        raise errors.refusal(errors.USE_FILE_UPLOAD)
    if kind in ("checkbox", "radio") or role in ("checkbox", "radio", "switch"):
        checked = as_bool(value)
        if checked is None:
            raise errors.refusal(errors.BAD_CHECK_VALUE)
        await act(
            locator, "check", lambda timeout: locator.set_checked(checked, timeout=timeout), budget
        )
        return
    tag = str(await locator.evaluate("element => element.localName"))
    if tag == "select":
        match = pick_option(await locator.evaluate(OPTIONS_SCRIPT), as_text(value))
        if match is None:
            raise errors.refusal(errors.BAD_OPTION)
        await act(
            locator,
            "select",
            lambda timeout: locator.select_option(value=match, timeout=timeout),
            budget,
        )
    elif kind == "range":
        await locator.evaluate(SET_RANGE_SCRIPT, as_text(value))
    else:
        try:
            await act(
                locator,
                "fill",
                lambda timeout: locator.fill(as_text(value), timeout=timeout),
                budget,
            )
        except PlaywrightError as exc:  # not something text goes into
            raise errors.refusal(errors.NOT_A_FORM_FIELD) from exc

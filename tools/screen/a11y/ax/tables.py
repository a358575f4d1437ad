"""macOS Accessibility roles in words: the role word and snapshot letter of each `AXRole`.

The letters: AXButton B; AXTextField, AXTextArea and AXSecureTextField T; AXLink L; AXCheckBox C;
AXRadioButton R; AXSlider S; AXMenuItem M; AXImage I; AXGroup G; every other role X. The words
are AT-SPI's names where the two APIs mean the same thing (`accessible.py`), so the rules about
which roles scroll their children or hold a value serve both; a role with no such name is
spelt out from its own (`AXDisclosureTriangle` → "disclosure triangle").

A secure text field (the role, or an `AXTextField` with that subrole) is a "password text": its
value is never read, shown or set.
"""

from __future__ import annotations

import re

__all__ = [
    "ATTRIBUTES",
    "SECURE",
    "ax_role",
    "is_secure",
    "reads_value",
]

SECURE = "AXSecureTextField"
# A window that is a dialog (an alert, a "Save changes?" question) says so in its subrole.
DIALOG_SUBROLES = frozenset({"AXDialog", "AXSystemDialog"})

# Every attribute read for an element in one call; AXValue is asked separately, and only for
# elements whose value is shown (never for a secure field).
ATTRIBUTES: tuple[str, ...] = (
    "AXRole",
    "AXSubrole",
    "AXTitle",
    "AXDescription",
    "AXEnabled",
    "AXFocused",
    "AXPosition",
    "AXSize",
    "AXChildren",
    "AXTitleUIElement",
    "AXMain",
    "AXMinimized",
    "AXExpanded",
    "AXSelected",
)

# AXRole → (role word, snapshot letter).
_ROLES: dict[str, tuple[str, str]] = {
    "AXButton": ("push button", "B"),
    # Pressed like buttons, as AT-SPI's "push button menu" and "combo box" are B too.
    "AXPopUpButton": ("push button menu", "B"),
    "AXMenuButton": ("push button menu", "B"),
    "AXComboBox": ("combo box", "B"),
    "AXTextField": ("text", "T"),
    "AXTextArea": ("text", "T"),
    SECURE: ("password text", "T"),
    "AXLink": ("link", "L"),
    "AXCheckBox": ("check box", "C"),
    "AXRadioButton": ("radio button", "R"),
    "AXSlider": ("slider", "S"),
    "AXMenuItem": ("menu item", "M"),
    "AXImage": ("image", "I"),
    "AXGroup": ("group", "G"),
    # Other roles are X; these take AT-SPI's word for the same thing.
    "AXStaticText": ("label", "X"),
    "AXWindow": ("window", "X"),
    "AXSheet": ("dialog", "X"),
    "AXScrollArea": ("scroll pane", "X"),
    "AXList": ("list", "X"),
    "AXTable": ("table", "X"),
    "AXOutline": ("tree", "X"),
    "AXBrowser": ("tree", "X"),
    "AXRow": ("table row", "X"),
    "AXCell": ("table cell", "X"),
    "AXMenu": ("menu", "X"),
    "AXMenuBar": ("menu bar", "X"),
    "AXToolbar": ("tool bar", "X"),
    "AXTabGroup": ("page tab list", "X"),
    "AXSplitGroup": ("split pane", "X"),
    "AXSplitter": ("separator", "X"),
    "AXScrollBar": ("scroll bar", "X"),
    "AXProgressIndicator": ("progress bar", "X"),
    "AXLevelIndicator": ("level bar", "X"),
    "AXIncrementor": ("spin button", "X"),
    "AXWebArea": ("document web", "X"),
    "AXHeading": ("heading", "X"),
    "AXApplication": ("application", "X"),
}

# Roles whose value is worth a snapshot's "= …": a field's text, a slider's position.
_VALUED = frozenset(
    {"AXTextField", "AXTextArea", "AXComboBox", "AXSlider", "AXIncrementor", "AXScrollBar",
     "AXProgressIndicator", "AXLevelIndicator", "AXStaticText", "AXCheckBox", "AXRadioButton"}
)  # fmt: skip


def is_secure(role: str, subrole: str | None = None) -> bool:
    """A password field: by its role, or a text field that says so in its subrole."""
    return role == SECURE or subrole == SECURE


def ax_role(role: str, subrole: str | None = None) -> tuple[str, str]:
    """The role word and snapshot letter of an element (`AXButton` → ("push button", "B"))."""
    if is_secure(role, subrole):
        return _ROLES[SECURE]
    if role == "AXWindow" and subrole in DIALOG_SUBROLES:
        return "dialog", "X"
    known = _ROLES.get(role)
    if known is not None:
        return known
    return _spelt_out(role), "X"


def reads_value(role: str, subrole: str | None = None) -> bool:
    """Whether the element's AXValue is read: a field's text, a slider's number, a checkbox's
    state, a static text's words; never a secure field's."""
    return not is_secure(role, subrole) and role in _VALUED


def _spelt_out(role: str) -> str:
    """`AXDisclosureTriangle` → "disclosure triangle"; "unknown" for what is not a role."""
    bare = role.removeprefix("AX")
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", bare)
    return " ".join(word.lower() for word in words) or "unknown"

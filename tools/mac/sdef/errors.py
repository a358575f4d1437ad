"""Errors of the scripting-dictionary tools, and the fixed phrases the model reads for them."""

from __future__ import annotations

from tools.failure import ToolFailure


class SdefError(ToolFailure):
    """Base of the sdef package's errors. `phrase` is what the model may read."""

    def __init__(self, phrase: str, *, detail: str = "") -> None:
        super().__init__(phrase)
        self.phrase = phrase
        self.detail = detail  # for logs only


class DictionaryRefused(SdefError):
    """The dictionary file is malformed, too large, or uses XML features refused for safety."""


class Refused(SdefError):
    """A call that does not fit the app's dictionary; the phrase says what exists instead."""


NOT_A_DICTIONARY = (
    "The app's scripting dictionary could not be read (it is malformed or uses refused XML "
    "features), so its commands are not available."
)
TOO_LARGE = (
    "The app's scripting dictionary is too large to read, so its commands are not available."
)
NO_DICTIONARY = "The app has no scripting dictionary Deskhand can read."
NO_SUCH_APP = "No scriptable app with that name was found. Call apps_list to see the names."

"""Text the Mac tools show: one-line quotes for summaries, clipped values, data as JSON."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

# Control, format, line/paragraph separators and surrogates: shown as escapes, never as-is.
_HIDDEN = ("Cc", "Cf", "Zl", "Zp", "Cs")


def quote(text: str, limit: int = 60) -> str:
    """Text for a one-line summary: shortened, invisible and control characters escaped."""
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    shown = "".join(
        f"\\u{ord(char):04x}" if unicodedata.category(char) in _HIDDEN else char for char in short
    )
    return "'" + shown.replace("'", "\\'") + "'"


def clip(text: object, limit: int) -> str:
    """A string value cut to `limit` characters with an ellipsis; anything else is empty."""
    value = text if isinstance(text, str) else ""
    return value if len(value) <= limit else value[: limit - 1] + "…"


def as_data(value: Any) -> str:
    """A result for the model as readable JSON (app content stays data)."""
    return json.dumps(value, ensure_ascii=False, indent=1)

"""The fixture dictionaries, parsed: a Finder-like one and a Mail-like one."""

from __future__ import annotations

from pathlib import Path

from tests.support.sdef.bundles import FIXTURES, INCLUDES
from tools.mac.sdef.model import Dictionary
from tools.mac.sdef.parse import parse_sdef_file


def finder(include_root: Path = INCLUDES) -> Dictionary:
    return parse_sdef_file(FIXTURES / "Finder.sdef", include_root=include_root)


def mail() -> Dictionary:
    return parse_sdef_file(FIXTURES / "Mail.sdef", include_root=INCLUDES)

"""Where a page's downloads land: a safe, unique file name in the Deskhand downloads folder."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["safe_filename", "unique_path"]

_UNSAFE_NAME = re.compile(r"[^\w.\- ()\[\]]+")


def safe_filename(suggested: str) -> str:
    """A page-chosen download name made safe to create: no separators, no leading dots, bounded."""
    name = Path(suggested.replace("\\", "/")).name
    name = _UNSAFE_NAME.sub("_", name).strip(" .")
    return (name or "download")[:120]


def unique_path(folder: Path, name: str) -> Path:
    candidate = folder / name
    stem, suffix = candidate.stem, candidate.suffix
    number = 1
    while candidate.exists():
        number += 1
        candidate = folder / f"{stem} ({number}){suffix}"
    return candidate

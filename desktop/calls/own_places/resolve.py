"""Which of Deskhand's own places a tool input names, however the path is spelled.

Every string of the input, at any depth (keys too), is read for paths: the whole string, and
each word of it (a shell command names its files among other words). Each is resolved the way
a tool would: `~` and environment variables, `file://` URLs and percent-encoding, `..`, symbolic
links, and relative paths against every folder the tool may use (an MCP server's allowed
directories as it reports them, its working directory). On macOS and Windows names are
compared without case, as their file systems do. A path that cannot be resolved (an unknown
variable, a wildcard, another user's `~`) but whose words name Deskhand's folders counts too.

Pure reading of the file system (`realpath`): callers run it off the event loop.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from desktop.calls.own_places.places import OWN_WORDS, SOCKET_PREFIX, Place, places, socket_folder
from tools.data import Data

# What separates the words of a command line or a sentence (`=` for --file=/path).
_SPLIT = re.compile(r"[\s\"'`;|&<>(),=\[\]]+")
_UNKNOWN = re.compile(r"\$|%[A-Za-z_][A-Za-z0-9_]*%")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_GLOB = re.compile(r"[*?\[]")
# Words past this many in one input are compared as written (`..` folded), without asking the
# file system about symlinks: a link into Deskhand's places could only be made by naming them.
FOLLOW_LINKS_FOR = 20_000
# Words in a name an unresolvable path may carry, and the place each one means.
_FILE_WORDS = {
    "api-key": "key file",
    "deskhand.db": "chat history",
    "settings.json": "settings",
    "mcp.json": "connector list",
    "mcp-sign-ins.json": "connector sign-ins",
}
# Tools whose action moves or deletes what a folder holds: naming a folder that *contains* an
# own place (the home folder) would take it away too.
_TAKES_AWAY = re.compile(r"move|rename|delete|remove|trash|rmdir|\brm\b|unlink", re.IGNORECASE)


class Touch(Data):
    """An own place an input names."""

    place: str  # "key file", "data folder"
    path: str  # the path as the input spelled it


def _folds() -> bool:
    return sys.platform in ("darwin", "win32")


def _norm(path: str) -> str:
    path = unicodedata.normalize("NFC", path)
    return path.casefold() if _folds() else path


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def words(text: str) -> Iterator[str]:
    """The whole string, then each word of it (and each part of a `a:b` list of paths), each
    also with its percent-encoding undone."""
    seen: set[str] = set()
    for piece in [text.strip(), *_SPLIT.split(text)]:
        parts = [piece, *piece.split(":")] if ":" in piece else [piece]
        for part in parts:
            for spelling in (part, unquote(part)):
                if spelling and spelling not in seen:
                    seen.add(spelling)
                    yield spelling


def expand(word: str, home: Path) -> str | None:
    """`word` as a file-system path the way a tool reads it, or None if it cannot be known
    (an unknown variable or user, another host's file URL, a wildcard)."""
    pattern = expand_pattern(word, home)
    return None if pattern is None or _GLOB.search(pattern) else pattern


def expand_pattern(word: str, home: Path) -> str | None:
    """`word` with `~`, variables and a file URL resolved, wildcards left as they are; None
    when part of it cannot be known."""
    if word.lower().startswith("file:"):
        parts = urlsplit(word)
        if parts.netloc not in ("", "localhost"):
            return None
        word = unquote(parts.path)
    if word.startswith("~"):
        head, _, rest = word.partition("/")
        if head == "~":
            word = str(home / rest) if rest else str(home)
        else:
            word = os.path.expanduser(word)
            if word.startswith("~"):
                return None  # another user's home that does not exist here
    word = os.path.expandvars(word)
    return None if _UNKNOWN.search(word) else word


def _spellings(word: str, bases: Iterable[Path], *, links: bool = True) -> Iterator[str]:
    """Where `word` may land: as written (`..` folded) and with symlinks followed, against
    each folder a relative path may be read from."""
    if os.path.isabs(word):
        candidates = [word]
    elif _URL.match(word):
        return  # a web address (file URLs were turned into paths before)
    else:
        candidates = [os.path.join(str(base), word) for base in bases]
        if not _pathlike(word):
            # A bare word ("seconds", a JSON key) names a file only where one is: otherwise a
            # tool working in one of Deskhand's folders would have every word refused.
            candidates = [c for c in candidates if os.path.lexists(c)]
    for candidate in candidates:
        lexical = os.path.normpath(candidate)
        yield lexical
        if links:
            yield os.path.realpath(lexical)


def _pathlike(word: str) -> bool:
    return os.sep in word or "/" in word or word in (".", "..")


def _words_name(word: str) -> str | None:
    """The place an unresolvable path's words name, if they name one of Deskhand's."""
    parts = [part.casefold() for part in re.split(r"[/\\]+", word) if part]
    if not any(p in OWN_WORDS or p.startswith(SOCKET_PREFIX) for p in parts):
        return None
    return next((_FILE_WORDS[p] for p in reversed(parts) if p in _FILE_WORDS), "data folder")


def _each(parts: tuple[str, ...], patterns: tuple[str, ...]) -> bool:
    return all(fnmatch.fnmatchcase(part, want) for part, want in zip(parts, patterns, strict=True))


def _unresolved(word: str, bases: list[Path], index: PlaceIndex, home: Path) -> str | None:
    """The place a path that cannot be resolved names: by its wildcards, or by its words."""
    pattern = expand_pattern(word, home)
    if pattern is not None:  # wildcards only: compared with every place, as a shell would
        heads = [pattern] if os.path.isabs(pattern) else [str(b / pattern) for b in bases]
        for head in heads:
            place = index.matched_by(head)
            if place is not None:
                return place.name
    return _words_name(word)


class PlaceIndex:
    """The own places, each in every spelling it has on disk (as given, symlinks followed)."""

    def __init__(self, found: list[Place] | None = None) -> None:
        self.places: list[tuple[str, Place]] = []
        for place in found if found is not None else places():
            spellings = {str(place.path), os.path.realpath(place.path)}
            self.places += [(_norm(spelling), place) for spelling in spellings]

    def place_of(self, path: str) -> Place | None:
        normal = _norm(path)
        for spelling, place in self.places:
            if _inside(normal, spelling) if place.folder else normal == spelling:
                return place
        if socket_folder(Path(path)):
            return Place(path=Path(path), name="socket folder")
        return None

    def matched_by(self, pattern: str) -> Place | None:
        """The place a wildcard pattern names, matched part by part as a shell does: a file
        it matches, or a folder its leading parts match (it names something inside). With
        `**` (any depth), the whole path is matched at once."""
        wanted = Path(_norm(os.path.normpath(pattern))).parts
        deep = "**" in wanted
        for spelling, place in self.places:
            parts = Path(spelling).parts
            if deep:
                hit = fnmatch.fnmatchcase(spelling, str(Path(*wanted))) or (
                    place.folder
                    and fnmatch.fnmatchcase(spelling + os.sep + "x", str(Path(*wanted)))
                )
            elif place.folder:
                hit = len(wanted) >= len(parts) and _each(parts, wanted[: len(parts)])
            else:
                hit = len(wanted) == len(parts) and _each(parts, wanted)
            if hit:
                return place
        return None

    def holds_one(self, path: str) -> bool:
        """Whether `path` is a folder that holds an own place (moving it moves them too)."""
        normal = _norm(path).rstrip(os.sep) or os.sep
        return any(_inside(spelling, normal) and spelling != normal for spelling, _ in self.places)


def touches(
    value: Any,
    bases: Iterable[Path],
    *,
    action: str = "",
    index: PlaceIndex | None = None,
    home: Path | None = None,
) -> list[Touch]:
    """Every own place `value` names, with the spelling that named it."""
    index = index or PlaceIndex()
    home = home or Path.home()
    folders = list(dict.fromkeys(bases))
    takes_away = bool(_TAKES_AWAY.search(action))
    found: dict[str, Touch] = {}
    count = 0
    for text in strings(value):
        for word in words(text):
            count += 1
            expanded = expand(word, home)
            if expanded is None:
                named = _unresolved(word, folders, index, home)
                if named is not None:
                    found.setdefault(named, Touch(place=named, path=word))
                continue
            for spelling in _spellings(expanded, folders, links=count <= FOLLOW_LINKS_FOR):
                place = index.place_of(spelling)
                if place is not None:
                    found.setdefault(place.name, Touch(place=place.name, path=word))
                    break
                if takes_away and index.holds_one(spelling):
                    found.setdefault("data folder", Touch(place="data folder", path=word))
                    break
    return list(found.values())

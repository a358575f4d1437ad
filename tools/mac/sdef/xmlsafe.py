"""Reading dictionary XML safely, and resolving its `xi:include`s from the system folder only.

`defusedxml` refuses every entity declaration (billion laughs, external entities) and never
loads a DTD; real dictionaries name the sdef DTD in their DOCTYPE, which is allowed and ignored.
Files and element counts are capped. An include is read only from the system's scripting
definitions folder (`/System/Library/ScriptingDefinitions/`, replaceable in tests), through an
`xpointer(...)` expression when it has one; an include that cannot be read is left out and
named in `skipped`, so the rest of the dictionary still works.
"""

from __future__ import annotations

import copy
import logging
import os
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as safe_et
from defusedxml import DefusedXmlException

from tools.mac.sdef.errors import NOT_A_DICTIONARY, TOO_LARGE, DictionaryRefused

log = logging.getLogger(__name__)

SYSTEM_INCLUDES = PurePosixPath("/System/Library/ScriptingDefinitions")
MAX_BYTES = 8 * 1024 * 1024  # the largest real dictionaries are around 1 MB
MAX_ELEMENTS = 200_000
MAX_INCLUDES = 32  # per dictionary, nested ones included
MAX_DEPTH = 3  # an included file may include another, that far
XINCLUDE = "{http://www.w3.org/2003/XInclude}include"


def parse_xml(data: bytes) -> Element:
    """The root element of `data`, or DictionaryRefused."""
    if len(data) > MAX_BYTES:
        raise DictionaryRefused(TOO_LARGE, detail=f"{len(data)} bytes")
    try:
        root = safe_et.fromstring(
            data, forbid_dtd=False, forbid_entities=True, forbid_external=True
        )
    except (DefusedXmlException, ParseError, ValueError) as exc:
        raise DictionaryRefused(NOT_A_DICTIONARY, detail=repr(exc)[:500]) from exc
    count = 0
    for _ in root.iter():
        count += 1
        if count > MAX_ELEMENTS:
            raise DictionaryRefused(TOO_LARGE, detail="too many elements")
    return root


def read_xml_file(path: Path) -> Element:
    """Parse a file, refusing it before reading when it is too large."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except OSError as exc:
        raise DictionaryRefused(NOT_A_DICTIONARY, detail=repr(exc)) from exc
    return parse_xml(data)


class Includes:
    """Resolves the `xi:include`s of one dictionary; remembers what it had to skip."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else Path(SYSTEM_INCLUDES)
        self.skipped: list[str] = []
        self._used = 0

    def resolve(self, tree: Element, depth: int = 0) -> None:
        """Replace every include in `tree` by what it selects (or by nothing)."""
        spots = [
            (parent, child)
            for parent in tree.iter()
            for child in list(parent)
            if child.tag == XINCLUDE
        ]
        for parent, include in spots:
            index = list(parent).index(include)
            parent.remove(include)
            for offset, node in enumerate(self._load(include, depth)):
                parent.insert(index + offset, node)

    def _skip(self, href: str, why: str) -> list[Element]:
        name = PurePosixPath(urlsplit(href).path).name or href[:80]
        if name not in self.skipped:
            self.skipped.append(name)
        log.info("skipped dictionary include %s: %s", name, why)
        return []

    def _load(self, include: Element, depth: int) -> list[Element]:
        href = include.get("href", "")
        self._used += 1
        if depth >= MAX_DEPTH or self._used > MAX_INCLUDES:
            return self._skip(href, "too many includes")
        path = self._local_path(href)
        if path is None:
            return self._skip(href, "outside the system's scripting definitions")
        if not path.is_file():
            return self._skip(href, "not found")
        try:
            document = read_xml_file(path)
        except DictionaryRefused as exc:
            return self._skip(href, exc.detail)
        self.resolve(document, depth + 1)
        selected = self._select(document, include.get("xpointer"))
        if selected is None:
            return self._skip(href, "unsupported xpointer")
        return [copy.deepcopy(node) for node in selected]

    def _local_path(self, href: str) -> Path | None:
        """The file an href names, only when it lies in the system includes folder."""
        parts = urlsplit(href)
        if parts.scheme not in ("", "file") or parts.netloc not in ("", "localhost"):
            return None
        wanted = PurePosixPath(unquote(parts.path))
        if not wanted.is_absolute() or ".." in wanted.parts:
            return None
        try:
            inside = wanted.relative_to(SYSTEM_INCLUDES)
        except ValueError:
            return None
        if not inside.parts:
            return None
        path = self.root.joinpath(*inside.parts)
        try:
            real = path.resolve()
            if not real.is_relative_to(self.root.resolve()):
                return None  # a symbolic link out of the folder
        except (OSError, RuntimeError):
            return None
        return real if os.path.exists(real) else path

    @staticmethod
    def _select(document: Element, pointer: str | None) -> list[Element] | None:
        """The elements an xpointer selects; the whole document's content without one."""
        if not pointer:
            return list(document) if document.tag == "dictionary" else [document]
        text = pointer.strip()
        if not (text.startswith("xpointer(") and text.endswith(")")):
            return None  # element() and other schemes are not used by real dictionaries
        import elementpath  # only a dictionary that includes part of another needs XPath

        try:
            # XPath 1.0, as the xpointer() scheme defines: no doc() or other functions that
            # would read files or URLs.
            found = elementpath.select(
                document, text[len("xpointer(") : -1], parser=elementpath.XPath1Parser
            )
        except (elementpath.ElementPathError, ValueError, TypeError) as exc:
            log.info("xpointer %r failed: %s", text[:200], exc)
            return None
        items = found if isinstance(found, list) else [found]
        return [item for item in items if isinstance(item, Element)]

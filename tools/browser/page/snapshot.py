"""Playwright's AI aria snapshot, parsed into a tree the driver can filter and render.

`page.aria_snapshot(mode="ai", boxes=True)` returns YAML-like text, one element per
line (`- button "Sign in" [ref=e14] [box=8,166,57,21]`), iframes inlined with `f1e2`
style refs. This module reads that text into `AriaNode`s and nothing more: no Playwright
import, so it is tested on strings.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = [
    "AriaNode",
    "Box",
    "ControlScan",
    "parse_snapshot",
    "release",
]

_LINE = re.compile(r"^( *)- (.*)$")
_ROLE = re.compile(r"[A-Za-z]+")
_ATTR = re.compile(r"\[([A-Za-z-]+)(?:=([^\]]*))?\]")
# The usual key in one match: role, optional JSON-quoted name, bracketed attributes.
_KEY = re.compile(r'([A-Za-z]+)(?: ("(?:[^"\\]|\\.)*"))?((?: \[[^\]]*\])*)')
DEPTH_LIMIT = 1000  # levels of a snapshot read by ControlScan
_YAML_ESCAPES = {"\\": "\\", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


@dataclass(frozen=True)
class Box:
    """An element's bounding box in CSS pixels, relative to its frame's viewport."""

    x: int
    y: int
    width: int
    height: int

    @property
    def empty(self) -> bool:
        return self.width <= 0 or self.height <= 0

    def shifted(self, dx: int, dy: int) -> Box:
        return Box(self.x + dx, self.y + dy, self.width, self.height)

    def intersects(self, width: int, height: int) -> bool:
        """Whether any of it lies inside a viewport of `width` × `height`."""
        return (
            self.x < width
            and self.y < height
            and self.x + self.width > 0
            and self.y + self.height > 0
        )


@dataclass(eq=False, slots=True)
class AriaNode:
    """One line of the snapshot: an element (role, name, state flags, ref) or a text run."""

    role: str
    name: str = ""
    flags: list[str] = field(default_factory=list)  # "checked", "level=2", "disabled", ...
    pw_ref: str | None = None  # Playwright's ref ("e14", "f1e2"), resolved with aria-ref=
    box: Box | None = None
    pointer: bool = False  # the element shows a pointer cursor: clickable whatever its role
    focused: bool = False
    text: str | None = None  # inline text value (a textbox's value, a text run)
    props: dict[str, str] = field(default_factory=dict)  # "url", "placeholder"
    children: list[AriaNode] = field(default_factory=list)
    parent: AriaNode | None = field(default=None, repr=False)

    @property
    def is_text(self) -> bool:
        return self.role == "text"

    @property
    def in_frame(self) -> bool:
        """Whether the element lives inside an iframe (its ref carries a frame prefix)."""
        return self.pw_ref is not None and self.pw_ref.startswith("f")

    def walk(self) -> Iterator[AriaNode]:
        """This node and every descendant, in document order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def ancestors(self) -> Iterator[AriaNode]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def all_text(self, limit: int = 200) -> str:
        """Names and text of this subtree, space-joined, cut at `limit` characters."""
        parts: list[str] = []
        size = 0
        for node in self.walk():
            piece = node.text if node.is_text else node.name or node.text
            if piece:
                parts.append(piece)
                size += len(piece) + 1
                if size > limit:
                    break
        return " ".join(" ".join(parts).split())[:limit]


def _decode_value(raw: str) -> str:
    """A YAML scalar as Playwright writes it: bare, or double-quoted with JSON-like escapes plus \\xHH."""
    if len(raw) < 2 or not (raw.startswith('"') and raw.endswith('"')):
        return raw
    out: list[str] = []
    body = raw[1:-1]
    index = 0
    while index < len(body):
        ch = body[index]
        if ch == "\\" and index + 1 < len(body):
            nxt = body[index + 1]
            if nxt == "x" and index + 3 < len(body):
                out.append(chr(int(body[index + 2 : index + 4], 16)))
                index += 4
                continue
            if nxt == "u" and index + 5 < len(body):
                out.append(chr(int(body[index + 2 : index + 6], 16)))
                index += 6
                continue
            out.append(_YAML_ESCAPES.get(nxt, nxt))
            index += 2
            continue
        out.append(ch)
        index += 1
    return "".join(out)


def _split_line(body: str) -> tuple[str, str | None, bool]:
    """`(key, value, has_children)` of one line's body after `- `."""
    if body.startswith("'"):
        index = 1
        while index < len(body):
            if body[index] == "'":
                if body[index + 1 : index + 2] == "'":
                    index += 2
                    continue
                break
            index += 1
        key = body[1:index].replace("''", "'")
        rest = body[index + 1 :]
    else:
        cut = body.find(": ")
        if cut >= 0:
            key, rest = body[:cut], body[cut:]
        elif body.endswith(":"):
            key, rest = body[:-1], ":"
        else:
            key, rest = body, ""
    if rest.startswith(": "):
        return key, _decode_value(rest[2:]), False
    return key, None, rest == ":"


def _read_name(key: str, start: int) -> tuple[str, int]:
    """The JSON-quoted accessible name starting at `start`, and where it ends."""
    if key[start : start + 1] != '"':
        return "", start
    index = start + 1
    while index < len(key):
        if key[index] == "\\":
            index += 2
            continue
        if key[index] == '"':
            try:
                return str(json.loads(key[start : index + 1])), index + 1
            except ValueError:
                return key[start + 1 : index], index + 1
        index += 1
    return key[start + 1 :], len(key)


def _element(key: str, value: str | None) -> AriaNode:
    quick = _KEY.fullmatch(key)
    if quick is not None:
        # A snapshot of a big page has tens of thousands of lines: this path avoids the scanner.
        role, quoted, attributes = quick.groups()
        if quoted is None:
            name = ""
        elif "\\" in quoted:
            name, _end = _read_name(quoted, 0)
        else:
            name = quoted[1:-1]
        node = AriaNode(role=role, name=name, text=value)
        _apply_attributes(node, _ATTR.findall(attributes))
        return node
    role_match = _ROLE.match(key)
    role = role_match.group(0) if role_match else "generic"
    position = role_match.end() if role_match else 0
    while key[position : position + 1] == " ":
        position += 1
    name, position = _read_name(key, position)
    node = AriaNode(role=role, name=name, text=value)
    _apply_attributes(node, _ATTR.findall(key, position))
    return node


def _apply_attributes(node: AriaNode, attributes: list[tuple[str, str]]) -> None:
    for label, setting in attributes:
        if label == "ref" and setting:
            node.pw_ref = setting
        elif label == "box" and setting:
            try:
                x, y, width, height = (int(float(v)) for v in setting.split(","))
            except ValueError:
                continue
            node.box = Box(x, y, width, height)
        elif label == "cursor":
            node.pointer = setting == "pointer"
        elif label == "active":
            node.focused = True
        else:
            node.flags.append(f"{label}={setting}" if setting else label)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block (refcounting still frees as usual).

    Tens of thousands of small nodes trigger the collector over and over, which alone doubles
    the parse time of a big page, and each full pass walks the whole heap; nothing here is
    garbage until the tree is dropped."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def release(root: AriaNode) -> None:
    """Cut the links of a tree no longer needed, so refcounting frees it at once (a node and
    its parent refer to each other, which only the cyclic collector could otherwise undo)."""
    for node in list(root.walk()):
        node.parent = None
        node.children = []


def parse_snapshot(text: str) -> AriaNode:
    """The snapshot as a tree under a synthetic `document` root."""
    with _collector_paused():
        return _parse(text)


def _parse(text: str) -> AriaNode:
    root = AriaNode(role="document")
    stack: list[tuple[int, AriaNode]] = [(-1, root)]
    for line in text.splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        level = len(match.group(1)) // 2
        key, value, _has_children = _split_line(match.group(2))
        while stack[-1][0] >= level:
            stack.pop()
        parent = stack[-1][1]
        if key.startswith("/"):
            parent.props[key[1:]] = value or ""
            continue
        if key == "text":
            node = AriaNode(role="text", text=value or "")
        else:
            node = _element(key, value)
        node.parent = parent
        parent.children.append(node)
        stack.append((level, node))
    return root


class ControlScan:
    """The controls of a snapshot, built lazily in page order, straight from its text.

    For the interactive view of a big page: a 2,000-row table is tens of thousands of lines, and
    only a line with a ref and one of `roles` (or a pointer cursor) can be a control. One regular
    expression finds those lines (the rest is never looked at from Python); a kept element's
    own lines come with it: its props, its value written as text under them, a select's options.
    Nodes are built only as they are taken: a reader that stops at its output cap counts the
    rest from their lines (`count_rest`) without building them.
    """

    def __init__(
        self, text: str, keep: Callable[[AriaNode], bool], depth: int, *, roles: frozenset[str]
    ) -> None:
        # Each candidate is found by the newline before it, which the regex engine seeks far
        # faster than a multiline `^`; the leading newline gives the first line one too.
        self._text = "\n" + text
        self._keep = keep
        # No page nests a thousand levels; the bound keeps the counting pattern's repeat in range.
        self._depth = min(depth, DEPTH_LIMIT)
        self._roles = roles
        self._matches = _candidates(roles).finditer(self._text)
        self._current: AriaNode | None = None  # the last kept node, still taking its lines
        self._indent = -1
        self._zone = 0  # where the lines still to read under `_current` start

    def take(self, limit: int) -> list[AriaNode]:
        """Up to `limit` more controls, each complete (flat: no parent)."""
        nodes: list[AriaNode] = []
        with _collector_paused():
            while len(nodes) < limit and (node := self._next()) is not None:
                nodes.append(node)
        return nodes

    def count_rest(self, skip: frozenset[str] = frozenset()) -> int:
        """How many controls are left, except those with a role in `skip`, read from their
        lines alone: nothing more is built, and nothing is left to take after."""
        rest = 1 if self._current is not None and self._current.role not in skip else 0
        self._current = None
        position = next(self._matches, None)  # the rest is counted from where the scan stands
        if position is None or self._depth <= 0:
            return rest
        counting = _countable(self._roles - skip, skip, self._depth)
        rest += len(counting.findall(self._text, position.start()))
        self._matches = iter(())
        return rest

    def _next(self) -> AriaNode | None:
        """The next kept node once its own lines are attached; None at the end of the text."""
        text = self._text
        for match in self._matches:
            done: AriaNode | None = None
            indent = len(match.group(1))
            if self._current is not None:
                ended = _attach_lines(text, self._current, self._indent, self._zone, match.start())
                if ended or indent <= self._indent:
                    done, self._current, self._indent = self._current, None, -1
            self._zone = match.end()
            if indent // 2 + 1 <= self._depth:
                key, value, _children = _split_line(match.group(2))
                node = _element(key, value)
                if self._keep(node):
                    # A later control ends what the one before it takes (as nested ones do).
                    done = done or self._current
                    self._current, self._indent = node, indent
            if done is not None:
                return done
        done, self._current = self._current, None
        if done is not None:
            _attach_lines(text, done, self._indent, self._zone, len(text))
        return done


@lru_cache(maxsize=8)
def _candidates(roles: frozenset[str]) -> re.Pattern[str]:
    """Lines that can hold a control: with a ref, and one of `roles` or a pointer cursor."""
    return re.compile(rf"\n( *)- ({_CONTROL_LINE.format(names=_alternatives(roles))}[^\n]*)")


@lru_cache(maxsize=8)
def _countable(roles: frozenset[str], skip: frozenset[str], depth: int) -> re.Pattern[str]:
    """The candidate lines no deeper than `depth` whose role is not in `skip` (nor text)."""
    not_skipped = rf"(?!'?(?:{_alternatives(skip | {'text'})})(?![A-Za-z]))"
    line = _CONTROL_LINE.format(names=_alternatives(roles))
    return re.compile(rf"\n {{0,{2 * (depth - 1)}}}- {not_skipped}(?:{line})")


# A line's body after `- `: a role of `names`, or any element with a pointer cursor; a ref either way.
_CONTROL_LINE = (
    r"(?:'?(?:{names})(?![A-Za-z])(?=[^\n]*\[ref=)"
    r"|(?='?[A-Za-z])(?=[^\n]*\[cursor=pointer\])(?=[^\n]*\[ref=))"
)


def _alternatives(names: frozenset[str]) -> str:
    return "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))


def _attach_lines(text: str, node: AriaNode, indent: int, start: int, stop: int) -> bool:
    """Give `node` the lines right under it (props, text, options: no ref) found in
    `text[start:stop]`; True once a line shows that its block has ended."""
    position = start
    while position < stop:
        end = text.find("\n", position, stop)
        end = stop if end < 0 else end
        line = text[position:end]
        position = end + 1
        stripped = line.lstrip(" ")
        if not stripped.startswith("- "):
            continue
        level = len(line) - len(stripped)
        if level <= indent:
            return True
        if level != indent + 2 or "[ref=" in stripped:
            continue
        key, value, _children = _split_line(stripped[2:])
        if key.startswith("/"):
            node.props[key[1:]] = value or ""
        elif key == "text":
            node.children.append(AriaNode(role="text", text=value or "", parent=node))
        else:
            node.children.append(replace_parent(_element(key, value), node))
    return False


def replace_parent(node: AriaNode, parent: AriaNode) -> AriaNode:
    node.parent = parent
    return node

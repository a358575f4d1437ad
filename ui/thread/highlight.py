"""Syntax highlighting of code blocks with Pygments, without slowing a streaming reply.

Only settled code (text that will not change any more) is highlighted, and never inside a
frame: `HighlightQueue` lexes and colours about a millisecond's worth per turn of the event
loop, line by line, and looks lexers up on a thread (the first lookup of a language imports
its module). The tokens are kept as spans, so a change of theme only recolours them. Colours
go on the document's layout as extra formats (as `QSyntaxHighlighter` does), so the text,
its selection and what Copy takes stay exactly the plain code. Pygments itself is imported
with the first code block, not with the window.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Protocol, cast

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextDocument, QTextLayout

if TYPE_CHECKING:
    from pygments.lexer import Lexer
    from pygments.style import StyleMeta
    from pygments.token import _TokenType

_LOADING = object()
BUDGET_S = 0.0015  # work per turn of the event loop: a frame (10 ms) waits at most this long
CHECK_EVERY = 16  # tokens or lines between looks at the clock
MAX_CHARS = 60_000  # longer code stays plain: colouring it is not worth the wait


@dataclass(frozen=True)
class Span:
    start: int
    length: int
    token: _TokenType


class Highlightable(Protocol):
    """What the queue needs from a code view."""

    def code_text(self) -> str: ...

    def code_language(self) -> str: ...

    def code_document(self) -> QTextDocument: ...

    def set_spans(self, spans: list[Span], style: str) -> None:
        """The code is coloured: `spans` in the Pygments `style`."""


@cache
def _style(name: str) -> StyleMeta:
    from pygments.styles import get_style_by_name

    return get_style_by_name(name)


@cache
def _format(style_name: str, token: _TokenType) -> QTextCharFormat | None:
    """The character format of `token` in a Pygments style (None: the text's own colour)."""
    style = _style(style_name).style_for_token(token)
    if not (style["color"] or style["italic"] or style["bold"]):
        return None
    char = QTextCharFormat()
    if style["color"]:
        char.setForeground(QColor(f"#{style['color']}"))
    if style["italic"]:
        char.setFontItalic(True)
    if style["bold"]:
        char.setFontWeight(QFont.Weight.DemiBold)
    return char


def colour_lines(document: QTextDocument, spans: list[Span], style_name: str) -> Iterator[None]:
    """Colour `document` (plain code) with `spans` in a Pygments style, a line per step; the
    colours show once the last step is done."""
    block = document.firstBlock()
    pending = iter(spans)
    span = next(pending, None)
    while block.isValid():
        start, end = block.position(), block.position() + block.length()
        ranges = []
        while span is not None and span.start < end:
            char = _format(style_name, span.token)
            if char is not None and span.start + span.length > start:
                piece_start = max(span.start, start)
                piece = QTextLayout.FormatRange()
                piece.start = piece_start - start
                piece.length = min(span.start + span.length, end) - piece_start
                piece.format = char
                ranges.append(piece)
            if span.start + span.length > end:
                break  # the span goes on into the next line
            span = next(pending, None)
        layout = block.layout()
        if ranges or layout.formats():
            layout.setFormats(ranges)
        block = block.next()
        yield
    document.markContentsDirty(0, document.characterCount())


def apply_spans(document: QTextDocument, spans: list[Span], style_name: str) -> None:
    """Colour `document` at once (a change of theme)."""
    for _step in colour_lines(document, spans, style_name):
        pass


@dataclass
class _Job:
    view: Highlightable
    style: str
    tokens: Iterator[tuple[int, _TokenType, str]] | None = None
    spans: list[Span] | None = None
    colouring: Iterator[None] | None = None


class HighlightQueue(QObject):
    """Settled code views waiting for colour, worked through between frames."""

    _loaded_signal = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: deque[_Job] = deque()
        self._ready: dict[str, object] = {}  # "lexer:python", "style:default": made, or None
        self._loading: set[str] = set()
        self._lock = threading.Lock()
        self._tick = QTimer(self)
        self._tick.setInterval(0)
        self._tick.timeout.connect(self._work)
        self._loaded_signal.connect(self._resume)  # queued: it is emitted on the loading thread

    def add(self, view: Highlightable, style: str) -> None:
        """Colour `view` in the Pygments `style` when the loop has a moment."""
        language = view.code_language().strip().lower()
        if not language or len(view.code_text()) > MAX_CHARS:
            return
        self._jobs.append(_Job(view, style))
        self._tick.start()

    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    @Slot(str)
    def _resume(self, _what: str) -> None:
        if self._jobs:
            self._tick.start()

    def _loaded(self, key: str) -> object:
        """What `_load` made for `key` (None if there is no such thing), or `_LOADING`."""
        with self._lock:
            if key in self._ready:
                return self._ready[key]
            if key not in self._loading:
                self._loading.add(key)
                threading.Thread(target=self._load, args=(key,), daemon=True).start()
        return _LOADING

    def _load(self, key: str) -> None:
        """On a thread: the first use of a lexer or a style imports its module (tens of ms)."""
        from pygments.util import ClassNotFound

        kind, _, name = key.partition(":")
        made: object
        try:
            if kind == "lexer":
                from pygments.lexers import get_lexer_by_name

                made = get_lexer_by_name(name, stripnl=False, ensurenl=False)
            else:
                made = _style(name)
        except ClassNotFound:
            made = None
        with self._lock:
            self._ready[key] = made
            self._loading.discard(key)
        self._loaded_signal.emit(key)

    def _work(self) -> None:
        deadline = time.perf_counter() + BUDGET_S
        waiting = 0
        while self._jobs and time.perf_counter() < deadline and waiting < len(self._jobs):
            job = self._jobs[0]
            if not shiboken6.isValid(job.view):
                self._jobs.popleft()
                continue
            if job.tokens is None:
                lexer = self._loaded(f"lexer:{job.view.code_language().strip().lower()}")
                style = self._loaded(f"style:{job.style}")
                if lexer is _LOADING or style is _LOADING:  # try the others meanwhile
                    self._jobs.rotate(-1)
                    waiting += 1
                    continue
                if lexer is None or style is None:  # a language Pygments does not know
                    self._jobs.popleft()
                    continue
                job.tokens = cast("Lexer", lexer).get_tokens_unprocessed(job.view.code_text())
                job.spans = []
            if job.colouring is None:
                if not _lex(job, deadline):
                    break
                job.colouring = colour_lines(job.view.code_document(), job.spans or [], job.style)
            if _step(job.colouring, deadline):
                self._jobs.popleft()
                job.view.set_spans(job.spans or [], job.style)
        if not self._jobs or waiting >= len(self._jobs):
            self._tick.stop()  # idle until a lexer arrives or a block is added


def _lex(job: _Job, deadline: float) -> bool:
    """Pull tokens until the deadline; True when the code is done."""
    assert job.tokens is not None and job.spans is not None
    count = 0
    for start, token, value in job.tokens:
        if value:
            job.spans.append(Span(start, len(value), token))
        count += 1
        if count % CHECK_EVERY == 0 and time.perf_counter() >= deadline:
            return False
    return True


def _step(steps: Iterator[None], deadline: float) -> bool:
    """Take steps until the deadline; True when there are none left."""
    count = 0
    for _step in steps:
        count += 1
        if count % CHECK_EVERY == 0 and time.perf_counter() >= deadline:
            return False
    return True


_queue: HighlightQueue | None = None


def queue() -> HighlightQueue:
    """The application's highlighting queue."""
    global _queue
    if _queue is None or not shiboken6.isValid(_queue):
        _queue = HighlightQueue()
    return _queue

"""Syntax highlighting of code blocks with Pygments, without slowing a streaming reply.

Only settled code (text that will not change any more) is highlighted, and never inside a
frame: `HighlightQueue` lexes a few milliseconds' worth of tokens per turn of the event
loop, and looks lexers up on a thread (the first lookup of a language imports its module).
The tokens are kept as spans, so a change of theme only recolours them. Colours go on the
document's layout as extra formats (as `QSyntaxHighlighter` does), so the text and its
selection and copying stay exactly the plain code.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Protocol

import shiboken6
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.style import StyleMeta
from pygments.styles import get_style_by_name
from pygments.token import _TokenType
from pygments.util import ClassNotFound
from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextDocument, QTextLayout

BUDGET_S = 0.003  # lexing per turn of the event loop: well inside one 10 ms frame
CHECK_EVERY = 32  # tokens between looks at the clock
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

    def set_spans(self, spans: list[Span]) -> None: ...


@cache
def _style(name: str) -> StyleMeta:
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


def apply_spans(document: QTextDocument, spans: list[Span], style_name: str) -> None:
    """Colour `document` (plain code) with `spans` in a Pygments style."""
    blocks = document.firstBlock()
    pending = iter(spans)
    span = next(pending, None)
    while blocks.isValid():
        start, end = blocks.position(), blocks.position() + blocks.length()
        ranges = []
        while span is not None and span.start < end:
            char = _format(style_name, span.token)
            if char is not None and span.start + span.length > start:
                ranges_start = max(span.start, start)
                piece = QTextLayout.FormatRange()
                piece.start = ranges_start - start
                piece.length = min(span.start + span.length, end) - ranges_start
                piece.format = char
                ranges.append(piece)
            if span.start + span.length > end:
                break  # the span goes on into the next line
            span = next(pending, None)
        layout = blocks.layout()
        if ranges or layout.formats():
            layout.setFormats(ranges)
        blocks = blocks.next()
    document.markContentsDirty(0, document.characterCount())


@dataclass
class _Job:
    view: Highlightable
    tokens: Iterator[tuple[int, _TokenType, str]] | None = None
    spans: list[Span] | None = None


class HighlightQueue(QObject):
    """Settled code views waiting for colour, worked through between frames."""

    _lexer_ready = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: deque[_Job] = deque()
        self._lexers: dict[str, Lexer | None] = {}
        self._looking_up: set[str] = set()
        self._lock = threading.Lock()
        self._tick = QTimer(self)
        self._tick.setInterval(0)
        self._tick.timeout.connect(self._work)
        self._lexer_ready.connect(self._resume)  # queued: it is emitted on the lookup thread

    def add(self, view: Highlightable) -> None:
        language = view.code_language().strip().lower()
        if not language or len(view.code_text()) > MAX_CHARS:
            return
        self._jobs.append(_Job(view))
        self._tick.start()

    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    @Slot(str)
    def _resume(self, _language: str) -> None:
        if self._jobs:
            self._tick.start()

    def _lexer(self, language: str) -> Lexer | bool | None:
        """The lexer, None for a language Pygments does not know, False while looking it up."""
        with self._lock:
            if language in self._lexers:
                return self._lexers[language]
            if language not in self._looking_up:
                self._looking_up.add(language)
                threading.Thread(target=self._look_up, args=(language,), daemon=True).start()
        return False

    def _look_up(self, language: str) -> None:
        try:
            lexer: Lexer | None = get_lexer_by_name(language, stripnl=False, ensurenl=False)
        except ClassNotFound:
            lexer = None
        with self._lock:
            self._lexers[language] = lexer
            self._looking_up.discard(language)
        self._lexer_ready.emit(language)

    def _work(self) -> None:
        deadline = time.perf_counter() + BUDGET_S
        waiting = 0
        while self._jobs and time.perf_counter() < deadline and waiting < len(self._jobs):
            job = self._jobs[0]
            if not shiboken6.isValid(job.view):
                self._jobs.popleft()
                continue
            if job.tokens is None:
                lexer = self._lexer(job.view.code_language().strip().lower())
                if lexer is False:  # still loading: try the others meanwhile
                    self._jobs.rotate(-1)
                    waiting += 1
                    continue
                if lexer is None:
                    self._jobs.popleft()
                    continue
                assert isinstance(lexer, Lexer)
                job.tokens = lexer.get_tokens_unprocessed(job.view.code_text())
                job.spans = []
            if self._lex(job, deadline):
                self._jobs.popleft()
                job.view.set_spans(job.spans or [])
        if not self._jobs or waiting >= len(self._jobs):
            self._tick.stop()  # idle until a lexer arrives or a block is added

    @staticmethod
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


_queue: HighlightQueue | None = None


def queue() -> HighlightQueue:
    """The application's highlighting queue."""
    global _queue
    if _queue is None or not shiboken6.isValid(_queue):
        _queue = HighlightQueue()
    return _queue

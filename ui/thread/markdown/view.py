"""Replies as Markdown in Qt rich text, rendered so that streaming stays cheap.

`MarkdownView` shows a reply with one widget per block from `ui.thread.markdown.blocks`; while a
reply streams, the text before the last settled point (`SettledSplitter`) is rendered
once and only the short unsettled tail is re-rendered on each frame. Its widgets keep
their size hints constant (`ui.thread.labels`), so Qt never re-measures text that did not change.
"""

from __future__ import annotations

import html
from functools import cache

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFont, QFontDatabase, QGuiApplication, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui import theme
from ui.boxes import STRETCH, boxed
from ui.thread import highlight
from ui.thread.labels import DEFAULT_POINT_SIZE, StableHints, reserve_space_while_hidden
from ui.thread.markdown.blocks import (
    CSS_COLOURS,
    Block,
    SettledSplitter,
    render_blocks,
    style_for,
)
from ui.thread.markdown.links import COPY_SCHEME, SAFE_LINK_SCHEMES
from ui.thread.rich_text import RichTextView

BLOCK_SPACING = 10


def monospace_family() -> str:
    """The platform's fixed-width family (Menlo, Consolas, DejaVu Sans Mono...)."""
    if QGuiApplication.instance() is None:
        return "monospace"  # fonts are unknown before the app exists; do not cache that
    return _system_monospace()


@cache
def _system_monospace() -> str:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()


def style_sheet(base_pt: float) -> str:
    """The CSS for prose at `base_pt` in the current theme: set once per document, not sent
    with every block."""
    return style_for(base_pt, monospace_family(), _css_colours(theme.current()))


@cache
def _css_colours(palette: theme.Palette) -> tuple[tuple[str, str], ...]:
    colours = palette.tokens()
    return tuple((name, colours[name]) for name in CSS_COLOURS)


def markdown_to_html(markdown: str, base_pt: float = DEFAULT_POINT_SIZE) -> str:
    """The whole text as one HTML string (top-level code as plain ``<pre>`` blocks)."""
    parts = [f"<style>{style_sheet(base_pt)}</style>"]
    for block in render_blocks(markdown):
        if block.kind == "code":
            parts.append(f"<pre>{html.escape(block.code)}</pre>")
        else:
            parts.append(block.html)
    return "\n".join(parts)


def _copy_to_clipboard(text: str) -> None:
    clipboard = QGuiApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(text)


class ProseBlockView(RichTextView):
    """One prose block (paragraph, heading, list, table, quote) as selectable rich text."""

    def __init__(
        self, block: Block, base_pt: float = DEFAULT_POINT_SIZE, parent: QWidget | None = None
    ) -> None:
        super().__init__(block.html, style_sheet=style_sheet(base_pt), parent=parent)
        self.setObjectName("markdownProse")
        self.linkActivated.connect(self._open_link)
        self.block = block
        self._base_pt = base_pt

    def restyle(self) -> None:
        """The theme changed: lay the text out again in its colours."""
        self.set_style_sheet(style_sheet(self._base_pt))

    def set_block(self, block: Block) -> None:
        if block != self.block:
            self.block = block
            self.setText(block.html)

    def _open_link(self, href: str) -> None:
        scheme, _, rest = href.partition(":")
        if scheme == COPY_SCHEME and rest.isdigit() and int(rest) < len(self.block.codes):
            _copy_to_clipboard(self.block.codes[int(rest)])
        elif scheme.lower() in SAFE_LINK_SCHEMES:
            QDesktopServices.openUrl(QUrl(href))


class CodeBlockView(StableHints, QFrame):
    """A fenced code block: monospace text on a tinted panel, with a Copy button.

    Once settled (see `MarkdownView`), its code is coloured by `ui.thread.highlight`.
    """

    copied = Signal(str)

    def __init__(self, block: Block, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeBlock")
        self.block = block
        self.language = QLabel(block.language)
        self.language.setObjectName("codeLanguage")
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("codeCopy")
        self.copy_button.setText("Copy")
        self.copy_button.setToolTip("Copy this code")
        self.copy_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.copy_button.clicked.connect(self.copy)
        self.code = RichTextView(block.code, rich=False)
        self.code.setObjectName("codeText")
        font = self.code.font()
        font.setFamily(monospace_family())
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.code.setFont(font)
        # "Copied" reverts to "Copy" after a moment; the timer dies with the widget.
        self._revert = QTimer(self)
        self._revert.setSingleShot(True)
        self._revert.setInterval(1500)
        self._revert.timeout.connect(lambda: self.copy_button.setText("Copy"))
        self.spans: list[highlight.Span] = []
        self._coloured_in = ""  # the Pygments style the spans are drawn in

        header = boxed(
            QHBoxLayout(), self.language, STRETCH, self.copy_button, margins=(0, 0, 0, 0)
        )
        boxed(QVBoxLayout(self), header, self.code, margins=(12, 4, 6, 10), spacing=2)
        reserve_space_while_hidden(self)

    def set_block(self, block: Block) -> None:
        if block == self.block:
            return
        if block.language != self.block.language:
            self.language.setText(block.language)
        self.block = block
        self.code.setText(block.code)
        self.spans = []
        self._coloured_in = ""

    # -- highlighting (see ui/thread/highlight.py) -----------------------------------------

    def code_text(self) -> str:
        return self.block.code

    def code_language(self) -> str:
        return self.block.language

    def code_document(self) -> QTextDocument:
        return self.code.document()

    def set_spans(self, spans: list[highlight.Span], style: str) -> None:
        self.spans = spans
        self._coloured_in = style
        if style != theme.current().pygments_style:  # the theme changed meanwhile
            self.restyle()
        self.code.update()

    @property
    def highlighted(self) -> bool:
        return bool(self.spans)

    def restyle(self) -> None:
        """Colour the code in the current theme's Pygments style."""
        style = theme.current().pygments_style
        if self.spans and style != self._coloured_in:
            highlight.apply_spans(self.code.document(), self.spans, style)
            self._coloured_in = style
            self.code.update()

    def copy(self) -> None:
        _copy_to_clipboard(self.block.code)
        self.copy_button.setText("Copied")
        self._revert.start()
        self.copied.emit(self.block.code)


BlockView = ProseBlockView | CodeBlockView


GROUP_SIZE = 12


def _view_for(block: Block, base_pt: float) -> BlockView:
    return CodeBlockView(block) if block.kind == "code" else ProseBlockView(block, base_pt)


class _BlockGroup(StableHints, QWidget):
    """A run of blocks. Qt keeps a child widget's height cached until something inside
    it changes, so a full group costs nothing while the reply grows below it."""

    def __init__(self) -> None:
        super().__init__()
        self.grows_in_place()
        reserve_space_while_hidden(self)
        self.blocks = QVBoxLayout(self)
        self.blocks.setContentsMargins(0, 0, 0, 0)
        self.blocks.setSpacing(BLOCK_SPACING)

    def views(self) -> list[BlockView]:
        found = []
        for index in range(self.blocks.count()):
            item = self.blocks.itemAt(index)
            widget = item.widget() if item is not None else None
            if isinstance(widget, ProseBlockView | CodeBlockView):
                found.append(widget)
        return found


class MarkdownView(StableHints, QWidget):
    """A reply's Markdown, one widget per block; grows by `append` while streaming.

    The text before the last safe cut is settled: its widgets are final. The widgets
    of the tail after the cut are re-rendered on each append; when the cut moves, the
    tail widgets it passes simply become settled where they are. Blocks live in groups
    of about GROUP_SIZE; only the last group changes, so the cost of a frame does not
    grow with the length of the reply.
    """

    def __init__(self, parent: QWidget | None = None, base_pt: float = DEFAULT_POINT_SIZE) -> None:
        super().__init__(parent)
        self.setObjectName("markdownView")
        self.grows_in_place()
        self._base_pt = base_pt
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(BLOCK_SPACING)
        self._groups: list[_BlockGroup] = []
        self._settled_in_last_group = 0
        self._settled_text: list[str] = []
        self._tail = ""
        self._tail_views: list[BlockView] = []
        self._splitter = SettledSplitter()
        self._changed: set[QWidget] = set()
        self._unshown: list[QWidget] = []
        theme.theme().changed.connect(self.restyle)

    def markdown(self) -> str:
        return "".join(self._settled_text) + self._tail

    def append(self, text: str, *, show: bool = True) -> None:
        """Add streamed text: settle what can be settled, re-render the rest.

        With `show=False` new widgets stay hidden (their space reserved) until
        `show_new()`: showing a widget makes Qt activate its parents' layouts at once,
        bottom-up within their stale sizes; the thread lays out top-down first instead.
        """
        if text:
            self._tail += text
            cut = self._splitter.feed(self._tail)
            # One render of the whole tail: rendering cannot change across a safe cut, so
            # the blocks before it are final and the widgets after it stay the tail's.
            blocks = render_blocks(self._tail) if self._tail.strip() else []
            self._show_tail(blocks)
            if cut:
                cut_line = self._tail.count("\n", 0, cut)
                final = sum(1 for block in blocks if block.line < cut_line)
                self._settled_text.append(self._tail[:cut])
                self._tail = self._tail[cut:]
                self._splitter.rebase(cut)
                self._settled_in_last_group += final
                self._highlight(self._tail_views[:final])
                del self._tail_views[:final]
        if show:
            self.show_new()

    def set_markdown(self, text: str) -> None:
        """Show a finished text (e.g. from history) in one go."""
        self._clear()
        self._settle(text)
        self.show_new()

    def show_new(self) -> None:
        """Show the widgets created since the last call."""
        for widget in self._unshown:
            widget.show()
        self._unshown.clear()

    def finish(self) -> None:
        """The reply is complete: the tail will not change any more."""
        if self._tail:
            self._settled_text.append(self._tail)
            self._tail = ""
        self._settled_in_last_group += len(self._tail_views)
        self._highlight(self._tail_views)
        self._tail_views.clear()
        self._splitter = SettledSplitter()

    def block_views(self) -> list[BlockView]:
        return [view for group in self._groups for view in group.views()]

    def take_changed(self) -> list[QWidget]:
        """The widgets whose size changed since the last call, innermost first."""
        # A code block has a layout of its own (header and text), inside its group's.
        codes = [widget for widget in self._changed if isinstance(widget, CodeBlockView)]
        groups = [group for group in self._groups if group in self._changed]
        self._changed.clear()
        return [*codes, *groups, self]

    def _settle(self, text: str) -> None:
        """`text` is final: its blocks get their widgets for good."""
        self._settled_text.append(text)
        self._show_tail(render_blocks(text))
        self._settled_in_last_group += len(self._tail_views)
        self._highlight(self._tail_views)
        self._tail_views.clear()

    @staticmethod
    def _highlight(views: list[BlockView]) -> None:
        """Settled code is coloured between frames, never within one."""
        for view in views:
            if isinstance(view, CodeBlockView):
                highlight.queue().add(view, theme.current().pygments_style)

    def restyle(self, _palette: object = None) -> None:
        """The theme changed: recolour every block."""
        for view in self.block_views():
            view.restyle()

    def _show_tail(self, blocks: list[Block]) -> None:
        """Make the tail widgets show `blocks`, reusing those whose kind still matches."""
        keep = 0
        for view, block in zip(self._tail_views, blocks, strict=False):
            if view.block.kind != block.kind:
                break
            if view.block != block:
                view.set_block(block)
                self._mark_changed(view)
                if isinstance(view, CodeBlockView):
                    self._changed.add(view)  # its header-and-text layout sits in the group's
            keep += 1
        for view in self._tail_views[keep:]:
            self._mark_changed(view)
            _discard(view)
        del self._tail_views[keep:]
        if keep == len(blocks):
            return
        # New widgets start a new group once the last one is full; tail widgets still in
        # the old group settle there.
        if not self._groups or self._settled_in_last_group >= GROUP_SIZE:
            self._groups.append(self._new_group())
            self._settled_in_last_group = 0
        group = self._groups[-1]
        self._changed.add(group)
        for block in blocks[keep:]:
            view = _view_for(block, self._base_pt)
            group.blocks.addWidget(view)
            self._unshown.append(view)
            self._tail_views.append(view)

    def _mark_changed(self, view: BlockView) -> None:
        if (group := view.parentWidget()) is not None:
            self._changed.add(group)

    def _new_group(self) -> _BlockGroup:
        group = _BlockGroup()
        self._layout.addWidget(group)
        self._unshown.append(group)
        return group

    def _clear(self) -> None:
        for group in self._groups:
            _discard(group)
        self._groups.clear()
        self._tail_views.clear()
        self._unshown.clear()
        self._settled_in_last_group = 0
        self._settled_text.clear()
        self._tail = ""
        self._splitter = SettledSplitter()


def _discard(widget: QWidget) -> None:
    widget.hide()
    widget.setParent(None)
    widget.deleteLater()

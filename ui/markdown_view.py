"""Replies as Markdown in Qt rich text, rendered so that streaming stays cheap.

`render_blocks(text)` parses Markdown with markdown-it (CommonMark + tables, raw HTML off,
so model text can never inject markup) and returns one `Block` per top-level Markdown
block: prose as Qt-flavoured HTML, fenced code as its raw text. `MarkdownView` shows a
reply with one widget per block; while a reply streams, `SettledSplitter` finds the last
point before which the text can no longer change its rendering, so that part is rendered
once and only the short unsettled tail is re-rendered on each frame.

The same cost rule shapes the widgets: `WrappingLabel` and the `StableHints` containers
keep size hints constant so that Qt never re-measures text that did not change (the
thread view relies on them too).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from PySide6.QtCore import QEvent, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui.rich_text import HINT_WIDTH, MIN_WIDTH, RichTextView

COPY_SCHEME = "copy"
SAFE_LINK_SCHEMES = ("http", "https", "mailto")
BLOCK_SPACING = 10
DEFAULT_POINT_SIZE = 10.5

# Qt's rich text understands a subset of CSS; these rules stay within it.
_CSS = """
p {{ margin: 0px; }}
h1 {{ font-size: {h1}pt; font-weight: 600; margin: 0px; }}
h2 {{ font-size: {h2}pt; font-weight: 600; margin: 0px; }}
h3 {{ font-size: {h3}pt; font-weight: 600; margin: 0px; }}
h4, h5, h6 {{ font-size: {base}pt; font-weight: 600; margin: 0px; }}
ul, ol {{ margin-top: 0px; margin-bottom: 0px; }}
li {{ margin-bottom: 3px; }}
li p {{ margin-bottom: 4px; }}
code {{ font-family: '{mono}'; font-size: {code}pt; background-color: #eef0f3; color: #1f2328; }}
pre {{ font-family: '{mono}'; font-size: {code}pt; white-space: pre-wrap; margin: 0px; }}
a {{ color: #0969da; text-decoration: none; }}
th {{ background-color: #f3f5f7; font-weight: 600; }}
"""


def monospace_family() -> str:
    """The platform's fixed-width family (Menlo, Consolas, DejaVu Sans Mono...)."""
    if QGuiApplication.instance() is None:
        return "monospace"  # fonts are unknown before the app exists; do not cache that
    return _system_monospace()


@cache
def _system_monospace() -> str:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()


def style_sheet(base_pt: float) -> str:
    """The CSS for prose at `base_pt`: set once per document, not sent with every block."""
    return _style_for(base_pt, monospace_family())


@cache
def _style_for(base_pt: float, mono: str) -> str:
    return _CSS.format(
        h1=round(base_pt * 1.45, 1),
        h2=round(base_pt * 1.25, 1),
        h3=round(base_pt * 1.1, 1),
        base=base_pt,
        code=round(base_pt * 0.93, 1),
        mono=mono,
    )


@dataclass(frozen=True)
class Block:
    """One top-level Markdown block, ready for a widget.

    `html` is set for prose; `code`/`language` for a top-level code block. `codes` holds
    the text of code blocks nested inside prose (in a list item, a quote), which the
    HTML offers to copy through ``copy:N`` links.
    """

    kind: Literal["prose", "code"]
    html: str = ""
    code: str = ""
    language: str = ""
    codes: tuple[str, ...] = field(default=())
    line: int = field(default=0, compare=False)  # where it starts in the source, from 0


def _code_text(token: Token) -> str:
    # The block's own lines, without the newline markdown-it keeps after the last one.
    return token.content[:-1] if token.content.endswith("\n") else token.content


class _QtRenderer(RendererHTML):
    """markdown-it's HTML renderer with output tuned for Qt's rich-text engine."""

    def table_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        # Qt draws grid lines from attributes more reliably than from CSS.
        return (
            '<table border="1" cellspacing="0" cellpadding="6" '
            'style="border-collapse: collapse; border-color: #d0d7de; border-style: solid;">\n'
        )

    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        # Only reached for code nested in other blocks; top-level code gets its own widget.
        codes: list[str] = env.setdefault("codes", [])
        codes.append(_code_text(tokens[idx]))
        return (
            '<table width="100%" cellspacing="0" cellpadding="8" bgcolor="#f6f8fa" '
            'style="border-style: none; margin-top: 4px; margin-bottom: 4px;"><tr><td>'
            f'<p align="right"><a href="{COPY_SCHEME}:{len(codes) - 1}">Copy</a></p>'
            f"<pre>{html.escape(_code_text(tokens[idx]))}</pre></td></tr></table>\n"
        )

    code_block = fence

    def blockquote_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        # Qt draws no left border on blocks; a thin tinted table cell stands in for it.
        return (
            '<table cellspacing="0" cellpadding="0" style="margin-top: 2px; margin-bottom: 2px;">'
            '<tr><td width="3" bgcolor="#d0d7de"></td>'
            '<td style="padding-left: 12px; color: #57606a;">\n'
        )

    def blockquote_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return "</td></tr></table>\n"

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        # Never let a reply make Qt load a file or URL; show the picture as a link instead.
        token = tokens[idx]
        alt = html.escape(self.renderInlineAsText(token.children or [], options, env) or "image")
        src = str(token.attrGet("src") or "")
        if src.split(":", 1)[0].lower() in SAFE_LINK_SCHEMES:
            return f'<a href="{html.escape(src)}">[{alt}]</a>'
        return f"[{alt}]"


@cache
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}, renderer_cls=_QtRenderer)
    md.enable(["table", "strikethrough"])
    return md


def _top_level_groups(tokens: list[Token]) -> list[list[Token]]:
    """Split a token stream into the tokens of each top-level block."""
    groups: list[list[Token]] = []
    depth = 0
    for token in tokens:
        if depth == 0:
            groups.append([])
        groups[-1].append(token)
        depth += token.nesting
    return groups


def render_blocks(markdown: str) -> list[Block]:
    """Render Markdown source into one `Block` per top-level block (styled by `style_sheet`)."""
    md = _markdown()
    blocks: list[Block] = []
    for group in _top_level_groups(md.parse(markdown)):
        first = group[0]
        line = first.map[0] if first.map else 0
        if len(group) == 1 and first.type in ("fence", "code_block"):
            language = first.info.strip().split(" ", 1)[0] if first.info else ""
            blocks.append(Block(kind="code", code=_code_text(first), language=language, line=line))
            continue
        env: dict[str, Any] = {}
        body = md.renderer.render(group, md.options, env)
        codes = tuple(env.get("codes", ()))
        blocks.append(Block(kind="prose", html=body, codes=codes, line=line))
    return blocks


def markdown_to_html(markdown: str, base_pt: float = DEFAULT_POINT_SIZE) -> str:
    """The whole text as one HTML string (top-level code as plain ``<pre>`` blocks)."""
    parts = [f"<style>{style_sheet(base_pt)}</style>"]
    for block in render_blocks(markdown):
        if block.kind == "code":
            parts.append(f"<pre>{html.escape(block.code)}</pre>")
        else:
            parts.append(block.html)
    return "\n".join(parts)


_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})(.*)")
_LIST_ITEM = re.compile(r"([-*+]|\d{1,9}[.)])(\s|$)")
_FENCE_CLOSE = re.compile(r"(`{3,}|~{3,})\s*")


class SettledSplitter:
    """Finds where streaming Markdown can be cut so the part before it renders for good.

    A safe cut is the start of a line that begins with a non-blank character right
    after a blank line, outside any fenced code block: no Markdown construct continues
    across such a point (a list item's continuation would be indented). A new list
    item is not a cut either, so a loose list stays one list. Only complete lines are
    examined, and each line once: feeding is linear in the new text.
    """

    def __init__(self) -> None:
        self._scanned = 0  # offset of the first line not yet examined
        self._fence: tuple[str, int] | None = None  # (character, length) of an open fence
        self._after_blank = False

    def feed(self, text: str) -> int:
        """Examine new complete lines of `text`; return the latest safe cut (0 if none)."""
        cut = 0
        while (end := text.find("\n", self._scanned)) != -1:
            line = text[self._scanned : end]
            if (
                self._after_blank
                and self._fence is None
                and line[:1] not in ("", " ", "\t")
                and not _LIST_ITEM.match(line)
            ):
                cut = self._scanned
            self._track_fence(line.lstrip(" \t"))
            self._after_blank = self._fence is None and not line.strip()
            self._scanned = end + 1
        return cut

    def rebase(self, offset: int) -> None:
        """The first `offset` characters were cut off the text; shift positions accordingly."""
        self._scanned -= offset

    def _track_fence(self, stripped: str) -> None:
        if self._fence is None:
            match = _FENCE_OPEN.match(stripped)
            if match and not (match[1][0] == "`" and "`" in match[2]):
                self._fence = (match[1][0], len(match[1]))
            return
        match = _FENCE_CLOSE.fullmatch(stripped)
        if match and match[1][0] == self._fence[0] and len(match[1]) >= self._fence[1]:
            self._fence = None


def _copy_to_clipboard(text: str) -> None:
    clipboard = QGuiApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(text)


# Why the size hints below are constants: Qt's box layouts ask every height-for-width
# child for its height again on each relayout, at the real width and at the width of
# the layout's size hint. A QLabel's hints follow its text, so a label that changes on
# every frame would shift that hint width and make every block of the reply lay its
# text out again: a cost that grows with the reply. With constant hints, heights are
# only asked at widths each widget has already cached.


class StableHints:
    """Mixin for containers of wrapped text: size hints that never trigger a relayout."""

    def grows_in_place(self: QWidget) -> None:  # type: ignore[misc]
        """Content stays put when this widget grows: Qt repaints only the new area."""
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents)

    def sizeHint(self) -> QSize:
        return QSize(HINT_WIDTH, 0)

    def minimumSizeHint(self) -> QSize:
        return QSize(MIN_WIDTH, 0)


class WrappingLabel(QLabel):
    """A word-wrapped, mouse-selectable label whose size hints do not depend on its text."""

    def __init__(
        self, text: str = "", *, rich: bool = False, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        flags = Qt.TextInteractionFlag.TextSelectableByMouse
        if rich:
            flags |= Qt.TextInteractionFlag.LinksAccessibleByMouse
        self.setTextInteractionFlags(flags)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        _reserve_space_while_hidden(self)
        # Layouts ask the same height several times per pass, and each QLabel answer
        # lays the text out twice (it restores the previous text width afterwards).
        self._heights: dict[int, int] = {}
        if text:
            self.setText(text)

    def setText(self, text: str) -> None:
        self._heights.clear()
        super().setText(text)

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) > 3:
                self._heights.clear()
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._heights.clear()
        super().changeEvent(event)

    def sizeHint(self) -> QSize:
        return QSize(HINT_WIDTH, self.fontMetrics().lineSpacing())

    def minimumSizeHint(self) -> QSize:
        # Also keeps a long URL from setting the minimum width of the whole thread.
        return QSize(MIN_WIDTH, self.fontMetrics().lineSpacing())


class ProseBlockView(RichTextView):
    """One prose block (paragraph, heading, list, table, quote) as selectable rich text."""

    def __init__(
        self, block: Block, base_pt: float = DEFAULT_POINT_SIZE, parent: QWidget | None = None
    ) -> None:
        super().__init__(block.html, style_sheet=style_sheet(base_pt), parent=parent)
        self.setObjectName("markdownProse")
        self.linkActivated.connect(self._open_link)
        self.block = block

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
    """A fenced code block: monospace text on a tinted panel, with a Copy button."""

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

        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.language)
        header.addStretch(1)
        header.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 4, 6, 10)
        layout.setSpacing(2)
        layout.addLayout(header)
        layout.addWidget(self.code)
        _reserve_space_while_hidden(self)

    def set_block(self, block: Block) -> None:
        if block == self.block:
            return
        if block.language != self.block.language:
            self.language.setText(block.language)
        self.block = block
        self.code.setText(block.code)

    def copy(self) -> None:
        _copy_to_clipboard(self.block.code)
        self.copy_button.setText("Copied")
        self._revert.start()
        self.copied.emit(self.block.code)


BlockView = ProseBlockView | CodeBlockView


def _reserve_space_while_hidden(widget: QWidget) -> None:
    # Lets a new block count in layouts before it is shown; see MarkdownView.show_new.
    policy = widget.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    widget.setSizePolicy(policy)


GROUP_SIZE = 12


def _view_for(block: Block, base_pt: float) -> BlockView:
    return CodeBlockView(block) if block.kind == "code" else ProseBlockView(block, base_pt)


class _BlockGroup(StableHints, QWidget):
    """A run of blocks. Qt keeps a child widget's height cached until something inside
    it changes, so a full group costs nothing while the reply grows below it."""

    def __init__(self) -> None:
        super().__init__()
        self.grows_in_place()
        _reserve_space_while_hidden(self)
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
        self._tail_views.clear()

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


STYLE = """
#codeBlock { background: #f6f8fa; border: 1px solid #e1e4e8; border-radius: 8px; }
#codeLanguage { color: #6e7781; }
#codeCopy {
    border: none; background: transparent; color: #0969da; padding: 2px 8px; border-radius: 4px;
}
#codeCopy:hover { background: #e6ebf1; }
#codeText { color: #1f2328; }
"""

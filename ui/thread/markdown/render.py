"""markdown-it set up for Qt's rich text: CommonMark with tables and strikethrough, raw HTML off,
and an HTML renderer whose output Qt draws well (`blocks.render_blocks` uses it).

A module of its own so that markdown-it (a tenth of the window's start) loads when the first
reply is shown, or right after the window's first paint, rather than before the window. No Qt
here either.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from ui.thread.markdown.links import COPY_SCHEME, SAFE_LINK_SCHEMES


def code_text(token: Token) -> str:
    # The block's own lines, without the newline markdown-it keeps after the last one.
    return token.content[:-1] if token.content.endswith("\n") else token.content


class _QtRenderer(RendererHTML):
    """markdown-it's HTML renderer with output tuned for Qt's rich-text engine."""

    def table_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        # Qt draws grid lines from attributes more reliably than from CSS.
        return (
            '<table class="grid" border="1" cellspacing="0" cellpadding="6" '
            'style="border-collapse: collapse; border-style: solid;">\n'
        )

    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        # Only reached for code nested in other blocks; top-level code gets its own widget.
        codes: list[str] = env.setdefault("codes", [])
        codes.append(code_text(tokens[idx]))
        return (
            '<table class="code" width="100%" cellspacing="0" cellpadding="8" '
            'style="border-style: none; margin-top: 4px; margin-bottom: 4px;"><tr><td>'
            f'<p align="right"><a href="{COPY_SCHEME}:{len(codes) - 1}">Copy</a></p>'
            f"<pre>{html.escape(code_text(tokens[idx]))}</pre></td></tr></table>\n"
        )

    code_block = fence

    def blockquote_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        # Qt draws no left border on blocks; a thin tinted table cell stands in for it.
        return (
            '<table cellspacing="0" cellpadding="0" style="margin-top: 2px; margin-bottom: 2px;">'
            '<tr><td class="quotebar" width="3"></td>'
            '<td class="quote" style="padding-left: 12px;">\n'
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
def parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}, renderer_cls=_QtRenderer)
    md.enable(["table", "strikethrough"])
    return md

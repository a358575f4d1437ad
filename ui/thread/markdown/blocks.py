"""Markdown parsed into blocks for Qt's rich text, with no widgets and no Qt.

`render_blocks(text)` parses Markdown with markdown-it (CommonMark + tables, raw HTML off,
so model text can never inject markup; `render.py`) and returns one `Block` per top-level Markdown
block: prose as Qt-flavoured HTML, fenced code as its raw text. While a reply streams,
`SettledSplitter` finds the last point before which the text can no longer change its
rendering, so that part is rendered once and only the short unsettled tail is re-rendered
on each frame. `style_for` is the CSS that goes with the HTML.

Nothing here imports Qt (an import contract in pyproject.toml holds it to that), so the
parsing can be tested and reused without a display.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from markdown_it.token import Token

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
code {{ font-family: '{mono}'; font-size: {code}pt; background-color: {inline_code_bg}; color: {text}; }}
pre {{ font-family: '{mono}'; font-size: {code}pt; white-space: pre-wrap; margin: 0px; }}
a {{ color: {link}; text-decoration: none; }}
th {{ background-color: {table_head_bg}; font-weight: 600; }}
table.grid {{ border-color: {border}; }}
table.code {{ background-color: {code_bg}; }}
td.quotebar {{ background-color: {border}; }}
td.quote {{ color: {text_muted}; }}
"""

# The colour tokens the CSS uses (ui/theme.py's palettes have them all).
CSS_COLOURS = (
    "inline_code_bg",
    "text",
    "link",
    "table_head_bg",
    "border",
    "code_bg",
    "text_muted",
)


@cache
def style_for(base_pt: float, mono: str, colours: tuple[tuple[str, str], ...]) -> str:
    """The CSS for prose at `base_pt`, code in the `mono` font family, in `colours` (the
    theme's (token, value) pairs, at least those in CSS_COLOURS)."""
    named = dict(colours)
    return _CSS.format(
        **{token: named[token] for token in CSS_COLOURS},
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
    """Render Markdown source into one `Block` per top-level block (styled by `style_for`)."""
    # markdown-it is loaded when the first reply is shown, not before the window is (the app
    # loads it right after the first paint; see render.py).
    from ui.thread.markdown.render import code_text, parser

    md = parser()
    blocks: list[Block] = []
    for group in _top_level_groups(md.parse(markdown)):
        first = group[0]
        line = first.map[0] if first.map else 0
        if len(group) == 1 and first.type in ("fence", "code_block"):
            language = first.info.strip().split(" ", 1)[0] if first.info else ""
            blocks.append(Block(kind="code", code=code_text(first), language=language, line=line))
            continue
        env: dict[str, Any] = {}
        body = md.renderer.render(group, md.options, env)
        codes = tuple(env.get("codes", ()))
        blocks.append(Block(kind="prose", html=body, codes=codes, line=line))
    return blocks


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

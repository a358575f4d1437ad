"""Markdown rendering: what reaches Qt's rich text, code copy, and streaming that settles."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextDocument, QTextTable

import ui.thread.markdown.view as markdown_view
from ui.thread.markdown.blocks import Block, SettledSplitter, render_blocks
from ui.thread.markdown.view import CodeBlockView, MarkdownView, ProseBlockView, markdown_to_html

DOCUMENT = """# Release notes

Deskhand now renders **Markdown** with `inline code` and [links](https://example.com).

## Steps

1. Install it
2. Open it

   The second step has a continuation paragraph.
3. Chat

- tight
- bullets

| Tool | Risk |
|------|------|
| browser | change |
| mail | consequential |

```python
def greet(name):

    return f"Hello {name}"
```

> A quote that spans
> two lines.

- loose item one

- loose item two
  ```
  nested code
  ```

Closing paragraph.
"""


def table_cells(html: str) -> list[list[str]]:
    """The text of each cell of each table Qt's rich-text engine builds from `html`."""
    document = QTextDocument()
    document.setHtml(html)
    tables = [f for f in document.rootFrame().childFrames() if isinstance(f, QTextTable)]
    return [
        [
            table.cellAt(row, column).firstCursorPosition().block().text()
            for row in range(table.rows())
            for column in range(table.columns())
        ]
        for table in tables
    ]


def test_blocks_render_headings_lists_tables_and_inline_code(qapp: object) -> None:
    blocks = render_blocks(DOCUMENT)
    prose = "\n".join(block.html for block in blocks if block.kind == "prose")
    assert "<h1>Release notes</h1>" in prose
    assert "<h2>Steps</h2>" in prose
    assert "<code>inline code</code>" in prose
    assert "<ol>" in prose and "<p>Install it</p>" in prose
    assert "<ul>" in prose and "<li>tight</li>" in prose
    assert "<table" in prose and "<th>Tool</th>" in prose and "<td>consequential</td>" in prose
    code = [block for block in blocks if block.kind == "code"]
    assert [(block.language, block.code) for block in code] == [
        ("python", 'def greet(name):\n\n    return f"Hello {name}"')
    ]


def test_a_table_becomes_a_real_table_in_the_widget(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown("| Tool | Risk |\n|------|------|\n| browser | change |\n| mail | high |\n")
    view.resize(500, 300)
    view.show()
    qtbot.waitExposed(view)
    [label] = view.block_views()
    assert isinstance(label, ProseBlockView)
    assert table_cells(label.text()) == [["Tool", "Risk", "browser", "change", "mail", "high"]]
    # Three rows of text need more height than one line.
    assert label.height() > 2 * label.fontMetrics().height()


def test_source_html_is_escaped_and_images_are_never_loaded(qapp: object) -> None:
    html = markdown_to_html(
        "Hi <script>alert(1)</script> <b>bold</b>\n\n![secret](/home/me/secret.png)\n"
    )
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html
    assert "<img" not in html and "secret.png" not in html
    assert "[secret]" in html


def test_copy_button_puts_exactly_the_code_on_the_clipboard(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown("Run this:\n\n```sh\nls -la\necho 'done'\n```\n\nThen that.\n")
    view.show()
    [code_view] = [v for v in view.block_views() if isinstance(v, CodeBlockView)]
    assert code_view.language.text() == "sh"
    qtbot.mouseClick(code_view.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "ls -la\necho 'done'"
    assert code_view.copy_button.text() == "Copied"


def test_code_nested_in_a_list_has_its_own_copy_link(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown("- first\n  ```\n  make test\n  ```\n- second\n")
    [label] = view.block_views()
    assert isinstance(label, ProseBlockView)
    assert 'href="copy:0"' in label.text()
    label.linkActivated.emit("copy:0")
    assert QGuiApplication.clipboard().text() == "make test"


@pytest.mark.parametrize(
    ("text", "cut_before"),
    [
        ("First paragraph.\n\nSecond paragraph.\n", "Second paragraph."),
        ("# Title\n\nBody\n\nMore\n", "More"),
        ("```\ncode\n\nstill code\n```\n\nAfter.\n", "After."),
        ("~~~\ncode\n\n```\nstill code\n~~~\n\nAfter.\n", "After."),
        ("1. a\n\n2. b\n\nNext.\n", "Next."),
    ],
)
def test_splitter_cuts_only_where_rendering_cannot_change(text: str, cut_before: str) -> None:
    assert SettledSplitter().feed(text) == text.index(cut_before)


@pytest.mark.parametrize(
    "text",
    [
        "Paragraph\n\n    indented code\n",
        "- item\n\n  continuation\n",
        "```\nopen fence\n\nnever closed\n",
        "Only one paragraph so far\n",
        "Half a line\n\nNext line not complete",
    ],
)
def test_splitter_does_not_cut(text: str) -> None:
    assert SettledSplitter().feed(text) == 0


def test_streaming_in_random_pieces_renders_like_the_whole_text(qtbot) -> None:  # type: ignore[no-untyped-def]
    whole = MarkdownView()
    qtbot.addWidget(whole)
    whole.set_markdown(DOCUMENT)
    streamed = MarkdownView()
    qtbot.addWidget(streamed)
    pieces = random.Random(7)
    position = 0
    while position < len(DOCUMENT):
        step = pieces.randint(1, 12)
        streamed.append(DOCUMENT[position : position + step])
        position += step
    streamed.finish()
    assert streamed.markdown() == DOCUMENT
    assert [v.block for v in streamed.block_views()] == [v.block for v in whole.block_views()]


def test_streaming_rerenders_only_the_tail(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    rendered: list[int] = []
    original = markdown_view.render_blocks

    def recording(text: str, *args: object) -> list[Block]:
        rendered.append(len(text))
        return original(text, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(markdown_view, "render_blocks", recording)
    view = MarkdownView()
    qtbot.addWidget(view)
    paragraph = "A sentence that goes on for a while, like replies do. " * 4 + "\n\n"
    text = paragraph * 200  # about 44,000 characters
    for start in range(0, len(text), 16):
        view.append(text[start : start + 16])
    view.finish()
    assert view.markdown() == text
    # Each frame renders at most a paragraph or two, never the whole reply so far.
    assert max(rendered) < 3 * len(paragraph)
    assert len(view.block_views()) == 200


def test_streaming_keeps_settled_widgets_and_small_groups(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    created: list[Block] = []
    original = markdown_view._view_for

    def recording(block: Block, base_pt: float) -> markdown_view.BlockView:
        created.append(block)
        return original(block, base_pt)

    monkeypatch.setattr(markdown_view, "_view_for", recording)
    view = MarkdownView()
    qtbot.addWidget(view)
    text = "".join(f"## Part {n}\n\nSome words about part {n}, at length.\n\n" for n in range(60))
    for start in range(0, len(text), 7):
        view.append(text[start : start + 7])
    view.finish()
    # Each block got one widget, kept when the text after it arrived...
    assert len(created) == len(view.block_views()) == 120
    # ...and the blocks live in small groups, so a frame lays out a group, not the reply.
    sizes = [len(group.views()) for group in view._groups]
    assert sum(sizes) == 120 and max(sizes) <= markdown_view.GROUP_SIZE + 2


def test_streamed_code_is_coloured_once_settled_never_while_it_grows(qtbot) -> None:  # type: ignore[no-untyped-def]
    import ui.thread.highlight as highlight

    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    view.append("Try this:\n\n```python\nimport os\n")
    [code] = view.findChildren(CodeBlockView)
    for line in ("def home():\n", "    return os.environ['HOME']\n"):
        view.append(line)
        qtbot.wait(20)  # turns of the event loop, as between frames
        assert not code.highlighted  # still growing: left plain, no lexing in the frames
    view.append("```\n\nThat prints your home folder.\n\n")
    qtbot.waitUntil(lambda: code.highlighted)  # settled: coloured between frames
    assert not highlight.queue().busy
    coloured = {r.format.foreground().color().name() for r in _formats(code)}
    assert len(coloured) >= 2  # keywords, names and strings apart
    assert code.code.plain_text() == "import os\ndef home():\n    return os.environ['HOME']"


def test_code_in_an_unknown_language_stays_plain(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown("```no-such-language\nsome text\n```\n")
    [code] = view.findChildren(CodeBlockView)
    qtbot.wait(200)
    assert not code.highlighted and not _formats(code)


def _formats(code: CodeBlockView) -> list:  # type: ignore[type-arg]
    found = []
    block = code.code.document().firstBlock()
    while block.isValid():
        found += block.layout().formats()
        block = block.next()
    return found

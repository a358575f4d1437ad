"""The style rules of a reply's code blocks, apart from their widgets (view.py): the window's style
sheet is set before its first paint, and the Markdown view loads after it, with the first reply."""

from __future__ import annotations

STYLE = """
#codeBlock { background: $code_bg; border: 1px solid $code_border; border-radius: 8px; }
#codeLanguage { color: $text_faint; }
#codeCopy {
    border: none; background: transparent; color: $link; padding: 2px 8px; border-radius: 4px;
}
#codeCopy:hover { background: $hover; }
#codeCopy:focus { border: 2px solid $focus; padding: 0px 6px; }
#codeText { color: $text; }
"""

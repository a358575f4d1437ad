"""Markdown in the thread: parsed into blocks (`blocks`, with markdown-it set up in `render`;
neither imports Qt), the links they may hold (`links`), and shown as widgets (`view`)."""

"""The links a reply's Markdown may hold: the schemes a click opens, and `copy:N`.

The renderer writes them (`render`) and the view follows them (`view`); they live apart from
both so that neither reaches into the other for them (and `blocks`, which loads the renderer
late, is not imported back by it).
"""

from __future__ import annotations

COPY_SCHEME = "copy"  # copy:N copies the Nth code block nested in a prose block
SAFE_LINK_SCHEMES = ("http", "https", "mailto")  # the only links a click opens

"""Deskhand's application: the chat, the call pipeline, MCP, the command line and the system
around them. No Qt here, but in the composition root (`__main__.py`, `app.py`)."""

from __future__ import annotations

import os
from typing import Any

# No third-party pydantic plugin runs inside Deskhand: one installed beside it would see every
# setting and tool value it validates. (Looking for plugins also scans every installed
# package's metadata when the first model is built, before the window can show.)
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


def __getattr__(name: str) -> Any:
    """`__version__`, read from the installed package's metadata when first asked for: the
    lookup loads `importlib.metadata`, which a command that never prints it need not wait for."""
    if name != "__version__":
        raise AttributeError(f"module 'desktop' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("deskhand")
    except PackageNotFoundError:  # running from a source tree that was never installed
        found = "0.0.0+source"
    globals()["__version__"] = found  # the next lookup is an ordinary one
    return found

"""Deskhand's application: the chat, the call pipeline, MCP, the command line and the system
around them. No Qt here, but in the composition root (`__main__.py`, `app.py`)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("deskhand")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

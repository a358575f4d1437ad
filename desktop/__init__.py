"""Deskhand's application core: agent, store, settings and permissions (no Qt here)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("deskhand")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

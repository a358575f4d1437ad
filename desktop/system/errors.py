"""The base of Deskhand's own errors (each package's errors derive from it)."""

from __future__ import annotations


class AppError(Exception):
    """Base of Deskhand's own errors."""

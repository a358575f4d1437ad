"""The errors tools raise inside themselves: never shown to the model, which reads a fixed phrase
instead (see tools/base.py). Apart from the function-tool contract, so that what only raises
them (reading an app's dictionary, say) loads neither asyncio nor the contract."""

from __future__ import annotations


class ToolFailure(Exception):
    """Base of the errors tools raise internally; turned into a fixed phrase before the model sees it."""


class InvalidInput(ToolFailure):
    """The model's input does not match the tool's schema."""


class DuplicateTool(ToolFailure):
    """Two tools asked for the same name; the second would silently hide the first."""

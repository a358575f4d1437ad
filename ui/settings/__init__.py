"""The Settings dialog and its pages, one module per page (see `dialog.PAGES`).

The dialog and its pages load when Settings first opens, not with the window (the welcome
module beside them is needed at start-up for its style)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ui.settings.dialog import SettingsDialog

__all__ = ["SettingsDialog"]


def __getattr__(name: str) -> Any:
    if name == "SettingsDialog":
        from ui.settings.dialog import SettingsDialog

        return SettingsDialog
    raise AttributeError(f"module 'ui.settings' has no attribute {name!r}")

"""The Settings dialog and its pages, one module per page (see `dialog.PAGES`).

The dialog and its pages load when Settings first opens, not with the window (the welcome
module beside them is needed at start-up for its style)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    from ui.settings.dialog import SettingsDialog

__all__ = ["SettingsDialog"]

__getattr__, __dir__ = lazy_loader.attach(__name__, submod_attrs={"dialog": ["SettingsDialog"]})[:2]

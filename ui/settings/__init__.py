"""The Settings dialog and its pages, one module per page (see `dialog.PAGES`)."""

from ui.settings.dialog import SettingsDialog

__all__ = ["SettingsDialog"]

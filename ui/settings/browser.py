"""Settings → Browser: which browser Deskhand drives, how it shows, and which sites.

The page is built from the browser settings model, and says which browser was found.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from desktop.system.browser_setup import find_browser, install_hint
from desktop.workspace import Workspace
from ui.settings.form import FormPage, SettingsForm, hint_label


class BrowserPage(FormPage):
    """Which browser Deskhand drives, how it shows, which sites, and the default-off members."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        form = SettingsForm()
        form.add_fields(workspace.settings.browser, prefix="browser")
        super().__init__(form, parent)
        choice = find_browser(workspace.settings.browser.executable_path.strip() or None)
        found = (
            f"Deskhand will use: {choice.path or choice.channel} ({choice.source})."
            if choice
            else f"No browser was found. Install one with: {install_hint()}"
        )
        self.found = hint_label(found)
        self.found.setObjectName("browserFound")
        self.layout_.addWidget(self.found)
        self.layout_.addWidget(form)
        self.layout_.addStretch(1)

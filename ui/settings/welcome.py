"""The welcome shown above Settings → Model on a first run: what Deskhand does (a line per
thing it does, as Help says too), and what macOS will ask."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from ui.capabilities import capability_list

WHAT_IT_DOES = (
    "<b>Welcome to Deskhand.</b> You chat with Claude here, and Claude can act for you. "
    "Anything that changes something waits for your OK first; the <i>Permissions</i> menu in "
    "the toolbar sets how often Deskhand asks."
)
MAC_PERMISSIONS = (
    "macOS asks once per app (“Deskhand wants to control Calendar”): that is the "
    "<i>Automation</i> permission. Allow the apps you want Deskhand to use; you can change "
    "this later in System Settings → Privacy &amp; Security → Automation. Screen control, "
    "when it comes, will ask for Accessibility and Screen Recording only when you turn it on."
)
NEXT_STEP = "To start, paste your Anthropic API key below and press Save."


class WelcomePanel(QFrame):
    """A short, friendly explanation; the key field sits right under it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomePanel")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        paragraphs = [WHAT_IT_DOES, capability_list()]
        if sys.platform == "darwin":
            paragraphs.append(MAC_PERMISSIONS)
        paragraphs.append(NEXT_STEP)
        self.labels = []
        for text in paragraphs:
            label = QLabel(text)
            label.setWordWrap(True)
            layout.addWidget(label)
            self.labels.append(label)

    def text(self) -> str:
        return "\n".join(label.text() for label in self.labels)


STYLE = """
#welcomePanel { background: $bubble; border: 1px solid $border_soft; border-radius: 8px; }
#welcomePanel QLabel { color: $bubble_text; }
"""

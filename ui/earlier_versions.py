"""The versions Edit or Regenerate replaced, folded above the message that replaced them.

Folded, it is one quiet line ("↺ 1 earlier answer" after Regenerate, "↺ 1 earlier
version" after Edit); unfolded, each version shows Claude's answer, with the person's
message as it was when Edit changed it. The answers are laid out only
when first unfolded, so a chat with many versions opens as fast as one without.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QToolButton, QVBoxLayout, QWidget

from desktop.events import EarlierVersion
from ui.labels import WrappingLabel
from ui.markdown_view import MarkdownView


def _heading(versions: list[EarlierVersion], current_prompt: str) -> str:
    edited = any(version.prompt != current_prompt for version in versions)
    noun = "version" if edited else "answer"
    return f"{len(versions)} earlier {noun}" + ("s" if len(versions) != 1 else "")


class EarlierVersionsView(QFrame):
    """A fold with the replaced versions, newest first."""

    def __init__(
        self,
        versions: list[EarlierVersion],
        base_pt: float,
        current_prompt: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("earlierVersions")
        self.versions = versions
        self.current_prompt = current_prompt
        self._base_pt = base_pt
        self.toggle = QToolButton()
        self.toggle.setObjectName("earlierToggle")
        self.toggle.setText(f"↺  {_heading(versions, current_prompt)}")
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        self.toggle.setToolTip("Show what this message replaced")
        self.toggle.toggled.connect(self.set_expanded)
        self.body = QFrame()
        self.body.setObjectName("earlierBody")
        self.body.hide()
        self._body_layout = QVBoxLayout(self.body)
        self._body_layout.setContentsMargins(12, 4, 0, 4)
        self._body_layout.setSpacing(8)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignRight)
        layout.addWidget(self.body)

    @property
    def expanded(self) -> bool:
        return self.body.isVisibleTo(self)

    def set_expanded(self, expanded: bool) -> None:
        if expanded and self._body_layout.count() == 0:
            self._build()
        self.toggle.setChecked(expanded)
        self.body.setVisible(expanded)

    def _build(self) -> None:
        for number, version in enumerate(self.versions, start=1):
            title = QLabel(f"Version {len(self.versions) - number + 1}")
            title.setObjectName("earlierTitle")
            self._body_layout.addWidget(title)
            # Edit and Regenerate keep the attachments: only words that changed are shown.
            if version.prompt.strip() and version.prompt != self.current_prompt:
                prompt = WrappingLabel(f"You wrote: {version.prompt}")
                prompt.setObjectName("earlierPrompt")
                self._body_layout.addWidget(prompt)
            reply = MarkdownView(base_pt=self._base_pt)
            reply.set_markdown(version.reply or "*(no answer)*")
            self._body_layout.addWidget(reply)
            if version.steps:
                steps = QLabel(f"{version.steps} tool step" + ("s" if version.steps > 1 else ""))
                steps.setObjectName("earlierSteps")
                self._body_layout.addWidget(steps)

    def plain_text(self) -> str:
        if not self.expanded:
            return self.toggle.text()
        parts = [self.toggle.text()]
        for version in self.versions:
            parts += [version.prompt, version.reply]
        return "\n".join(parts)


STYLE = """
#earlierToggle { border: none; color: palette(placeholder-text); padding: 2px 6px; }
#earlierToggle:hover, #earlierToggle:checked { color: palette(window-text); }
#earlierBody { border: none; border-left: 3px solid palette(mid); }
#earlierTitle, #earlierSteps { color: palette(placeholder-text); font-size: 9pt; }
#earlierPrompt { color: palette(placeholder-text); font-style: italic; }
"""

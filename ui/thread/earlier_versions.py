"""The versions Edit or Regenerate replaced, above the message that replaced them.

One quiet line: "‹ 2 / 2 ›" to step to another version, then a fold ("↺ 1 earlier
answer" after Regenerate, "↺ 1 earlier version" after Edit). The arrows make the version
they step to the chat's current one, as in other chat apps; versions are numbered in
the order they were written, so a number stays with its version whichever is current.
Unfolded, each version shows Claude's answer, with the person's message as it was when
Edit changed it, and "Use this version". The answers are laid out only when first
unfolded, so a chat with many versions opens as fast as one without.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from desktop.chat.events import EarlierVersions
from ui.boxes import boxed
from ui.thread.items import action_button
from ui.thread.labels import WrappingLabel

BUSY_TIP = "Available when the reply is finished"


def _heading(event: EarlierVersions) -> str:
    edited = any(version.prompt != event.current_prompt for version in event.versions)
    noun = "version" if edited else "answer"
    count = len(event.versions)
    return f"{count} earlier {noun}" + ("s" if count != 1 else "")


class EarlierVersionsView(QFrame):
    """The switcher and the fold of one message's replaced versions.

    `version_chosen` carries the prompt id of the version to make current.
    """

    version_chosen = Signal(int)

    def __init__(
        self, event: EarlierVersions, base_pt: float, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("earlierVersions")
        self.about = event  # not `event`: that is QObject.event(), which Qt calls
        self.versions = event.versions
        self.current_prompt = event.current_prompt
        self._base_pt = base_pt
        self._busy = False
        self.order = event.order()
        self.position = event.number_of(event.current_id)
        self.previous_button = action_button("‹", "", "versionArrow")
        self.previous_button.clicked.connect(lambda: self._step(-1))
        self.next_button = action_button("›", "", "versionArrow")
        self.next_button.clicked.connect(lambda: self._step(1))
        self.previous_button.setAccessibleName("Previous version")
        self.next_button.setAccessibleName("Next version")
        for arrow in (self.previous_button, self.next_button):
            font = arrow.font()  # the chevrons are small glyphs: larger, to hit and to read
            font.setPointSizeF(font.pointSizeF() * 1.5)
            font.setBold(True)
            arrow.setFont(font)
        self.count = QLabel(f"{self.position} / {len(self.order)}")
        self.count.setObjectName("versionCount")
        self.count.setToolTip(f"Version {self.position} of {len(self.order)}")
        self.toggle = action_button(
            f"↺  {_heading(event)}", "Show what this message replaced", "earlierToggle"
        )
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toggle.setCheckable(True)
        self.toggle.toggled.connect(self.set_expanded)
        self._use_buttons: list[QToolButton] = []
        self.body = QFrame()
        self.body.setObjectName("earlierBody")
        self.body.hide()
        self._body_layout = QVBoxLayout(self.body)
        self._body_layout.setContentsMargins(12, 4, 0, 4)
        self._body_layout.setSpacing(8)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addStretch(1)
        row.addWidget(self.previous_button)
        row.addWidget(self.count)
        row.addWidget(self.next_button)
        row.addSpacing(8)
        row.addWidget(self.toggle)
        boxed(QVBoxLayout(self), row, self.body, margins=(0, 0, 0, 0), spacing=2)
        self._update_buttons()

    def _step(self, by: int) -> None:
        at = self.position - 1 + by
        if not self._busy and 0 <= at < len(self.order):
            self.version_chosen.emit(self.order[at])

    def set_busy(self, busy: bool) -> None:
        """While a reply is written, the chat's versions stay as they are."""
        self._busy = busy
        self._update_buttons()

    def _update_buttons(self) -> None:
        for button, at in (
            (self.previous_button, self.position - 2),
            (self.next_button, self.position),
        ):
            exists = 0 <= at < len(self.order)
            button.setEnabled(exists and not self._busy)
            if self._busy:
                button.setToolTip(BUSY_TIP)
            elif exists:
                button.setToolTip(f"Switch to version {at + 1} of {len(self.order)}")
            else:
                button.setToolTip("")
        for button in self._use_buttons:
            button.setEnabled(not self._busy)
            button.setToolTip(
                BUSY_TIP if self._busy else "Make this the current version; the current one is kept"
            )

    @property
    def expanded(self) -> bool:
        return self.body.isVisibleTo(self)

    def set_expanded(self, expanded: bool) -> None:
        if expanded and self._body_layout.count() == 0:
            self._build()
        self.toggle.setChecked(expanded)
        self.body.setVisible(expanded)

    def _build(self) -> None:
        for version in sorted(self.versions, key=lambda v: v.message_id, reverse=True):
            title_row = QHBoxLayout()
            title_row.setContentsMargins(0, 0, 0, 0)
            title = QLabel(f"Version {self.about.number_of(version.message_id)}")
            title.setObjectName("earlierTitle")
            use = action_button("Use this version", "", "useVersion")
            use.clicked.connect(lambda _checked=False, chosen=version.message_id: self._use(chosen))
            self._use_buttons.append(use)
            title_row.addWidget(title)
            title_row.addStretch(1)
            title_row.addWidget(use)
            self._body_layout.addLayout(title_row)
            # Edit and Regenerate keep the attachments: only words that changed are shown.
            if version.prompt.strip() and version.prompt != self.current_prompt:
                prompt = WrappingLabel(f"You wrote: {version.prompt}")
                prompt.setObjectName("earlierPrompt")
                self._body_layout.addWidget(prompt)
            from ui.thread.markdown.view import MarkdownView  # loaded after the first paint

            reply = MarkdownView(base_pt=self._base_pt)
            reply.set_markdown(version.reply or "*(no answer)*")
            self._body_layout.addWidget(reply)
            if version.steps:
                steps = QLabel(f"{version.steps} tool step" + ("s" if version.steps > 1 else ""))
                steps.setObjectName("earlierSteps")
                self._body_layout.addWidget(steps)
        self._update_buttons()

    def use_buttons(self) -> dict[int, QToolButton]:
        """Each unfolded version's "Use this version", by its prompt id."""
        ordered = sorted(self.versions, key=lambda v: v.message_id, reverse=True)
        return {
            version.message_id: button
            for version, button in zip(ordered, self._use_buttons, strict=True)
        }

    def _use(self, message_id: int) -> None:
        if not self._busy:
            self.version_chosen.emit(message_id)

    def plain_text(self) -> str:
        parts = [f"{self.position} / {len(self.order)}", self.toggle.text()]
        if self.expanded:
            for version in self.versions:
                parts += [version.prompt, version.reply]
        return "\n".join(parts)


STYLE = """
#earlierToggle { border: none; color: palette(placeholder-text); padding: 2px 6px; }
#earlierToggle:hover, #earlierToggle:checked { color: palette(window-text); }
#versionArrow {
    border: none; border-radius: 6px; color: palette(placeholder-text); padding: 0px 7px;
}
#versionArrow:hover { background: palette(alternate-base); color: palette(window-text); }
#versionArrow:disabled { color: palette(mid); }
#versionCount { color: palette(placeholder-text); font-size: 9pt; }
#useVersion {
    border: 1px solid palette(mid); border-radius: 6px; padding: 1px 8px;
    color: palette(placeholder-text); font-size: 9pt;
}
#useVersion:hover { background: palette(alternate-base); color: palette(window-text); }
#useVersion:disabled { color: palette(mid); }
#earlierBody { border: none; border-left: 3px solid palette(mid); }
#earlierTitle, #earlierSteps { color: palette(placeholder-text); font-size: 9pt; }
#earlierPrompt { color: palette(placeholder-text); font-style: italic; }
"""

"""The Settings dialog: a sidebar of pages, each built from its part of the settings model.

Pages are listed once in `PAGES`. On Save every page writes its values into a `Draft`; the
whole `Settings` is validated before `LiveSettings.apply` writes anything, so invalid
input keeps the dialog open with everything the person typed. Cancel writes nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pydantic import ValidationError
from PySide6.QtCore import Signal
from PySide6.QtGui import QFont, QIcon
from PySide6.QtWidgets import (
    QAbstractButton,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.system.settings.model import Settings
from desktop.workspace import Workspace
from ui import theme
from ui.settings.appearance import AppearancePage
from ui.settings.apps import AppsPage
from ui.settings.audit import AuditPage
from ui.settings.browser import BrowserPage
from ui.settings.connectors import ConnectorsPage
from ui.settings.form import Draft, SettingsPage, set_role
from ui.settings.general import GeneralPage
from ui.settings.model import ModelPage
from ui.settings.permissions import PermissionsPage
from ui.settings.screen import ScreenPage
from ui.settings.welcome import WelcomePanel

__all__ = ["PAGES", "PageSpec", "SettingsDialog"]

SAVE = QDialogButtonBox.StandardButton.Save
CANCEL = QDialogButtonBox.StandardButton.Cancel


@dataclass(frozen=True)
class PageSpec:
    name: str
    title: str
    build: Callable[[Workspace], SettingsPage]


# The sidebar, in order. A new page is one line here.
PAGES: tuple[PageSpec, ...] = (
    PageSpec("general", "General", GeneralPage),
    PageSpec("model", "Model", ModelPage),
    PageSpec("permissions", "Permissions", PermissionsPage),
    PageSpec("browser", "Browser", BrowserPage),
    PageSpec("apps", "Apps", AppsPage),
    PageSpec("screen", "Screen", ScreenPage),
    PageSpec("connectors", "Connectors", ConnectorsPage),
    PageSpec("appearance", "Appearance", AppearancePage),
    PageSpec("audit", "Audit", AuditPage),
)


class SettingsDialog(QDialog):
    """Settings, page by page. Open it with `.open()`; `saved` fires after a successful Save."""

    saved = Signal()

    def __init__(
        self,
        workspace: Workspace,
        parent: QWidget | None = None,
        page: str = "model",
        *,
        welcome: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Welcome to Deskhand" if welcome else "Settings")
        self.welcome = WelcomePanel() if welcome else None
        # Big enough for the widest page (Permissions' table) without a scroll bar.
        self.setMinimumSize(820, 560)
        self.resize(1060, 720)
        self._workspace = workspace
        self._pages: dict[str, SettingsPage] = {}
        self._titles: dict[str, str] = {}

        self._sidebar = QListWidget()
        self._sidebar.setObjectName("settingsSidebar")
        self._sidebar.setFixedWidth(170)
        self._heading = QLabel()
        heading_font = self._heading.font()
        heading_font.setPointSizeF(heading_font.pointSizeF() * 1.35)
        heading_font.setWeight(QFont.Weight.DemiBold)
        self._heading.setFont(heading_font)
        self._stack = QStackedWidget()
        for spec in PAGES:
            built = spec.build(workspace)
            self._pages[spec.name] = built
            self._titles[spec.name] = spec.title
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setWidget(built)
            self._stack.addWidget(scroll)
            self._sidebar.addItem(spec.title)
        self._sidebar.currentRowChanged.connect(self._show_page)

        self._message = QLabel()
        self._message.setWordWrap(True)
        self._message.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        for button in self.buttons.buttons():
            button.setIcon(QIcon())  # words alone, as everywhere else in the window
        self.buttons.accepted.connect(self._save)
        self.buttons.rejected.connect(self.reject)
        self._close_text = "Cancel"  # "Close" once a Save left something to read
        self.finished.connect(self._stop_pages)

        content = QVBoxLayout()
        content.setSpacing(12)
        if self.welcome is not None:
            content.addWidget(self.welcome)
        content.addWidget(self._heading)
        content.addWidget(self._stack, 1)
        body = QHBoxLayout()
        body.setSpacing(18)
        body.addWidget(self._sidebar)
        body.addLayout(content, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.setSpacing(12)
        layout.addLayout(body, 1)
        layout.addWidget(self._message)
        layout.addWidget(self.buttons)
        theme.theme().attach(self, STYLE)
        self.select_page(page)

    def page(self, name: str) -> SettingsPage:
        return self._pages[name]

    def button(self, which: QDialogButtonBox.StandardButton) -> QAbstractButton:
        return self.buttons.button(which)

    def select_page(self, name: str) -> None:
        if name not in self._pages:
            raise KeyError(f"no settings page {name!r}; pages: {', '.join(self._pages)}")
        self._sidebar.setCurrentRow(list(self._pages).index(name))

    def _show_page(self, row: int) -> None:
        self._stack.setCurrentIndex(row)
        name = list(self._pages)[row]
        self._heading.setText(self._titles[name])
        if self.welcome is not None:  # the welcome introduces the key, on the Model page
            self.welcome.setVisible(name == "model")
        self._show_buttons(self._pages[name])

    def _show_buttons(self, page: SettingsPage) -> None:
        """A page with nothing to save offers Close, unless another page has unsaved edits."""
        saving = page.edits_settings or self.has_unsaved_changes()
        self.button(SAVE).setVisible(saving)
        self.button(CANCEL).setText(self._close_text if saving else "Close")

    def has_unsaved_changes(self) -> bool:
        """Whether Save would change anything: a value edited, or a key typed."""
        saved = self._workspace.settings.model_dump()
        draft = Draft(data=copy.deepcopy(saved))
        for page in self._pages.values():
            if page.edits_settings:
                page.collect(draft)
        # Where the key goes is only a choice to save together with a key.
        draft.data["key_storage"] = saved["key_storage"]
        return draft.data != saved or any(p.holds_new_secret() for p in self._pages.values())

    def _say(self, text: str, *, error: bool) -> None:
        set_role(self._message, "error" if error else "")
        self._message.setText(text)
        self._message.setVisible(bool(text))

    def _save(self) -> None:
        pages = list(self._pages.values())
        for page in pages:
            page.clear_problems()
        self._say("", error=False)
        draft = Draft(data=self._workspace.settings.model_dump())
        for page in pages:
            page.collect(draft)
        problems = dict(draft.problems)
        settings = None
        try:
            settings = Settings.model_validate(draft.data)
        except ValidationError as exc:
            for error in exc.errors():
                problems.setdefault(".".join(map(str, error["loc"])), error["msg"])
        if problems or settings is None:
            self._show_problems(problems)
            return
        try:
            stored_in = self._workspace.live.apply(settings, api_key=draft.api_key)
        except OSError as exc:
            self._say(f"Couldn't save the settings: {exc.strerror or exc}.", error=True)
            return
        self.saved.emit()
        notices = [text for page in pages if (text := page.after_save(draft, stored_in))]
        if notices:
            self._say(" ".join(notices), error=False)
            self._close_text = "Close"
            self.button(CANCEL).setText("Close")
            return
        self.accept()

    def _show_problems(self, problems: Mapping[str, str]) -> None:
        unplaced = dict(problems)
        first_page = None
        for name, page in self._pages.items():
            shown = page.show_problems(problems)
            if shown and first_page is None:
                first_page = name
            for path in shown:
                unplaced.pop(path, None)
        if first_page is not None:
            self.select_page(first_page)
        lines = ["Some settings need a look (marked in red)." if first_page else ""]
        lines += [f"{path}: {message}" for path, message in unplaced.items()]
        self._say(" ".join(line for line in lines if line), error=True)

    def _stop_pages(self) -> None:
        for page in self._pages.values():
            page.stop()


STYLE = """
#settingsSidebar { padding: 4px; outline: 0; }
#settingsSidebar::item { padding: 6px 10px; border-radius: 6px; margin: 1px 0px; }
#settingsSidebar::item:hover { background: $hover; }
#settingsSidebar::item:selected { background: $selected; color: $text; }
"""

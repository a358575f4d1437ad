"""Settings → Model: the API key, where it is kept, the server and the model.

What a first run needs, explained for someone new to API keys. The model list is fetched
from the server in the background; the field stays editable meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.model_stream.client import list_models, make_client
from desktop.model_stream.errors import MissingKeyError, describe
from desktop.system.keystore import keychain_available
from desktop.system.settings.model import DEFAULT_MODEL, KeyStorage, Settings, newest_sonnet
from desktop.workspace import Workspace
from ui.settings.form import Draft, SettingsForm, SettingsPage, TextField, hint_label

log = logging.getLogger(__name__)

INTRO = (
    "Deskhand talks to Claude with your Anthropic API key. Get one at "
    '<a href="https://console.anthropic.com/settings/keys">console.anthropic.com</a> '
    "→ API keys, paste it here. Leave Base URL blank for Anthropic, or enter an "
    "Anthropic-compatible server such as a local Ollama or llama.cpp."
)


class InvalidBaseURL(ValueError):
    """The typed base URL is not a web address, so there is nothing to ask."""


class ModelPicker(QWidget):
    """The model field: an editable list filled from the server, a Refresh button, a status line."""

    refresh_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = QComboBox()
        self.combo.setEditable(True)
        self.combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("Ask the server which models it offers")
        self.refresh_button.clicked.connect(self.refresh_requested)
        self.status = hint_label()  # placed by the page, under the field's help text
        self.status.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo, 1)
        layout.addWidget(self.refresh_button)

    def field_value(self) -> str:
        return self.combo.currentText().strip()

    def set_field_value(self, value: str) -> None:
        index = self.combo.findText(value)
        if index >= 0:
            self.combo.setCurrentIndex(index)
        else:
            self.combo.setEditText(value)

    def show_loading(self) -> None:
        self.status.setText("Loading the model list…")
        self.status.show()

    def show_models(self, ids: list[str], choose: str) -> None:
        """Offer `ids`, and show `choose` in the field."""
        self.combo.clear()
        self.combo.addItems(ids)
        self.set_field_value(choose)
        self.status.hide()

    def show_failure(self, reason: str) -> None:
        self.status.setText(f"Couldn't load the model list: {reason}. You can type a model name.")
        self.status.show()


class KeyStorageChoice(QWidget):
    """Where the key goes when there is no keychain: a private file (the default), or this
    run only."""

    def __init__(self, key_file: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        icon = QLabel()
        size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(size)
        )
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.set_warning("No keychain is available on this system.")
        warning_row = QHBoxLayout()
        warning_row.setContentsMargins(0, 0, 0, 0)
        warning_row.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        warning_row.addWidget(self.warning, 1)
        self.file = QRadioButton("Keep it in a file only your user account can read (recommended)")
        self.session = QRadioButton("Keep it for this run only: you enter it again at each start")
        self.file.setToolTip(key_file)
        path = hint_label(key_file)
        path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        path.setContentsMargins(
            self.style().pixelMetric(QStyle.PixelMetric.PM_ExclusiveIndicatorWidth) + 6, 0, 0, 0
        )
        self._group = QButtonGroup(self)
        self._group.addButton(self.file)
        self._group.addButton(self.session)
        self.file.setChecked(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(warning_row)
        layout.addWidget(self.file)
        layout.addWidget(path)
        layout.addWidget(self.session)

    def set_warning(self, text: str) -> None:
        self.warning.setText(f"<b>{text}</b> Choose how Deskhand keeps your key:")

    def field_value(self) -> KeyStorage:
        return "file" if self.file.isChecked() else "session"

    def set_field_value(self, value: KeyStorage) -> None:
        (self.session if value == "session" else self.file).setChecked(True)


class ModelPage(SettingsPage):
    """Key, server and model: what a first run needs, explained for someone new to API keys."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._workspace = workspace
        self._keychain = keychain_available()
        self._task: asyncio.Future[None] | None = None
        self._fetched_for: tuple[str, str] | None = None
        settings = workspace.settings

        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        intro.setOpenExternalLinks(True)
        intro.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)

        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setClearButtonEnabled(True)
        self.show_key = QToolButton()
        self.show_key.setText("Show")
        self.show_key.setCheckable(True)
        self.show_key.toggled.connect(self._show_key)
        key_row = QWidget()
        key_layout = QHBoxLayout(key_row)
        key_layout.setContentsMargins(0, 0, 0, 0)
        key_layout.addWidget(self.key_edit, 1)
        key_layout.addWidget(self.show_key)
        self.storage = KeyStorageChoice(str(workspace.paths.key_file))
        self.storage.set_field_value(settings.key_storage)
        self.picker = ModelPicker()
        self.picker.refresh_requested.connect(self.refresh_models)

        self.form = SettingsForm()
        self.form.add_row("API key", key_row, path="api_key")
        self.form.add_row(
            Settings.model_fields["key_storage"].title or "", self.storage, path="key_storage"
        )
        self.form.add_fields(
            settings.model,
            prefix="model",
            widgets={"model": lambda _: self.picker, "system_prompt_extra": lambda _: TextField()},
        )
        self.form.add_note("model.model", self.picker.status)
        self.form.set_row_visible("key_storage", not self._keychain)
        self._update_key_placeholder()
        self.key_edit.editingFinished.connect(self._refresh_if_changed)
        self.form.field("model.base_url").editingFinished.connect(self._refresh_if_changed)  # type: ignore[attr-defined]

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 8, 0)
        layout.setSpacing(18)
        layout.addWidget(intro)
        layout.addWidget(self.form)
        layout.addStretch(1)

    # -- the key -----------------------------------------------------------------

    def _show_key(self, shown: bool) -> None:
        self.key_edit.setEchoMode(
            QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password
        )
        self.show_key.setText("Hide" if shown else "Show")

    def _update_key_placeholder(self) -> None:
        source = self._workspace.keys.source()
        self.key_edit.setPlaceholderText(
            "Paste your key (sk-ant-…)"
            if source == "not set"
            else f"Current key: {source}. Leave empty to keep it."
        )

    # -- the model list ------------------------------------------------------------

    def _connection(self) -> tuple[str, str]:
        """The key and base URL the form holds now."""
        base_url = self.form.field("model.base_url").field_value()  # type: ignore[attr-defined]
        return self.key_edit.text().strip(), base_url

    @property
    def loading(self) -> bool:
        """True while the model list is being fetched."""
        return self._task is not None and not self._task.done()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._fetched_for is None:
            self.refresh_models()

    def _refresh_if_changed(self) -> None:
        if self._fetched_for is not None and self._connection() != self._fetched_for:
            self.refresh_models()

    def refresh_models(self) -> None:
        """Fetch the server's model ids in the background; the field stays editable meanwhile."""
        self.stop()
        self._fetched_for = self._connection()
        self.picker.show_loading()
        self._task = asyncio.ensure_future(self._load_models(*self._fetched_for))

    async def _load_models(self, typed_key: str, base_url: str) -> None:
        try:
            ids = await self._list_models(typed_key, base_url)
        except Exception as exc:  # any failure is shown the same way: as words, not a crash
            log.info("model list failed: %r", exc)
            reason = (
                "the base URL is not valid"
                if isinstance(exc, InvalidBaseURL)
                else describe(exc).title
            )
            self.picker.show_failure(reason)
            return
        choose = self.picker.field_value()
        saved = self._workspace.settings.model.model
        if choose == saved == DEFAULT_MODEL:  # never chosen: offer the newest Sonnet there is
            choose = newest_sonnet(ids) or choose
        self.picker.show_models(ids, choose)

    async def _list_models(self, typed_key: str, base_url: str) -> list[str]:
        if not typed_key and base_url == self._workspace.settings.model.base_url:
            return await self._workspace.list_models()
        # A key or server not saved yet: ask it directly, without retries so failures show fast.
        key = typed_key or await self._workspace.keys.aget()
        if not key:
            raise MissingKeyError
        try:
            trial = Settings.model_validate({"model": {"base_url": base_url, "max_retries": 0}})
        except ValidationError as exc:
            raise InvalidBaseURL from exc
        async with make_client(trial, key) as client:
            return await list_models(client)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    # -- saving ------------------------------------------------------------------

    def collect(self, draft: Draft) -> None:
        self.form.write(draft.data)
        draft.problems.update(self.form.problems())
        storage: KeyStorage = "keychain" if self._keychain else self.storage.field_value()
        draft.data["key_storage"] = storage
        draft.api_key = self.key_edit.text().strip() or None
        if draft.api_key is None and storage != self._workspace.settings.key_storage:
            draft.api_key = self._workspace.keys.stored_key()  # the key moves with the choice

    def show_problems(self, problems: Mapping[str, str]) -> set[str]:
        return self.form.show_problems(problems)

    def clear_problems(self) -> None:
        self.form.clear_problems()

    def holds_new_secret(self) -> bool:
        return bool(self.key_edit.text().strip())

    def after_save(self, draft: Draft, stored_in: KeyStorage | None) -> str | None:
        self.key_edit.clear()
        self._update_key_placeholder()
        if draft.data["key_storage"] == "keychain" and stored_in == "session":
            self._keychain = False
            self.storage.set_warning("The keychain did not accept the key.")
            self.storage.set_field_value("session")
            self.form.set_row_visible("key_storage", True)
            return (
                "Saved, but the keychain did not accept the key: it is kept for this run only. "
                "Choose below how to keep it, then Save again, or Close."
            )
        return None

"""Settings → Connectors: the selected server's fields (a command with its arguments and
environment, or a URL with fixed headers) and the draft row they edit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QWidget

from ui.settings.form import SettingsForm, TextField

COMMAND, URL = "command", "url"
SIGNS_IN_TIP = (
    "This connector signs in: its sign-in belongs to this name and this address. To use "
    "another, remove it and add it again by URL."
)


@dataclass
class ServerDraft:
    """One row as the person is editing it; `saved` is its name in the saved config, if any."""

    name: str
    entry: dict[str, Any]
    saved: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _pairs(text: str, separator: str) -> tuple[dict[str, str], str | None]:
    pairs: dict[str, str] = {}
    for line in _lines(text):
        key, found, value = line.partition(separator)
        if not found or not key.strip():
            return {}, line
        pairs[key.strip()] = value.strip()
    return pairs, None


class ServerEditor(SettingsForm):
    """The selected server's fields: a command with its arguments and environment, or a URL."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = QLineEdit()
        self.kind = QComboBox()
        self.kind.addItem("Command (runs on this computer)", COMMAND)
        self.kind.addItem("URL (streamable HTTP)", URL)
        self.command = QLineEdit()
        self.command.setPlaceholderText("npx")
        self.args = TextField(lines=3)
        self.args.setPlaceholderText("-y\n@modelcontextprotocol/server-filesystem\n~/Documents")
        self.env = TextField(lines=2)
        self.env.setPlaceholderText("API_TOKEN=…")
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://example.com/mcp")
        self.headers = TextField(lines=2)
        self.headers.setPlaceholderText("Authorization: Bearer …")
        self.add_row("Name", self.name, path="name")
        self.add_row("Kind", self.kind)
        self.add_row("Command", self.command, hint="A program on your PATH, or its full path.")
        self.add_row("Arguments", self.args, hint="One argument per line.")
        self.add_row("Environment", self.env, hint="NAME=value, one per line.")
        self.add_row("URL", self.url)
        self.add_row("Headers", self.headers, hint="Name: value, one per line.")
        self.kind.currentIndexChanged.connect(self._show_kind)
        self.signs_in = False

    def _show_kind(self) -> None:
        stdio = self.kind.currentData() == COMMAND
        fixed_headers = not stdio and not self.signs_in  # a sign-in brings its own header
        for widget, shown in (
            (self.command, stdio),
            (self.args, stdio),
            (self.env, stdio),
            (self.url, not stdio),
            (self.headers, fixed_headers),
        ):
            column = widget.parentWidget()
            if column is not None:
                column.setVisible(shown)
        for label in self.findChildren(QLabel):
            buddy = label.buddy()
            if buddy in (self.command, self.args, self.env):
                label.setVisible(stdio)
            elif buddy is self.url:
                label.setVisible(not stdio)
            elif buddy is self.headers:
                label.setVisible(fixed_headers)

    def show_draft(self, draft: ServerDraft) -> None:
        entry = draft.entry
        self.name.setText(draft.name)
        self.kind.setCurrentIndex(1 if entry.get("url") else 0)
        self.command.setText(entry.get("command") or "")
        self.args.setPlainText("\n".join(entry.get("args") or []))
        self.env.setPlainText("\n".join(f"{k}={v}" for k, v in (entry.get("env") or {}).items()))
        self.url.setText(entry.get("url") or "")
        headers = entry.get("headers") or {}
        self.headers.setPlainText("\n".join(f"{k}: {v}" for k, v in headers.items()))
        # Its tokens are kept under its name and were issued for its URL: neither is edited
        # here, so a token never follows a connector to another server.
        self.signs_in = bool(entry.get("oauth"))
        for line in (self.name, self.url):
            line.setReadOnly(self.signs_in)
            line.setToolTip(SIGNS_IN_TIP if self.signs_in else "")
        self.kind.setEnabled(not self.signs_in)
        self._show_kind()

    def write_into(self, draft: ServerDraft) -> str | None:
        """Put the fields into `draft`; returns what is wrong with them, if anything."""
        draft.name = self.name.text().strip()
        entry = draft.entry
        for key in ("command", "args", "env", "url", "headers"):
            entry.pop(key, None)
        if self.kind.currentData() == URL:
            headers, bad = _pairs(self.headers.toPlainText(), ":")
            if bad is not None:
                return f"This header line needs “Name: value”: {bad}"
            entry["url"] = self.url.text().strip()
            entry["headers"] = headers
        else:
            env, bad = _pairs(self.env.toPlainText(), "=")
            if bad is not None:
                return f"This environment line needs “NAME=value”: {bad}"
            entry["command"] = self.command.text().strip()
            entry["args"] = _lines(self.args.toPlainText())
            entry["env"] = env
        return None

"""Settings → Connectors: the MCP servers Claude may use, each with its status.

The page edits a draft of `mcp.json` like every page edits its settings: nothing is written
until Save, and only when something changed. A file that cannot be read is shown with what
is wrong and is not editable here (so Save can never overwrite it); Reload reads it again.
The Restart button and the status column act on the saved config, live.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.calls.sources.mcp.config import (
    ConfigChanged,
    McpConfig,
    ServerEntry,
    claude_desktop_config,
    merge_servers,
    name_problem,
    read_config,
)
from desktop.calls.sources.mcp.source import McpSource, ServerState, ServerStatus
from desktop.system.settings.model import KeyStorage
from desktop.workspace import Workspace
from ui.settings.form import (
    Draft,
    SettingsForm,
    SettingsPage,
    TextField,
    hint_label,
    push_button,
    set_role,
)

COMMAND, URL = "command", "url"
NAME, ON, TRUSTED, STATUS = range(4)
PROBLEM_KEY = "connectors"

INTRO = (
    "Connectors are MCP servers: programs that give Claude more tools. Tools from a server "
    "count as consequential (they ask every time) unless you trust the server, or set a rule "
    "for them in Permissions. The list is kept in mcp.json, in Claude Desktop's format."
)
TRUST_TIP = (
    "Trusted: the server's own hints (read-only, non-destructive) set how risky its tools are. "
    "Not trusted: every tool asks before it runs."
)


@dataclass
class ServerDraft:
    """One row as the person is editing it; `saved` is its name in the saved config, if any."""

    name: str
    entry: dict[str, Any]
    saved: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


WAITING = "Waiting for you: not started until you press Start"
START_TIP = "Start this server: it was added or changed outside Deskhand's Settings"
CHANGED_SINCE = "mcp.json changed since this page opened. Press Reload, then Start."


def status_text(status: ServerStatus, *, disabled: bool, saved: bool) -> str:
    if not saved:
        return "Not saved yet"
    if disabled:
        return "Off"
    if status.state is ServerState.STARTING:
        return "Starting…"
    if status.state is ServerState.READY:
        return f"Ready · {status.tools} tool{'s' if status.tools != 1 else ''}"
    if status.state is ServerState.IDLE:
        return f"Starts on first use · {status.tools} tools"
    if status.state is ServerState.FAILED:
        return f"Failed: {status.problem}"
    return "Not started"


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

    def _show_kind(self) -> None:
        stdio = self.kind.currentData() == COMMAND
        for widget, shown in (
            (self.command, stdio),
            (self.args, stdio),
            (self.env, stdio),
            (self.url, not stdio),
            (self.headers, not stdio),
        ):
            column = widget.parentWidget()
            if column is not None:
                column.setVisible(shown)
        for label in self.findChildren(QLabel):
            buddy = label.buddy()
            if buddy in (self.command, self.args, self.env):
                label.setVisible(stdio)
            elif buddy in (self.url, self.headers):
                label.setVisible(not stdio)

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


class ConnectorsPage(SettingsPage):
    """The servers in mcp.json: add, edit, remove, turn on or off, trust, restart."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source: McpSource | None = workspace.toolbox.mcp
        self.drafts: list[ServerDraft] = []
        self._loaded = McpConfig()
        self._editing: ServerDraft | None = None
        self._filling = False
        self._pending: McpConfig | None = None

        self.problem = QLabel()
        self.problem.setObjectName("connectorsProblem")
        self.problem.setWordWrap(True)
        self.problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_role(self.problem, "error")
        self.open_file = push_button("Open mcp.json", self._open_file)
        self.reload = push_button("Reload", self.reload_file)
        self.import_button = push_button("Import from Claude Desktop", self.import_claude_desktop)
        self.lazy = QCheckBox("Start servers only when Claude first uses one of their tools")
        self.lazy.setToolTip("Off: every server starts when Deskhand starts.")

        self.table = QTableWidget(0, 4)
        self.table.setObjectName("serversTable")
        self.table.setHorizontalHeaderLabels(["Server", "On", "Trusted", "Status"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(STATUS, QHeaderView.ResizeMode.Stretch)
        trusted_header = self.table.horizontalHeaderItem(TRUSTED)
        if trusted_header is not None:
            trusted_header.setToolTip(TRUST_TIP)
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.itemChanged.connect(self._checked)

        self.add = push_button("Add", self.add_server)
        self.remove = push_button("Remove", self.remove_server)
        self.restart = push_button("Restart", self.restart_server, "Start the saved server again")
        self.editor = ServerEditor()
        self.stderr = QPlainTextEdit()
        self.stderr.setObjectName("serverStderr")
        self.stderr.setReadOnly(True)
        self.stderr.setPlaceholderText("What the server wrote to its error output, if it failed.")
        self.stderr.setMaximumHeight(110)
        self.message = hint_label()

        problem_row = QHBoxLayout()
        problem_row.addWidget(self.problem, 1)
        problem_row.addWidget(self.open_file)
        problem_row.addWidget(self.reload)
        top = QHBoxLayout()
        top.addWidget(self.lazy, 1)
        top.addWidget(self.import_button)
        buttons = QHBoxLayout()
        for button in (self.add, self.remove, self.restart):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(hint_label(INTRO))
        layout.addLayout(problem_row)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.editor)
        layout.addWidget(self.stderr)
        layout.addWidget(self.message)

        self._unsubscribe = self.source.subscribe(self.refresh_status) if self.source else None
        if self._unsubscribe is not None:
            self.destroyed.connect(self._unsubscribe)  # a dialog dropped without closing
        self._load()

    # -- the draft ----------------------------------------------------------------------

    def _load(self) -> None:
        """The page's draft from the saved file, or the file's problem."""
        read = self.source.read if self.source is not None else None
        problem = read.problem if read is not None else "Connectors are not available here."
        self._loaded = read.config if read is not None and read.problem is None else McpConfig()
        self.drafts = [
            ServerDraft(name=name, entry=entry.dump(), saved=name)
            for name, entry in self._loaded.servers.items()
        ]
        self.problem.setText(problem or "")
        editable = problem is None
        self.problem.setVisible(not editable)
        for editing in (self.table, self.add, self.remove, self.editor, self.lazy):
            editing.setEnabled(editable)
        self.lazy.setChecked(self._loaded.lazy_start)
        self.import_button.setVisible(editable and claude_desktop_config().is_file())
        self._editing = None
        self._fill()

    def _fill(self) -> None:
        self._filling = True
        self.table.setRowCount(len(self.drafts))
        for row, draft in enumerate(self.drafts):
            name = QTableWidgetItem(draft.name)
            name.setToolTip(ServerEntry.model_construct(**draft.entry).where())
            self.table.setItem(row, NAME, name)
            for column, key, on in ((ON, "disabled", False), (TRUSTED, "trusted", True)):
                item = QTableWidgetItem()
                item.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
                checked = bool(draft.entry.get(key)) == on
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
                self.table.setItem(row, column, item)
            self.table.setItem(row, STATUS, QTableWidgetItem())
        self._filling = False
        self.refresh_status()
        if self.drafts:
            self.table.selectRow(0)
        self._selected()

    def _row(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def _keep_editor(self) -> None:
        if self._editing is not None:
            problem = self.editor.write_into(self._editing)
            if problem:
                self.message.setText(problem)
            row = self.drafts.index(self._editing) if self._editing in self.drafts else -1
            item = self.table.item(row, NAME) if row >= 0 else None
            if item is not None:
                item.setText(self._editing.name)

    def _selected(self) -> None:
        self._keep_editor()
        row = self._row()
        self._editing = self.drafts[row] if 0 <= row < len(self.drafts) else None
        self.editor.setVisible(self._editing is not None)
        self.remove.setEnabled(self._editing is not None)
        if self._editing is not None:
            self.editor.show_draft(self._editing)
        self.refresh_status()

    def _checked(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() not in (ON, TRUSTED):
            return
        draft = self.drafts[item.row()]
        checked = item.checkState() == Qt.CheckState.Checked
        if item.column() == ON:
            draft.entry["disabled"] = not checked
        else:
            draft.entry["trusted"] = checked

    def refresh_status(self) -> None:
        """Each row's status from the running servers; the selected one's stderr below."""
        source = self.source
        for row, draft in enumerate(self.drafts):
            item = self.table.item(row, STATUS)
            if item is None or source is None:
                continue
            saved = draft.saved is not None and draft.saved in source.config.servers
            status = source.status(draft.saved) if draft.saved else ServerStatus()
            text = status_text(status, disabled=bool(draft.entry.get("disabled")), saved=saved)
            if saved and draft.saved in source.waiting():
                text = WAITING
            item.setText(text)
            item.setToolTip(status.problem)
        editing = self._editing
        stderr = ""
        can_restart = False
        waits = False
        if source is not None and editing is not None and editing.saved:
            status = source.status(editing.saved)
            stderr = status.stderr
            entry = source.entry(editing.saved)
            can_restart = entry is not None and not entry.disabled
            waits = editing.saved in source.waiting()
        self.restart.setText("Start" if waits else "Restart")
        self.restart.setToolTip(START_TIP if waits else "Start the saved server again")
        self.stderr.setPlainText(stderr)
        self.stderr.setVisible(bool(stderr))
        self.restart.setEnabled(can_restart)

    # -- actions ------------------------------------------------------------------------

    def add_server(self) -> None:
        self._keep_editor()
        taken = {d.name for d in self.drafts}
        name = next(f"server-{n}" for n in range(1, len(taken) + 2) if f"server-{n}" not in taken)
        self.drafts.append(ServerDraft(name=name, entry={"command": "", "args": []}))
        self._editing = None
        self._fill()
        self.table.selectRow(len(self.drafts) - 1)
        self.editor.name.setFocus()

    def remove_server(self) -> None:
        row = self._row()
        if 0 <= row < len(self.drafts):
            del self.drafts[row]
            self._editing = None
            self._fill()

    def restart_server(self) -> None:
        if self.source is None or self._editing is None or not self._editing.saved:
            return
        name = self._editing.saved
        if name in self.source.waiting():
            # Approved exactly as this page shows it; a file changed since is asked about anew.
            shown = self._loaded.servers.get(name)
            if shown is None or not self.source.approve(name, shown):
                self.message.setText(CHANGED_SINCE)
            return
        self.source.restart(name)

    def reload_file(self) -> None:
        if self.source is not None:
            self.source.reload()
        self._load()

    def import_claude_desktop(self) -> None:
        self._keep_editor()
        path = claude_desktop_config()
        read = read_config(path)
        if read.problem is not None:
            self.message.setText(read.problem)
            return
        current = McpConfig(servers={})
        for draft in self.drafts:
            current.servers[draft.name] = ServerEntry.model_construct(**draft.entry)
        _, added, skipped = merge_servers(current, read.config)
        for name in added:
            self.drafts.append(ServerDraft(name=name, entry=read.config.servers[name].dump()))
        self._editing = None
        self._fill()
        text = f"Imported {len(added)} server{'s' if len(added) != 1 else ''} from Claude Desktop."
        if skipped:
            text += f" Skipped (a server has that name already): {', '.join(skipped)}."
        self.message.setText(text + (" Press Save to keep them." if added else ""))

    def _open_file(self) -> None:
        if self.source is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.source.config_path)))

    # -- Save ---------------------------------------------------------------------------

    def edited_config(self) -> tuple[McpConfig | None, str | None]:
        """The config the page holds now, or what is wrong with it."""
        self._keep_editor()
        config = self._loaded.model_copy(
            update={"servers": {}, "lazy_start": self.lazy.isChecked()}
        )
        for draft in self.drafts:
            problem = name_problem(draft.name, set(config.servers))
            if problem:
                return None, problem
            entry = {k: v for k, v in draft.entry.items() if v not in (None, "", [], {}, False)}
            try:
                config.servers[draft.name] = ServerEntry.model_validate(entry)
            except ValidationError as exc:
                return None, f"{draft.name}: {exc.errors()[0]['msg']}"
        return config, None

    def collect(self, draft: Draft) -> None:
        if self.source is None or self.source.read.problem is not None:
            return  # nothing to save: a broken file stays exactly as it is
        config, problem = self.edited_config()
        if problem:
            draft.problems[PROBLEM_KEY] = problem
        self._pending = config

    def show_problems(self, problems: Mapping[str, str]) -> set[str]:
        if PROBLEM_KEY in problems:
            self.message.setText(problems[PROBLEM_KEY])
            set_role(self.message, "error")
            return {PROBLEM_KEY}
        return set()

    def clear_problems(self) -> None:
        set_role(self.message, "")
        self.message.clear()

    def after_save(self, draft: Draft, stored_in: KeyStorage | None) -> str | None:
        config = self._pending
        if self.source is None or config is None or config.dump() == self._loaded.dump():
            return None  # unchanged: the file is not rewritten
        try:
            self.source.save(config)
        except ConfigChanged:
            return (
                "mcp.json was changed outside Deskhand since this page opened, so the "
                "connectors were not saved. Press Reload to see the changes, then edit again."
            )
        except OSError as exc:
            return f"Couldn't save the connectors: {exc.strerror or exc}."
        self._load()
        return None

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

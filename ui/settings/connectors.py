"""Settings → Connectors: the MCP servers Claude may use, each with its status.

The page edits a draft of `mcp.json` like every page edits its settings: nothing is written
until Save, and only when something changed. A file that cannot be read is shown with what
is wrong and is not editable here (so Save can never overwrite it); Reload reads it again.
The Restart button and the status column act on the saved config, live.

A connector reached by URL that signs in is added by its own sheet (ui/sheets/sign_in.py),
which saves it at once once signed in (nothing half-saved); its row says whether it is signed
in, with a button to sign in (again) or out (ui/settings/sign_in_rows.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.calls.sources.mcp import remote
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
    SettingsPage,
    hint_label,
    push_button,
    set_role,
)
from ui.settings.server_editor import ServerDraft, ServerEditor
from ui.settings.sign_in_rows import (
    AGAIN_TIP,
    BUTTON,
    REMOVED,
    REVOKED,
    SIGN_IN_AGAIN,
    SIGNED_IN,
    SIGNED_OUT,
    SignInRows,
    ask_remove,
    ask_sign_out,
    sign_in_status,
    sign_in_words,
)
from ui.sheets.sign_in import SignInSheet

NAME, ON, TRUSTED, STATUS, SIGN_IN = range(5)
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
        self.sheet: SignInSheet | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.sign_ins = SignInRows(self.source, self.refresh_status)

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

        self.table = QTableWidget(0, 5)
        self.table.setObjectName("serversTable")
        self.table.setHorizontalHeaderLabels(["Server", "On", "Trusted", "Status", ""])
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

        self.add = push_button("Add command", self.add_server, "A server run on this computer")
        self.add_url = push_button(
            "Add by URL…", self.add_by_url, "A remote server; it may ask you to sign in"
        )
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
        for button in (self.add_url, self.add, self.remove, self.restart):
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

        self._unsubscribe = self.source.subscribe(self._source_changed) if self.source else None
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
        for editing in (self.table, self.add, self.add_url, self.remove, self.editor, self.lazy):
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
            button = push_button("", self._sign_in_button(draft.saved))
            button.setObjectName("signInButton")
            button.hide()
            self.table.setCellWidget(row, SIGN_IN, button)
        self._filling = False
        self.sign_ins.refresh()
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
            tip = status.problem
            signing = sign_in_status(self.sign_ins.get(draft.saved)) if saved else None
            if signing is not None and text != WAITING and not draft.entry.get("disabled"):
                if signing != SIGNED_IN or status.state is not ServerState.FAILED:
                    # The sign-in says more than the server's state, which moves to the tip.
                    tip = AGAIN_TIP if signing == SIGN_IN_AGAIN else text
                    text = sign_in_words(self.sign_ins.rows[str(draft.saved)])
            else:
                signing = None
            item.setText(text)
            item.setToolTip(tip)
            button = self.table.cellWidget(row, SIGN_IN)
            if button is not None:
                button.setVisible(signing is not None)
                if isinstance(button, QPushButton) and signing is not None:
                    button.setText(BUTTON[signing])
        self.table.resizeColumnToContents(SIGN_IN)  # a button's words changed its width
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
        if not 0 <= row < len(self.drafts):
            return
        saved = self.drafts[row].saved
        entry = self.source.entry(saved) if self.source is not None and saved else None
        if saved is not None and entry is not None and entry.oauth:
            # Its sign-in is revoked and forgotten with it: never left behind in the keychain.
            ask_remove(self, saved, lambda: self._in_background(self._remove_signed(saved)))
            return
        del self.drafts[row]
        self._editing = None
        self._fill()

    async def _remove_signed(self, name: str) -> None:
        assert self.source is not None
        try:
            revoked = await remote.remove(self.source, name)
        except remote.ConnectorProblem as problem:
            self.message.setText(problem.message)
            return
        self._keep_editor()
        self._loaded = self._loaded.model_copy(deep=True)
        self._loaded.servers.pop(name, None)
        self.drafts = [d for d in self.drafts if d.saved != name]
        self._editing = None
        self._fill()
        self.message.setText(REMOVED.format(name=name) + (REVOKED if revoked else ""))

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

    def _source_changed(self) -> None:
        self.refresh_status()
        self.sign_ins.refresh()

    def add_by_url(self) -> None:
        """The sheet that adds a remote connector, signing in if it asks; saved at once."""
        if self.source is None:
            return
        self._keep_editor()
        self.sheet = SignInSheet(self.source, self, taken={d.name for d in self.drafts})
        self.sheet.signed_in.connect(self._added)
        self.sheet.start()

    def _added(self, name: str) -> None:
        """The sheet saved `name`: the page's draft and what it compares with hold it too, so
        Save neither drops it nor rewrites the file for it."""
        entry = self.source.entry(name) if self.source is not None else None
        if entry is not None and name not in self._loaded.servers:
            self._keep_editor()
            self._loaded = self._loaded.model_copy(deep=True)
            self._loaded.servers[name] = entry
            self.drafts.append(ServerDraft(name=name, entry=entry.dump(), saved=name))
            self._editing = None
            self._fill()
            self.table.selectRow(len(self.drafts) - 1)
        self.message.setText(f"Added “{name}”.")

    def _sign_in_button(self, name: str | None) -> Callable[[], None]:
        return lambda: self.sign_in_or_out(name)

    def sign_in_or_out(self, name: str | None) -> None:
        """A row's button: sign out (asked first) when signed in, else the sign-in sheet."""
        if self.source is None or name is None:
            return
        if sign_in_status(self.sign_ins.get(name)) == SIGNED_IN:
            ask_sign_out(self, name, lambda: self._in_background(self._sign_out(name)))
            return
        self.sheet = SignInSheet(self.source, self, name=name)
        self.sheet.signed_in.connect(lambda: self.message.setText(f"Signed in to “{name}”."))
        self.sheet.start()

    async def _sign_out(self, name: str) -> None:
        assert self.source is not None
        try:
            revoked = await remote.sign_out(self.source, name)
        except remote.ConnectorProblem as problem:
            self.message.setText(problem.message)
            return
        self.message.setText(SIGNED_OUT.format(name=name) + (REVOKED if revoked else ""))

    def _in_background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
        self.sign_ins.stop()
        if self.sheet is not None and self.sheet.isVisible():
            self.sheet.reject()  # a sign-in under way stops; nothing is kept
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

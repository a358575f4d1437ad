"""The main window: session sidebar, the chat thread, the composer and the status line.

It turns what the person does into calls on the workspace (`agent.run_turn` as an
asyncio task, Stop as cancelling that task, Retry as `agent.continue_turn`) and routes
the agent's events to the thread of the session they belong to. Nothing here blocks:
turns run as tasks on the qasync loop, and dialogs are opened with `open()`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.approvals import ApprovalRequest
from desktop.browser_setup import find_browser
from desktop.conversations import ConversationEvent, TurnRunning
from desktop.events import MessageCommitted, TurnFinished, Usage
from desktop.permissions import MODE_TITLES, Mode
from desktop.workspace import Workspace
from ui import composer, markdown_view, session_list, thread_items, thread_view, tool_card
from ui.approval_sheet import ApprovalSheet
from ui.browser_download import BrowserDownloadDialog
from ui.composer import Composer
from ui.own_windows import own_window_rects
from ui.screen_overlay import ScreenVisualizer
from ui.session_list import SessionList
from ui.thread_view import ThreadView

log = logging.getLogger(__name__)

APP_NAME = "Deskhand"
# Views of recently visited sessions are kept so that switching back is instant and keeps
# error cards; views of sessions with a running turn are never dropped.
MAX_CACHED_VIEWS = 8


def usage_text(model: str | None, usage: Usage | None) -> str:
    """The status line: model, tokens in/out and cache reads of the last turn."""
    if usage is None:
        return f"{model}  ·  no tokens used yet" if model else "No tokens used yet"
    parts = [
        model or "unknown model",
        f"{usage.input_tokens:,} tokens in  /  {usage.output_tokens:,} out",
        f"{usage.cache_read_input_tokens:,} cache read",
    ]
    if usage.cache_creation_input_tokens:
        parts.append(f"{usage.cache_creation_input_tokens:,} cache write")
    return "  ·  ".join(parts)


class NoticeBanner(QFrame):
    """Something the person should know at start (a history moved aside...); dismissable."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noticeBanner")
        self.label = QLabel(text)
        self.label.setObjectName("noticeBannerText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setObjectName("noticeBannerClose")
        close.setText("✕")
        close.setToolTip("Dismiss")
        close.clicked.connect(self.deleteLater)
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(14, 8, 8, 8)
        self.row.addWidget(self.label, 1)
        self.row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)


class MainWindow(QMainWindow):
    """Deskhand's window onto one `Workspace`."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.setWindowTitle(APP_NAME)
        self.resize(1120, 760)
        self.setMinimumSize(640, 420)
        self.current_session_id: int | None = None
        self.settings_dialog: QDialog | None = None
        self._views: OrderedDict[int, ThreadView] = OrderedDict()
        self._draft: ThreadView | None = None
        self._first_run_checked = False
        self.download_task: asyncio.Future[bool] | None = None

        self.sessions = SessionList(workspace.store)
        self.sessions.new_chat_requested.connect(self.new_chat)
        self.sessions.session_activated.connect(self.open_session)
        self.sessions.rename_requested.connect(self.rename_session)
        self.sessions.delete_requested.connect(self.delete_session)
        settings_button = QPushButton("⚙  Settings")
        settings_button.setObjectName("sidebarSettings")
        settings_button.clicked.connect(lambda: self.open_settings())
        sidebar = QWidget()
        sidebar.setObjectName("sidebar")
        sidebar_layout = QVBoxLayout(sidebar)
        sidebar_layout.setContentsMargins(0, 0, 0, 10)
        sidebar_layout.addWidget(self.sessions, 1)
        sidebar_layout.addWidget(settings_button, 0, Qt.AlignmentFlag.AlignLeft)

        self.banners = QVBoxLayout()
        self.banners.setContentsMargins(16, 0, 16, 0)
        self.stack = QStackedWidget()
        self.composer = Composer()
        self.composer.submitted.connect(self._submit)
        self.composer.stop_requested.connect(self.stop)
        main = QWidget()
        main.setObjectName("mainPane")
        main_layout = QVBoxLayout(main)
        main_layout.setContentsMargins(0, 0, 0, 0)
        main_layout.setSpacing(0)
        main_layout.addLayout(self.banners)
        main_layout.addWidget(self.stack, 1)
        composer_row = QHBoxLayout()
        composer_row.setContentsMargins(20, 8, 20, 14)
        composer_row.addWidget(self.composer)
        main_layout.addLayout(composer_row)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("mainSplitter")
        # Qt widens handles narrower than 5 px over their neighbours to keep them
        # grabbable; overlapped, the thread could no longer scroll by shifting pixels.
        splitter.setHandleWidth(5)
        splitter.addWidget(sidebar)
        splitter.addWidget(main)
        splitter.setCollapsible(1, False)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([260, 860])
        self.setCentralWidget(splitter)

        self.usage_label = QLabel()
        self.usage_label.setObjectName("usageLabel")
        self.statusBar().addWidget(self.usage_label, 1)
        self._build_menu()
        self._build_toolbar()
        self.setStyleSheet(STYLE)

        self.approval_sheet: ApprovalSheet | None = None
        self.conversations = workspace.conversations
        self._unsubscribe = [
            workspace.approvals.subscribe(self.show_approval),
            self.conversations.subscribe(self._on_conversation),
        ]
        # Screen control never acts on these windows; the visualizer shows what it does.
        workspace.toolbox.screen.own_windows = own_window_rects
        self.visualizer = ScreenVisualizer(workspace, self)

        for notice in workspace.notices:
            self.banners.addWidget(NoticeBanner(notice))
        self.browser_banner: NoticeBanner | None = None
        self.browser_download: BrowserDownloadDialog | None = None
        self._offer_browser_if_missing()
        self.sessions.refresh()
        self.new_chat()

    def _build_toolbar(self) -> None:
        toolbar = QToolBar("Permissions")
        toolbar.setObjectName("modeToolbar")
        toolbar.setMovable(False)
        label = QLabel("Permissions:")
        label.setObjectName("modeLabel")
        self.mode_box = QComboBox()
        self.mode_box.setObjectName("modeBox")
        self.mode_box.setToolTip(
            "Ask every time: every action asks.\nAsk for changes: reading runs, anything else asks."
            "\nAutonomous: only actions that send, delete, pay or run code ask."
        )
        for mode, title in MODE_TITLES.items():
            self.mode_box.addItem(title, mode.value)
        self._show_mode()
        self.mode_box.currentIndexChanged.connect(self._mode_chosen)
        toolbar.addWidget(label)
        toolbar.addWidget(self.mode_box)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)

    def _show_mode(self) -> None:
        self.mode_box.blockSignals(True)
        self.mode_box.setCurrentIndex(max(self.mode_box.findData(self.workspace.mode.value), 0))
        self.mode_box.blockSignals(False)

    def _mode_chosen(self, index: int) -> None:
        self.workspace.set_mode(Mode(self.mode_box.itemData(index)))
        self.statusBar().showMessage(f"Permissions: {self.mode_box.currentText()}", 3000)

    # -- browser --------------------------------------------------------------------

    def _offer_browser_if_missing(self) -> None:
        browser = self.workspace.settings.browser
        if not browser.enabled or find_browser(browser.executable_path.strip() or None) is not None:
            return
        self.browser_banner = NoticeBanner(
            "Claude can use a browser for you, but none was found on this computer. "
            "Download Chromium (about 170 MB), or install Google Chrome."
        )
        button = QPushButton("Download Chromium…")
        button.setObjectName("browserDownloadButton")
        button.clicked.connect(self.offer_browser_download)
        self.browser_banner.row.insertWidget(1, button)
        self.banners.addWidget(self.browser_banner)

    def offer_browser_download(self) -> None:
        """The download offer with its progress bar; the banner goes once a browser is there."""
        dialog = BrowserDownloadDialog(self)
        dialog.succeeded.connect(self._browser_downloaded)
        self.browser_download = dialog
        self.download_task = asyncio.ensure_future(dialog.ask())

    def _browser_downloaded(self) -> None:
        if self.browser_banner is not None and shiboken6.isValid(self.browser_banner):
            self.browser_banner.deleteLater()
        self.browser_banner = None
        self.statusBar().showMessage("Chromium is ready: Claude can use the browser.", 5000)

    # -- approvals ------------------------------------------------------------------

    def show_approval(self, request: ApprovalRequest) -> None:
        """The approval queue's viewer: the queue picks which request shows; this shows it."""
        sheet = ApprovalSheet(request, request.call.label or request.call.rule_key, self)
        sheet.finished.connect(lambda _result: self._approval_closed(sheet))
        self.approval_sheet = sheet
        sheet.open()

    def _approval_closed(self, sheet: ApprovalSheet) -> None:
        if self.approval_sheet is sheet:
            self.approval_sheet = None

    def _build_menu(self) -> None:
        menu = self.menuBar().addMenu("&File")
        new_chat = QAction("&New Chat", self)
        new_chat.setShortcut(QKeySequence.StandardKey.New)
        new_chat.triggered.connect(self.new_chat)
        settings = QAction("&Settings…", self)
        settings.setShortcut(QKeySequence("Ctrl+,"))
        settings.setMenuRole(QAction.MenuRole.PreferencesRole)
        settings.triggered.connect(lambda: self.open_settings())
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        quit_action.triggered.connect(self.close)
        menu.addAction(new_chat)
        menu.addSeparator()
        menu.addAction(settings)
        menu.addSeparator()
        menu.addAction(quit_action)
        self.settings_action = settings

    # -- views ----------------------------------------------------------------------

    @property
    def thread(self) -> ThreadView:  # type: ignore[override]  # QObject.thread(), unused here
        """The thread the person is looking at."""
        view = self.stack.currentWidget()
        assert isinstance(view, ThreadView)
        return view

    def view_for(self, session_id: int) -> ThreadView | None:
        return self._views.get(session_id)

    def _make_view(self, session_id: int | None) -> ThreadView:
        view = ThreadView(session_id)
        view.retry_requested.connect(self.retry)
        view.settings_requested.connect(lambda: self.open_settings())
        view.allow_host_requested.connect(
            lambda host, always: self.allow_host(view.session_id, host, always)
        )
        self.stack.addWidget(view)
        return view

    def _show(self, view: ThreadView, session_id: int | None) -> None:
        self.stack.setCurrentWidget(view)
        self.current_session_id = session_id
        self.sessions.select(session_id)
        self.composer.set_running(self.conversations.is_running(session_id))
        session = self.workspace.store.session(session_id) if session_id is not None else None
        self.setWindowTitle(f"{session.title} — {APP_NAME}" if session else APP_NAME)
        self._drop_old_views()

    def _drop_old_views(self) -> None:
        idle = [
            sid
            for sid in self._views
            if sid != self.current_session_id and not self.conversations.is_running(sid)
        ]
        for sid in idle[: max(0, len(self._views) - MAX_CACHED_VIEWS)]:
            self._discard_view(sid)

    def _discard_view(self, session_id: int) -> None:
        view = self._views.pop(session_id, None)
        if view is not None:
            self.stack.removeWidget(view)
            view.deleteLater()

    def new_chat(self) -> None:
        """An empty thread; the session is created when the first message is sent."""
        if self._draft is None:
            self._draft = self._make_view(None)
        self._show(self._draft, None)
        self._show_usage(self.workspace.settings.model.model, None)
        self.composer.editor.setFocus()

    def open_session(self, session_id: int) -> None:
        view = self._views.get(session_id)
        if view is None:
            if self.workspace.store.session(session_id) is None:
                self.sessions.refresh()
                return
            view = self._make_view(session_id)
            view.load(self.workspace.transcript(session_id))
            view.set_busy(self.conversations.is_running(session_id))
            self._views[session_id] = view
        else:
            self._views.move_to_end(session_id)
        self._show(view, session_id)
        model, usage = self.workspace.store.last_usage(session_id)
        self._show_usage(model or self.workspace.settings.model.model, usage)

    def rename_session(self, session_id: int, title: str) -> None:
        self.workspace.store.rename_session(session_id, title)
        self.sessions.refresh()
        if session_id == self.current_session_id and (
            session := self.workspace.store.session(session_id)
        ):
            self.setWindowTitle(f"{session.title} — {APP_NAME}")

    def delete_session(self, session_id: int) -> None:
        """Delete a session (the list has already asked); a running reply is stopped first."""
        self._discard_view(session_id)
        if session_id == self.current_session_id:
            self.new_chat()
        deleting = self.conversations.delete(session_id)
        deleting.add_done_callback(lambda _done: self._deleted())
        self.sessions.refresh()

    def _deleted(self) -> None:
        if shiboken6.isValid(self):
            self.sessions.refresh()

    # -- turns ----------------------------------------------------------------------

    @property
    def turn_task(self) -> asyncio.Task[None] | None:
        """The newest turn (tests wait on it)."""
        return self.conversations.latest

    def _submit(self, text: str) -> None:
        if self.send(text):
            self.composer.clear()

    def send(self, text: str) -> bool:
        """Send a message in the current session (creating it if needed); False if refused."""
        if not text.strip() or self.conversations.is_running(self.current_session_id):
            return False  # while a reply runs here, the button is Stop
        if self.current_session_id is None:
            session_id = self.conversations.create_session()
            view = self._draft or self._make_view(None)
            self._draft = None
            view.session_id = session_id
            self._views[session_id] = view
            self.current_session_id = session_id
        session_id = self.current_session_id
        self.conversations.send(session_id, text)
        self._show(self._views[session_id], session_id)
        self.sessions.refresh()
        return True

    def retry(self, session_id: int) -> None:
        """Answer the stored history again (Retry on an error card)."""
        self.conversations.retry(session_id)

    def stop(self) -> None:
        """Stop the reply running in the current session; its partial text stays."""
        self.conversations.stop(self.current_session_id)

    def is_running(self, session_id: int | None = None) -> bool:
        return self.conversations.is_running(
            self.current_session_id if session_id is None else session_id
        )

    def _on_conversation(self, event: ConversationEvent) -> None:
        """Route each event to the thread of its session; a turn's start and end set the busy
        state of the thread and the composer."""
        if not shiboken6.isValid(self):
            return  # the window is gone; the agent has already saved what matters
        # Hidden threads of running sessions keep rendering, so switching back shows
        # the reply as it stands; sessions without a view only refresh the sidebar.
        view = self._views.get(event.session_id)
        if isinstance(event, TurnRunning):
            if view is not None:
                if not event.running:
                    view.turn_ended(stopped=event.stopped)
                view.set_busy(event.running)
            if event.session_id == self.current_session_id:
                self.composer.set_running(event.running)
            if not event.running:
                self.sessions.refresh()
                self._drop_old_views()
            return
        if view is not None:
            view.handle(event)
        if isinstance(event, MessageCommitted):
            self.sessions.refresh()  # titles and order change as messages land
        elif isinstance(event, TurnFinished) and event.session_id == self.current_session_id:
            self._show_usage(event.model, event.usage)

    def _show_usage(self, model: str | None, usage: Usage | None) -> None:
        self.usage_label.setText(usage_text(model, usage))

    def allow_host(self, session_id: int | None, host: str, always: bool) -> None:
        """The person lets the browser reach a host it refused: in this chat, or always."""
        try:
            allowed = self.workspace.allow_host(host, None if always else session_id)
        except ValueError:
            self.statusBar().showMessage(f"Couldn't allow {host}: the browser is off.", 5000)
            return
        where = "from now on" if always else "in this chat"
        self.statusBar().showMessage(
            f"The browser may now reach {allowed} {where}. Ask Claude to try again.", 8000
        )

    # -- settings and start-up ------------------------------------------------------

    def open_settings(self, page: str = "model", *, welcome: bool = False) -> None:
        """Open the Settings dialog (non-blocking) on `page`."""
        if self.settings_dialog is not None and shiboken6.isValid(self.settings_dialog):
            if self.settings_dialog.isVisible():
                self.settings_dialog.raise_()
                self.settings_dialog.activateWindow()
                return
        try:
            from ui.settings import SettingsDialog  # loaded when first needed
        except ModuleNotFoundError as exc:
            if exc.name != "ui.settings" and not (exc.name or "").startswith("ui.settings."):
                raise
            log.warning("the settings dialog is not available")
            self.statusBar().showMessage("Settings are not available in this build.", 5000)
            return
        dialog = SettingsDialog(self.workspace, self, page=page, welcome=welcome)
        dialog.saved.connect(self._settings_saved)
        self.settings_dialog = dialog
        dialog.open()

    def _settings_saved(self, *_args: object) -> None:
        self._show_mode()
        if self.current_session_id is None:
            self._show_usage(self.workspace.settings.model.model, None)
        self.statusBar().showMessage("Settings saved.", 3000)

    def first_run_check(self) -> None:
        """Without an API key nothing works: open Settings on its Model page, with a welcome."""
        if not self.workspace.has_key():
            self.open_settings("model", welcome=True)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._first_run_checked:
            self._first_run_checked = True
            # After the window is on screen, so the dialog opens over it.
            QTimer.singleShot(0, self, self.first_run_check)

    async def shutdown(self) -> None:
        """On quit: stop running replies and wait until their partial text is saved."""
        if self.download_task is not None:
            self.download_task.cancel()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self.visualizer.close()
        await self.conversations.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:
        # Stopping keeps the partial replies in the store, marked as stopped.
        for session_id in self.conversations.running:
            self.conversations.stop(session_id)
        super().closeEvent(event)


_WINDOW_STYLE = """
#sidebar { background: #f5f6f8; }
#mainPane { background: #ffffff; }
#mainSplitter::handle { background: #f5f6f8; border-right: 1px solid #e3e6ea; }
#sidebarSettings {
    background: transparent; border: none; color: #57606a; padding: 6px 14px; text-align: left;
}
#sidebarSettings:hover { color: #1f2328; }
#noticeBanner {
    background: #fff8e6; border: 1px solid #f3d58b; border-radius: 8px; margin-top: 10px;
}
#noticeBannerText { color: #4d3b00; }
#noticeBannerClose { border: none; background: transparent; color: #7a6400; }
#usageLabel { color: #57606a; padding-left: 6px; }
#modeToolbar { background: #ffffff; border-bottom: 1px solid #e3e6ea; spacing: 6px; padding: 2px 10px; }
#modeLabel { color: #57606a; }
"""

STYLE = "\n".join(
    [
        _WINDOW_STYLE,
        session_list.STYLE,
        thread_items.STYLE,
        thread_view.STYLE,
        markdown_view.STYLE,
        tool_card.STYLE,
        composer.STYLE,
    ]
)

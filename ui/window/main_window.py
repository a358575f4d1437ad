"""The main window: session sidebar, the chat thread, the composer, the toolbar (permission
mode, model) and the status line, with its menus (ui/window/menus.py) and tray icon.

It turns what the person does into calls on the conversations (send, retry, regenerate,
edit, switch versions, continue, stop) and routes their events to the thread of the session they belong
to. Nothing here blocks: turns run as tasks on the qasync loop, and dialogs are opened
with `open()`. A long turn that ends while the window is in the background posts a
desktop notification.
"""

from __future__ import annotations

import asyncio
import logging
from functools import cached_property
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.sources.plan.book import PLAN_TOOL
from desktop.chat.attachments import Attachment
from desktop.chat.conversations import ConversationEvent, HistoryReplaced, TurnRunning
from desktop.chat.events import MessageCommitted, TurnFailed, TurnFinished
from desktop.routines import SCHEDULE_ACTION
from desktop.system import heavy
from desktop.system.usage import Usage
from desktop.workspace import Workspace
from ui import theme
from ui.first_paint import first_paint
from ui.screen.own_windows import own_window_rects
from ui.screen.visualizer import ScreenVisualizer
from ui.sheets.outside_watch import OutsideWatch
from ui.thread import items as thread_items
from ui.thread.view import ThreadView
from ui.window import tab_order
from ui.window.banners import BrowserOffer, NoticeBanner
from ui.window.composer import Composer, takes_drop
from ui.window.menus import build_menus
from ui.window.plan_chip import PlanChip
from ui.window.session_list import Sidebar
from ui.window.settings_opener import SettingsOpener
from ui.window.style import STYLE
from ui.window.thread_stack import ThreadStack
from ui.window.toolbar import WindowToolbar

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDialog, QMessageBox

    from ui.routines.page_host import RoutinePages
    from ui.routines.runs import RoutineRuns
    from ui.routines.waiting import WaitingChats
    from ui.routines.window_parts import WindowRoutines
    from ui.sheets.approval import ApprovalSheet
    from ui.sheets.plan import PlanSheet
    from ui.sheets.schedule import ScheduleSheet
    from ui.window.chat_export import ChatExport
    from ui.window.help_dialogs import ShortcutsDialog
    from ui.window.routine_files import RoutineFiles
    from ui.window.staying_up import StayingUp
    from ui.window.tray import LongTurns, Tray

log = logging.getLogger(__name__)

APP_NAME = "Deskhand"
SIDEBAR_SHARE = 0.3  # the most of a narrow window the chat list takes
# What the window's routines need, loaded on `heavy`'s thread after the first paint.
ROUTINE_MODULES = (*heavy.ROUTINES, "ui.routines.window_parts")
# What a reply's text needs (its Markdown view and code highlighting), loaded there too.
REPLY_MODULES = ("ui.thread.markdown.view",)


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


class MainWindow(QMainWindow):
    """Deskhand's window onto one `Workspace`."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.setWindowTitle(APP_NAME)
        self.resize(1120, 760)
        self.setMinimumSize(640, 420)
        self.current_session_id: int | None = None
        self.settings = SettingsOpener(self, workspace, self._settings_saved)
        self._first_run_checked = False
        self._first_run: asyncio.Future[None] | None = None
        self.setAcceptDrops(True)  # files dropped anywhere on the window are attached

        self.sidebar = Sidebar(workspace.store)
        self.sidebar.settings_requested.connect(lambda: self.open_settings())
        self.sessions = self.sidebar.sessions
        self.sessions.new_chat_requested.connect(self.new_chat)
        self.sessions.session_activated.connect(self.open_session)
        self.sessions.rename_requested.connect(self.rename_session)
        self.sessions.delete_requested.connect(self.delete_session)
        self.sessions.save_routine_requested.connect(lambda sid: self.routine_files.save(sid))

        self.banners = QVBoxLayout()
        self.banners.setContentsMargins(16, 0, 16, 0)
        self.stack = ThreadStack(self._make_view)
        self.composer = Composer(attacher=workspace.conversations)
        self.composer.submitted.connect(self._submit)
        self.composer.stop_requested.connect(self.stop)
        main = QWidget()
        main.setObjectName("mainPane")
        main_layout = QVBoxLayout(main)
        main_layout.setContentsMargins(0, 0, 0, 0)
        main_layout.setSpacing(0)
        main_layout.addLayout(self.banners)
        main_layout.addWidget(self.stack, 1)
        self.plan_chip = PlanChip(workspace.plans)  # the chat's plan, while it lasts
        chip_row = QHBoxLayout()
        chip_row.setContentsMargins(20, 6, 20, 0)
        chip_row.addWidget(self.plan_chip)
        chip_row.addStretch(1)
        main_layout.addLayout(chip_row)
        composer_row = QHBoxLayout()
        composer_row.setContentsMargins(20, 8, 20, 14)
        composer_row.addWidget(self.composer)
        main_layout.addLayout(composer_row)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("mainSplitter")
        # Qt widens handles narrower than 5 px over their neighbours to keep them
        # grabbable; overlapped, the thread could no longer scroll by shifting pixels.
        splitter.setHandleWidth(5)
        splitter.addWidget(self.sidebar)
        self.pages = QStackedWidget()  # the chat, or a routine's page (ui/routines/page_host.py)
        self.pages.addWidget(main)
        splitter.addWidget(self.pages)
        splitter.setCollapsible(1, False)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([260, 860])
        self.splitter = splitter
        self.setCentralWidget(splitter)

        self.usage_label = QLabel()
        self.usage_label.setObjectName("usageLabel")
        self.statusBar().addWidget(self.usage_label, 1)
        self.menu_actions = build_menus(self)
        self.settings_action = self.menu_actions["open_settings"]
        self.export_action = self.menu_actions["export_chat"]
        self.copy_reply_action = self.menu_actions["copy_last_reply"]
        self.stop_action = self.menu_actions["stop"]
        self.stop_action.setEnabled(False)
        self.sidebar_action = self.menu_actions["set_sidebar_visible"]
        if not workspace.settings.window.sidebar_visible:  # folded when Deskhand last ran
            self.set_sidebar_visible(False)
        self.shortcuts_dialog: ShortcutsDialog | None = None
        self.about_box: QMessageBox | None = None
        self._build_toolbar()
        theme.theme().follow(workspace)
        theme.theme().attach(self, STYLE)
        self._hand_task: asyncio.Future[None] | None = None  # Take over / Hand back under way
        # What settings fixed is judged against what was in force before (see _settings_changed).
        self._key_changes = workspace.keys.changes
        self._model_seen = workspace.settings.model.model

        self.approval_sheet: ApprovalSheet | PlanSheet | ScheduleSheet | None = None
        self.conversations = workspace.conversations
        workspace.live.listeners.append(self._settings_changed)
        self._unsubscribe = [
            workspace.approvals.subscribe(self.show_approval),
            self.conversations.subscribe(self._on_conversation),
            lambda: workspace.live.listeners.remove(self._settings_changed),
            lambda: workspace.browser_hand.listeners.remove(self._browser_hand_changed),
        ]
        workspace.browser_hand.listeners.append(self._browser_hand_changed)
        # Screen control never acts on these windows; the visualizer shows what it does (made
        # with the window: it must hear the screen's first event, whenever that comes).
        workspace.screen_hooks.own_windows = own_window_rects
        self.visualizer = ScreenVisualizer(workspace, self)
        # Permission settings and connectors changed outside Deskhand wait for the person.
        self.outside_watch = OutsideWatch(workspace, self)

        for notice in workspace.notices:
            self.banners.addWidget(NoticeBanner(notice))
        self.browser_offer = BrowserOffer(workspace, self.banners, self, self.statusBar())
        self._routines: WindowRoutines | None = None  # made after the first paint
        self.sessions.refresh()
        self.new_chat()

    def _build_toolbar(self) -> None:
        self.toolbar = WindowToolbar(self.workspace, self.statusBar(), self)
        self.mode_box = self.toolbar.mode_box
        self.mode_run_label = self.toolbar.mode_run_label
        self.model_picker = self.toolbar.model_picker
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)

    def _settings_changed(self, settings: object) -> None:
        """Any change of settings (this window, the Settings dialog): the picker follows, and
        errors the change fixed stop reading as current."""
        if not shiboken6.isValid(self):
            return
        model = self.workspace.settings.model.model
        self.model_picker.set_current(model)
        if self.current_session_id is None:
            self._show_usage(model, None)
        keys = self.workspace.keys
        fixes: list[tuple[set[str], str]] = []
        if keys.changes != self._key_changes and keys.get():
            fixes.append(({"no_key"}, "Your API key is saved. Press Retry to send your message."))
            fixes.append(({"auth"}, "A new API key is saved. Press Retry to try it."))
        if model != self._model_seen:
            fixes.append(
                ({"model_not_found", "permission"}, f"Now using {model}. Press Retry to try it.")
            )
        self._key_changes, self._model_seen = keys.changes, model
        for view in self.stack.all_views():
            for kinds, note in fixes:
                view.resolve_errors(kinds, note)

    # -- approvals ------------------------------------------------------------------

    def show_approval(self, request: ApprovalRequest) -> None:
        """The approval queue's viewer: the queue picks which request shows; this shows it."""
        from ui.sheets.approval import ApprovalSheet
        from ui.sheets.plan import PlanSheet
        from ui.sheets.schedule import ScheduleSheet

        sheet: ApprovalSheet | PlanSheet | ScheduleSheet
        if request.call.action == SCHEDULE_ACTION:  # "Run NAME on schedule, within …"
            sheet = ScheduleSheet(request, self)
        elif request.note == PLAN_TOOL:
            sheet = PlanSheet(request, self)
        else:
            sheet = ApprovalSheet(request, request.call.label or request.call.rule_key, self)
        sheet.finished.connect(lambda _result: self._approval_closed(sheet))
        self.approval_sheet = sheet
        sheet.open()

    def _approval_closed(self, sheet: ApprovalSheet | PlanSheet | ScheduleSheet) -> None:
        if self.approval_sheet is sheet:
            self.approval_sheet = None

    # -- window commands (see ui/window/menus.py) -----------------------------------

    def attach_files(self) -> None:
        self.composer.choose_files()

    def set_sidebar_visible(self, visible: bool) -> None:
        """View → Show Sidebar: the chat list folds away, leaving the whole width to the chat
        (and stays so at the next start)."""
        self.sidebar.setVisible(visible)
        self.workspace.live.set_sidebar_visible(visible)
        if self.sidebar_action.isChecked() != visible:
            self.sidebar_action.setChecked(visible)

    def focus_search(self) -> None:
        self.set_sidebar_visible(True)
        self.sessions.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.sessions.search.selectAll()

    def jump_to_latest(self) -> None:
        self.thread.jump_to_latest()

    def open_chat_number(self, number: int) -> None:
        """Ctrl/Cmd+1…9: the chat at that place in the sidebar, top first."""
        ids = self.sessions.session_ids()
        if 1 <= number <= len(ids):
            self.open_session(ids[number - 1])

    def show_shortcuts(self) -> ShortcutsDialog:
        from ui.window.help_dialogs import ShortcutsDialog

        if self.shortcuts_dialog is None:
            self.shortcuts_dialog = ShortcutsDialog(self)
        self.shortcuts_dialog.open()
        return self.shortcuts_dialog

    def show_about(self) -> QMessageBox:
        from ui.window.help_dialogs import about_box

        self.about_box = about_box(self)
        return self.about_box

    def toggle_browser_hand(self, session_id: int) -> None:
        """Take over / Hand back the chat's browser (its card's button)."""
        self._hand_task = asyncio.ensure_future(self.workspace.browser_hand.toggle(session_id))

    def _browser_hand_changed(self, session_id: int, taken: bool) -> None:
        view = self.stack.view_of(session_id)
        if view is not None and shiboken6.isValid(view):
            view.set_browser_hand(taken)

    def show_notice(self, text: str) -> None:
        """Something the person should know now (the quick entry shortcut is taken, say)."""
        self.banners.addWidget(NoticeBanner(text))

    def bring_to_front(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()

    def notification_clicked(self, session_id: int | None = None) -> None:
        """The person clicked the notification of a finished reply (by default the newest):
        that chat, in front."""
        if not shiboken6.isValid(self):
            return
        if session_id is None:
            session_id = self.long_turns.notifier.session_id
        if session_id is not None and self.workspace.store.session(session_id) is not None:
            self.open_session(session_id)
        self.bring_to_front()

    def _new_chat_from_tray(self) -> None:
        self.bring_to_front()
        self.new_chat()

    # -- views ----------------------------------------------------------------------

    @property
    def thread(self) -> ThreadView:  # type: ignore[override]  # QObject.thread(), unused here
        """The thread the person is looking at."""
        return self.stack.current()

    def _make_view(self, session_id: int | None) -> ThreadView:
        view = ThreadView(session_id)
        view.retry_requested.connect(self.retry)
        view.settings_requested.connect(lambda: self.open_settings())
        view.allow_host_requested.connect(
            lambda host, always: self.allow_host(view.session_id, host, always)
        )
        view.edit_requested.connect(self.edit_message)
        view.regenerate_requested.connect(self.regenerate)
        view.continue_requested.connect(self.continue_reply)
        view.version_requested.connect(self.use_version)
        view.browser_hand_requested.connect(self.toggle_browser_hand)
        view.save_routine_requested.connect(lambda sid: self.routine_files.save(sid))
        view.set_browser_hand(
            session_id is not None and self.workspace.browser_hand.has_it(session_id)
        )
        return view

    def _show(self, view: ThreadView, session_id: int | None) -> None:
        self.pages.setCurrentIndex(0)  # the chat, in place of a routine's page
        self.stack.setCurrentWidget(view)
        self.current_session_id = session_id
        self.plan_chip.show_session(session_id)
        self.sessions.select(session_id)
        self._set_running(self.conversations.is_running(session_id))
        self._update_title()
        self.stack.drop_old(self.current_session_id, self.conversations.is_running)

    def _set_running(self, running: bool) -> None:
        self.composer.set_running(running)
        self.stop_action.setEnabled(running)  # Esc stops only while there is a reply to stop

    def _update_title(self) -> None:
        """The window's title is the chat's (as the sidebar and the task switcher show it)."""
        sid = self.current_session_id
        session = self.workspace.store.session(sid) if sid is not None else None
        title = f"{session.title} — {APP_NAME}" if session else APP_NAME
        if self.windowTitle() != title:
            self.setWindowTitle(title)

    def new_chat(self) -> None:
        """An empty thread; the session is created when the first message is sent."""
        self._show(self.stack.draft(), None)
        self._show_usage(self.workspace.settings.model.model, None)
        self.composer.editor.setFocus()

    def open_session(self, session_id: int) -> None:
        view = self.stack.revisited(session_id)
        if view is None:
            if self.workspace.store.session(session_id) is None:
                self.sessions.refresh()
                return
            view = self.stack.opened(session_id)
            view.load(self.workspace.transcript(session_id))
            view.set_busy(self.conversations.is_running(session_id))
            self._offer_turn_actions(session_id)
        self._show(view, session_id)
        # A scheduled run waiting for the person: opening its chat shows its sheet.
        if self.workspace.routines_built():
            self.workspace.unattended.show(session_id)
        model, usage = self.workspace.store.last_usage(session_id)
        self._show_usage(model or self.workspace.settings.model.model, usage)

    def rename_session(self, session_id: int, title: str) -> None:
        self.workspace.store.rename_session(session_id, title)
        self.sessions.refresh()
        self._update_title()

    def delete_session(self, session_id: int) -> None:
        """Delete a session (the list has already asked); a running reply is stopped first."""
        self.stack.discard(session_id)
        if session_id == self.current_session_id:
            self.new_chat()
        deleting = self.conversations.delete(session_id)
        deleting.add_done_callback(lambda _done: self._deleted())
        self.sessions.refresh()

    def _deleted(self) -> None:
        if shiboken6.isValid(self):
            self.sessions.refresh()

    # -- turns ----------------------------------------------------------------------

    def _submit(self, text: str) -> None:
        if self.send(text, self.composer.attachments()):
            self.composer.clear()

    def send(self, text: str, attached: list[Attachment] | None = None) -> bool:
        """Send a message in the current session (creating it if needed); False if refused."""
        if (not text.strip() and not attached) or self.conversations.is_running(
            self.current_session_id
        ):
            return False  # while a reply runs here, the button is Stop
        if self.current_session_id is None:
            session_id = self.conversations.create_session()
            self.stack.adopt_draft(session_id)
            self.current_session_id = session_id
        session_id = self.current_session_id
        self.conversations.send(session_id, text, attached or [])
        view = self.stack.view_of(session_id)
        assert view is not None
        self._show(view, session_id)
        self.sessions.refresh()
        return True

    def retry(self, session_id: int) -> None:
        """Answer the stored history again (Retry on an error card)."""
        self.conversations.retry(session_id)

    def stop(self) -> None:
        """Stop the reply running in the current session; its partial text stays."""
        self.conversations.stop(self.current_session_id)

    def regenerate(self, session_id: int) -> None:
        """Answer the last message again (the earlier answer stays as a version)."""
        self.conversations.regenerate(session_id)

    def edit_message(self, session_id: int, message_id: int, text: str) -> None:
        """Resend an edited message; what followed it stays as the earlier version."""
        self.conversations.edit(session_id, message_id, text)

    def use_version(self, session_id: int, message_id: int) -> None:
        """Make an earlier version of a message current again (the current one is kept)."""
        if self.conversations.use_version(session_id, message_id):
            self._offer_turn_actions(session_id)
            if session_id == self.current_session_id:
                model, usage = self.workspace.store.last_usage(session_id)
                self._show_usage(model or self.workspace.settings.model.model, usage)

    def continue_reply(self, session_id: int) -> None:
        self.conversations.continue_reply(session_id)

    def _offer_turn_actions(self, session_id: int) -> None:
        view = self.stack.view_of(session_id)
        if view is not None:
            regenerate = self.conversations.can_regenerate(session_id)
            continue_ = self.conversations.can_continue(session_id)
            # A task that finished (not one cut short) can be saved as a routine.
            routine = regenerate and not continue_
            view.set_turn_actions(regenerate=regenerate, continue_=continue_, routine=routine)

    def copy_last_reply(self) -> bool:
        """Copy Claude's newest answer in this chat, as Markdown; False when there is none."""
        text = self.thread.last_reply_text()
        if not text:
            self.statusBar().showMessage("There is no reply to copy yet.", 3000)
            return False
        thread_items.copy_text(text)
        self.statusBar().showMessage("Copied the last reply.", 3000)
        return True

    def export_chat(self) -> None:
        """Ask where, then write the chat as Markdown with its images beside it."""
        self.chat_export.choose(self.current_session_id)

    # -- dropped files ----------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if takes_drop(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if self.composer.attach_dropped(event.mimeData()):
            event.acceptProposedAction()

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
        view = self.stack.view_of(event.session_id)
        if isinstance(event, HistoryReplaced):
            if view is not None:
                view.reload(self.workspace.transcript(event.session_id))
            return
        if isinstance(event, TurnRunning):
            if view is not None:
                if not event.running:
                    view.turn_ended(stopped=event.stopped)
                view.set_busy(event.running)
            if event.session_id == self.current_session_id:
                self._set_running(event.running)
            if event.running:
                self.long_turns.started(event.session_id)
            else:
                self._offer_turn_actions(event.session_id)
                self.sessions.refresh()
                self.stack.drop_old(self.current_session_id, self.conversations.is_running)
                self.long_turns.ended(event.session_id, stopped=event.stopped)
            return
        if view is not None:
            view.handle(event)
        if isinstance(event, TurnFailed):
            self.long_turns.failed(event.session_id, event.title)
        if isinstance(event, MessageCommitted):
            self.sessions.refresh()  # titles and order change as messages land
            self._update_title()
        elif isinstance(event, TurnFinished) and event.session_id == self.current_session_id:
            self._show_usage(event.model, event.usage)

    def _title_of(self, session_id: int) -> str:
        session = self.workspace.store.session(session_id)
        return session.title if session else APP_NAME

    def _last_reply_of(self, session_id: int) -> str:
        view = self.stack.view_of(session_id)
        return view.last_reply_text() if view is not None else ""

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
        self.settings.open(page, welcome=welcome)

    @property
    def settings_dialog(self) -> QDialog | None:
        return self.settings.dialog

    def _settings_saved(self) -> None:
        self.toolbar.settings_saved()
        self.statusBar().showMessage("Settings saved.", 3000)

    async def first_run_check(self) -> None:
        await self.settings.first_run_check()

    async def _check_after_first_paint(self) -> None:
        # Once the window is painted: the check neither holds up the first picture, and the
        # dialog opens over the window.
        await first_paint(self)
        self._after_first_paint()
        await self.first_run_check()

    def _after_first_paint(self) -> None:
        """What the first picture does not show, made right after it: the tray icon and the
        long-turn notices."""
        self.long_turns  # noqa: B018  (made now: the tray icon comes with it)

    @cached_property
    def tray(self) -> Tray:
        from ui.window.tray import Tray

        tray = Tray(QApplication.windowIcon(), self)
        tray.new_chat.connect(self._new_chat_from_tray)
        tray.show_window.connect(self.bring_to_front)
        tray.quit.connect(lambda: self.staying_up.quit())
        tray.message_clicked.connect(lambda: self.notification_clicked())
        return tray

    @cached_property
    def long_turns(self) -> LongTurns:
        from ui.window.tray import LongTurns, Notifier

        return LongTurns(
            Notifier(self.tray, clicked=self.notification_clicked),
            seen=self.isActiveWindow,
            title_of=self._title_of,
            reply_of=self._last_reply_of,
        )

    @cached_property
    def chat_export(self) -> ChatExport:
        from ui.window.chat_export import ChatExport

        return ChatExport(self.workspace, self, self.statusBar())

    @cached_property
    def routine_files(self) -> RoutineFiles:
        from ui.window.routine_files import RoutineFiles

        return RoutineFiles(self.workspace, self, self.statusBar(), lambda: self.current_session_id)

    def add_routines(self) -> WindowRoutines:
        """The window's routines (the sidebar's section, the pages, the waiting bar, the tray's
        hold on Quit): made by the app right after the first paint, once their modules are in,
        or here on first use."""
        if self._routines is None:
            heavy.wait(ROUTINE_MODULES)  # the one place those modules are imported
            from ui.routines.window_parts import WindowRoutines

            self._routines = WindowRoutines(self)
            self._unsubscribe.append(self._routines.close)
        return self._routines

    @property
    def routine_runs(self) -> RoutineRuns:
        """The sidebar's routines, their runs and updates."""
        return self.add_routines().runs

    @property
    def routine_pages(self) -> RoutinePages:
        return self.add_routines().pages

    @property
    def waiting_chats(self) -> WaitingChats:
        """Scheduled runs that wait for the person."""
        return self.add_routines().waiting

    @property
    def staying_up(self) -> StayingUp:
        """The tray while routines are scheduled; Quit asks."""
        return self.add_routines().staying_up

    def _stays_up(self) -> bool:
        """Closing keeps Deskhand running: a routine is scheduled. Closed before the window's
        routines were made (at once after the launch), only the schedules are asked."""
        if self._routines is None and not self.workspace.scheduler.scheduled_count():
            return False
        return self.staying_up.keeps_running()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._routines is not None:
            self._routines.staying_up.shown()
        if not self._first_run_checked:
            self._first_run_checked = True
            self._first_run = asyncio.ensure_future(self._check_after_first_paint())

    async def shutdown(self) -> None:
        """On quit: stop running replies and wait until their partial text is saved."""
        self.browser_offer.cancel()
        if self._first_run is not None:
            self._first_run.cancel()
        self.toolbar.cancel_loading()
        if shiboken6.isValid(self.outside_watch):  # gone already if the window was deleted
            self.outside_watch.stop()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        made = vars(self)  # what was never made has nothing to close (and is not made now)
        if "tray" in made and shiboken6.isValid(self.tray.icon):  # gone if the window was
            self.tray.icon.hide()
        self.visualizer.close()
        if "long_turns" in made:
            await self.long_turns.notifier.close()
        await self.conversations.shutdown()

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab follows the window's reading order, whenever its parts were made."""
        return tab_order.move_focus(self, next) or super().focusNextPrevChild(next)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # In a narrow window the chat keeps most of the width; the list gives some up.
        widest = max(self.sidebar.minimumWidth(), int(event.size().width() * SIDEBAR_SHARE))
        sizes = self.splitter.sizes()
        if self.sidebar.isVisible() and sizes[0] > widest:
            self.splitter.setSizes([widest, sum(sizes) - widest])

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._stays_up():  # a routine is scheduled: hidden in the tray
            event.ignore()
            return
        # Stopping keeps the partial replies in the store, marked as stopped.
        for session_id in self.conversations.running:
            self.conversations.stop(session_id)
        super().closeEvent(event)

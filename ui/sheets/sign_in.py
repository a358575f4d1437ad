"""The sheet that adds a connector by URL, or signs one in (again): Settings → Connectors.

What it walks through, one page at a time:

1. the form (Add): a name, the server's URL (Streamable HTTP), optional scopes; a client id and
   secret appear only when the server registers no apps itself (the core's `needs_client_id`);
2. "Reaching the server…" while the core finds out whether and where to sign in;
3. what the person signs in to: the server, the authorization server's host, the scopes.
   Only Continue lets the core open the person's default browser;
4. "Waiting for you to sign in in your browser…", with Cancel.

A failure brings the form back with the core's own sentence (never an exception's text), and
nothing was added. The work is `desktop.calls.sources.mcp.remote`; this file only shows it.
Opened with `open()`, never `exec()`.
"""

from __future__ import annotations

import asyncio
import logging
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.calls.sources.mcp import remote
from desktop.calls.sources.mcp.config import name_problem
from desktop.calls.sources.mcp.remote import ConnectorProblem, SignInProblem, SignInSummary
from desktop.calls.sources.mcp.source import McpSource
from ui.boxes import STRETCH, boxed
from ui.sheets.approval import plain_label

log = logging.getLogger(__name__)

SHEET_WIDTH = 500
FORM, REACHING, SUMMARY, WAITING = range(4)

ADD_TITLE = "Add a connector by URL"
ADD_INTRO = (
    "A remote MCP server (Streamable HTTP). If it asks you to sign in, you will see where "
    "before anything opens."
)
SIGN_IN_TITLE = "Sign in to “{name}”"
REACHING_WORDS = "Reaching {url}…"
SUMMARY_TITLE = "Sign in to “{name}”?"
SUMMARY_NOTE = (
    "Continue opens the sign-in page in your default browser. What the server gives Deskhand "
    "is kept in your keychain (or Deskhand's private file), never where Claude can read it."
)
DEFAULT_SCOPES = "what the server gives by default"
WAITING_WORDS = "Waiting for you to sign in in your browser…"
WAITING_NOTE = "Finish in the browser window that opened. This stops after 5 minutes."
CLIENT_NOTE = "Only needed when the server does not register apps itself."
UNEXPECTED = "The sign-in did not work (something unexpected went wrong); nothing was added."


def sheet_title(text: str, name: str) -> QLabel:
    title = plain_label(text, name)
    font = title.font()
    font.setPointSizeF(font.pointSizeF() * 1.2)
    font.setBold(True)
    title.setFont(font)
    return title


def busy() -> QProgressBar:
    """A bar that says something is under way, for as long as it takes."""
    bar = QProgressBar()
    bar.setRange(0, 0)
    bar.setTextVisible(False)
    bar.setMaximumHeight(8)
    return bar


def scopes_of(text: str) -> list[str]:
    """Scopes as typed: separated by spaces or commas."""
    return [scope for scope in re.split(r"[\s,]+", text) if scope]


class SignInSheet(QDialog):
    """Add a connector by URL (`name` None), or sign the connector `name` in (again)."""

    signed_in = Signal(str)  # the connector's name, once added or signed in

    def __init__(
        self,
        source: McpSource,
        parent: QWidget | None = None,
        *,
        name: str | None = None,
        taken: set[str] | None = None,
    ) -> None:
        super().__init__(parent)
        self.source = source
        self.existing = name  # None: adding
        self.taken = taken or set()  # names the page holds, saved or not
        self.row: remote.ConnectorRow | None = None
        self._task: asyncio.Task[None] | None = None
        self._decision: asyncio.Future[bool] | None = None
        self.setObjectName("signInSheet")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        entry = source.entry(name) if name is not None else None
        self.setWindowTitle(SIGN_IN_TITLE.format(name=name) if name else ADD_TITLE)

        # One page shown at a time, in a box (a stacked widget would keep the tallest's height).
        self.pages: list[QWidget] = []
        self._current = FORM
        self.pages.append(self._form_page(name, entry.url if entry else None))
        self.reaching = sheet_title("", "signInReaching")
        self.pages.append(self._page(self.reaching, busy()))
        self.summary_title = sheet_title("", "signInTitle")
        self.summary_server = plain_label("", "signInServer")
        self.summary_host = plain_label("", "signInHost")
        self.summary_scopes = plain_label("", "signInAsked")
        self.pages.append(
            self._page(
                self.summary_title,
                self.summary_server,
                self.summary_host,
                self.summary_scopes,
                plain_label(SUMMARY_NOTE, "signInNote", muted=True),
            )
        )
        self.waiting = sheet_title(WAITING_WORDS, "signInWaiting")
        self.pages.append(self._page(self.waiting, busy(), plain_label(WAITING_NOTE, muted=True)))

        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.reject)
        self.go_button = QPushButton("Sign in" if name else "Add")
        self.go_button.setObjectName("signInGo")
        self.go_button.setDefault(True)
        self.go_button.clicked.connect(self._go)
        self.continue_button = QPushButton("Continue")
        self.continue_button.setObjectName("signInContinue")
        self.continue_button.clicked.connect(lambda: self._decide(True))
        buttons = boxed(
            QHBoxLayout(), STRETCH, self.cancel_button, self.go_button, self.continue_button
        )
        body = QWidget()
        body.setFixedWidth(SHEET_WIDTH)
        boxed(QVBoxLayout(body), *self.pages, margins=(0, 0, 0, 0))
        layout = boxed(QVBoxLayout(self), body, buttons)
        # As tall as the page shown: a waiting sheet shrinks to its few lines.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)
        self.finished.connect(self._closed)
        self._show(FORM)

    # -- pages -------------------------------------------------------------------------

    def _page(self, *widgets: QWidget) -> QWidget:
        page = QWidget()
        boxed(QVBoxLayout(page), *widgets, STRETCH, margins=(0, 0, 0, 0))
        return page

    def _form_page(self, name: str | None, url: str | None) -> QWidget:
        self.name = QLineEdit(name or "")
        self.name.setObjectName("signInName")
        self.name.setPlaceholderText("notes")
        self.url = QLineEdit(url or "")
        self.url.setObjectName("signInUrl")
        self.url.setPlaceholderText("https://example.com/mcp")
        self.scopes = QLineEdit()
        self.scopes.setObjectName("signInScopes")
        self.scopes.setPlaceholderText("Optional: the server's default if empty")
        self.client_id = QLineEdit()
        self.client_id.setObjectName("signInClientId")
        self.client_secret = QLineEdit()
        self.client_secret.setObjectName("signInClientSecret")
        self.client_secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.client_secret.setPlaceholderText("Optional")
        self.problem = plain_label("", "signInProblem")
        self.problem.setProperty("role", "error")
        self.problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problem.hide()

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        if name is None:
            form.addRow("Name", self.name)
            form.addRow("URL", self.url)
            form.addRow("Scopes", self.scopes)
        form.addRow("Client id", self.client_id)
        form.addRow("Client secret", self.client_secret)
        self._form = form
        self.show_client_fields(False)
        title = SIGN_IN_TITLE.format(name=name) if name else ADD_TITLE
        intro = ADD_INTRO if name is None else f"{url or ''}"
        page = QWidget()
        boxed(
            QVBoxLayout(page),
            sheet_title(title, "signInFormTitle"),
            plain_label(intro, "signInIntro", muted=True),
            form,
            self.problem,
            STRETCH,
            margins=(0, 0, 0, 0),
        )
        return page

    def show_client_fields(self, shown: bool) -> None:
        for field in (self.client_id, self.client_secret):
            self._form.setRowVisible(field, shown)
        if shown:
            self.client_id.setToolTip(CLIENT_NOTE)

    @property
    def page(self) -> int:
        return self._current

    def _show(self, page: int) -> None:
        self._current = page
        for index, widget in enumerate(self.pages):
            widget.setVisible(index == page)
        self.go_button.setVisible(page == FORM)
        self.continue_button.setVisible(page == SUMMARY)
        self.continue_button.setDefault(page == SUMMARY)
        self.go_button.setDefault(page == FORM)
        self.adjustSize()

    # -- running -----------------------------------------------------------------------

    def start(self) -> None:
        """Open the sheet; one that signs an existing connector in starts at once."""
        self.open()
        if self.existing is not None:
            self._go()

    def _go(self) -> None:
        if self._task is not None and not self._task.done():
            return
        if self.existing is None:
            problem = name_problem(self.name.text().strip(), self.taken)
            if problem is not None:
                self._failed(problem)
                return
        self.problem.hide()
        self.reaching.setText(REACHING_WORDS.format(url=self._url()))
        self._show(REACHING)
        self._task = asyncio.ensure_future(self._run())

    def _url(self) -> str:
        if self.existing is not None:
            entry = self.source.entry(self.existing)
            return (entry.url or "") if entry is not None else ""
        return self.url.text().strip()

    async def _run(self) -> None:
        client_id = self.client_id.text().strip() or None
        secret = (self.client_secret.text() or None) if client_id else None
        try:
            if self.existing is not None:
                self.row = await remote.sign_in(
                    self.source,
                    self.existing,
                    confirm=self._confirm,
                    client_id=client_id,
                    client_secret=secret,
                )
            else:
                self.row = await remote.add(
                    self.source,
                    self.name.text().strip(),
                    self._url(),
                    confirm=self._confirm,
                    scopes=scopes_of(self.scopes.text()),
                    client_id=client_id,
                    client_secret=secret,
                )
        except (SignInProblem, ConnectorProblem) as problem:
            if problem.code == "not_confirmed":
                self.reject()  # Cancel on the summary: nothing more to say
                return
            if problem.code == "needs_client_id":
                self.show_client_fields(True)
            self._failed(problem.message)
            return
        except Exception:  # the sheet must not hang on "Waiting…" whatever went wrong
            log.exception("a connector's sign-in failed unexpectedly")
            self._failed(UNEXPECTED)
            return
        self.signed_in.emit(self.row.name)
        self.accept()

    async def _confirm(self, summary: SignInSummary) -> bool:
        """The core asks before the browser opens: the person reads where they sign in."""
        name = self.existing or self.name.text().strip()
        self.summary_title.setText(SUMMARY_TITLE.format(name=name))
        self.summary_server.setText(f"Server: {summary.server}")
        self.summary_host.setText(f"You sign in at: {summary.auth_host}")
        scopes = ", ".join(summary.scopes) if summary.scopes else DEFAULT_SCOPES
        self.summary_scopes.setText(f"Access asked for: {scopes}")
        self._decision = asyncio.get_running_loop().create_future()
        self._show(SUMMARY)
        self.continue_button.setFocus()
        return await self._decision

    def _decide(self, going: bool) -> None:
        if self._decision is not None and not self._decision.done():
            self._decision.set_result(going)
            if going:
                self._show(WAITING)  # now: the browser opens as soon as the core goes on

    def _failed(self, message: str) -> None:
        self.problem.setText(message)
        self.problem.show()
        self.go_button.setText("Try again" if self.existing else "Add")
        self._show(FORM)

    def _closed(self, _result: int) -> None:
        self._decide(False)
        if self._task is not None and not self._task.done():
            self._task.cancel()  # the core closes its listener; nothing was kept

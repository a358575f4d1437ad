"""Settings → Connectors with connectors that sign in, on the real Settings dialog against a
local OAuth-protected MCP server (tests/support/oauth_server.py), the stand-in browser as
`$BROWSER` (tests/support/standin_browser.py): the sheet's words before the browser opens,
the row's state (signed in with its expiry, "Sign in again" after a revoked grant, "Not signed
in" after signing out), and a bad URL that adds nothing."""

from __future__ import annotations

import json
import socket
import time
import webbrowser
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QDialogButtonBox,
    QMessageBox,
    QPushButton,
    QWidget,
)

from desktop.calls.sources.mcp.sign_ins import FILE_NAME
from desktop.workspace import Workspace
from tests.support import mcp_servers
from tests.support.oauth_server import OAuthServer
from tests.support.standin_browser import browser_command
from tests.support.waiting import wait_until
from ui.settings import SettingsDialog
from ui.settings.connectors import NAME, SIGN_IN, STATUS, ConnectorsPage
from ui.settings.sign_in_rows import expiry
from ui.sheets.sign_in import FORM, SUMMARY, WAITING, SignInSheet

LEFT = Qt.MouseButton.LeftButton
AGAIN = "Sign in again: the sign-in was revoked or could not be renewed"


@pytest.fixture
def server() -> Iterator[OAuthServer]:
    with OAuthServer() as running:
        yield running


@pytest.fixture
def browsed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The stand-in browser is the person's default browser; returns the log of what it opened."""
    log = tmp_path / "opened.log"
    monkeypatch.setenv("BROWSER", browser_command(tmp_path))
    monkeypatch.setenv("STANDIN_BROWSER_LOG", str(log))
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # read $BROWSER again, as a new app does
    return log


@pytest.fixture
def page(qtbot, workspace: Workspace, aloop, browsed: Path) -> Iterator[ConnectorsPage]:  # type: ignore[no-untyped-def]
    mcp_servers.write_approved(workspace.toolbox.mcp, {"mcpServers": {}})
    aloop.run_until_complete(workspace.toolbox.start())
    dialog = SettingsDialog(workspace, page="connectors")
    qtbot.addWidget(dialog)

    async def opening() -> None:
        dialog.open()

    aloop.run_until_complete(opening())
    yield cast(ConnectorsPage, dialog.page("connectors"))
    aloop.run_until_complete(workspace.toolbox.close())


def click(qtbot, aloop, widget: QWidget) -> None:  # type: ignore[no-untyped-def]
    """A click inside the running loop, as every click in the app is: what it starts may
    await threads and connections at once."""

    async def clicking() -> None:
        qtbot.mouseClick(widget, LEFT)

    aloop.run_until_complete(clicking())


def settle(aloop, predicate, what: str) -> None:  # type: ignore[no-untyped-def]
    aloop.run_until_complete(wait_until(predicate, 20, what))


def status(page: ConnectorsPage, row: int = 0) -> str:
    item = page.table.item(row, STATUS)
    return item.text() if item is not None else ""


def row_button(page: ConnectorsPage, row: int = 0) -> QPushButton:
    return cast(QPushButton, page.table.cellWidget(row, SIGN_IN))


def sheet(page: ConnectorsPage) -> SignInSheet:
    assert page.sheet is not None
    return page.sheet


def saved(workspace: Workspace) -> dict[str, Any]:
    return dict(json.loads(workspace.paths.mcp_config.read_text()))


def opened(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def kept_expiry(workspace: Workspace) -> float:
    kept = workspace.paths.mcp_config.with_name(FILE_NAME)
    return float(json.loads(kept.read_text())["notes"]["expires_at"])


def signed_in_words(workspace: Workspace) -> str:
    return f"Signed in · expires {expiry(kept_expiry(workspace))}"


def add_notes(qtbot, aloop, page: ConnectorsPage, url: str, scopes: str = "") -> SignInSheet:  # type: ignore[no-untyped-def]
    """Add by URL as the person does, up to the sheet that says where they sign in."""
    click(qtbot, aloop, page.add_url)
    adding = sheet(page)
    assert adding.isVisible() and adding.page == FORM
    adding.name.setText("notes")
    adding.url.setText(url)
    adding.scopes.setText(scopes)
    click(qtbot, aloop, adding.go_button)
    settle(
        aloop,
        lambda: adding.page == SUMMARY or adding.problem.isVisible() or not adding.isVisible(),
        "the summary (or the sheet's answer)",
    )
    return adding


def continue_and_wait(qtbot, aloop, page: ConnectorsPage, signing: SignInSheet) -> None:  # type: ignore[no-untyped-def]
    click(qtbot, aloop, signing.continue_button)
    assert signing.page == WAITING
    assert signing.waiting.text() == "Waiting for you to sign in in your browser…"
    settle(aloop, lambda: not signing.isVisible(), "the sign-in")
    settle(aloop, lambda: status(page).startswith("Signed in"), "the row's state")


def test_adding_shows_where_you_sign_in_before_the_browser_opens_then_the_row_is_signed_in(  # type: ignore[no-untyped-def]
    qtbot, aloop, workspace: Workspace, server: OAuthServer, page: ConnectorsPage, browsed: Path
) -> None:
    adding = add_notes(qtbot, aloop, page, server.url, scopes="notes.read, notes.write")

    assert [
        adding.summary_title.text(),
        adding.summary_server.text(),
        adding.summary_host.text(),
        adding.summary_scopes.text(),
    ] == [
        "Sign in to “notes”?",
        f"Server: {server.url}",
        f"You sign in at: 127.0.0.1:{server.port}",
        "Access asked for: notes.read, notes.write",
    ]
    assert opened(browsed) == [] and page.table.rowCount() == 0  # nothing yet, until Continue
    assert adding.continue_button.isVisible() and not adding.go_button.isVisible()

    continue_and_wait(qtbot, aloop, page, adding)

    [url] = opened(browsed)
    assert url.startswith(f"{server.base}/authorize?")
    assert page.table.item(0, NAME).text() == "notes"
    assert status(page) == signed_in_words(workspace)
    assert kept_expiry(workspace) > time.time() + 3000
    assert row_button(page).isVisible() and row_button(page).text() == "Sign out"
    assert page.message.text() == "Added “notes”."
    entry = {"url": server.url, "oauth": True, "scopes": ["notes.read", "notes.write"]}
    assert saved(workspace) == {"mcpServers": {"notes": entry}}
    source = workspace.toolbox.mcp
    settle(aloop, lambda: source.status("notes").state.value == "ready", "the connector")
    assert status(page) == signed_in_words(workspace)  # the server's status did not hide it
    dialog = cast(SettingsDialog, page.window())
    click(qtbot, aloop, dialog.button(QDialogButtonBox.StandardButton.Save))
    assert saved(workspace) == {"mcpServers": {"notes": entry}}  # Save keeps what the sheet added


def test_a_revoked_grant_says_sign_in_again_and_signing_in_again_works(  # type: ignore[no-untyped-def]
    qtbot, aloop, workspace: Workspace, server: OAuthServer, page: ConnectorsPage, browsed: Path
) -> None:
    continue_and_wait(qtbot, aloop, page, add_notes(qtbot, aloop, page, server.url))
    source = workspace.toolbox.mcp
    settle(aloop, lambda: source.status("notes").state.value == "ready", "the connector")

    server.revoke_all()  # on the server's side: the next start cannot renew the token
    click(qtbot, aloop, page.restart)
    settle(aloop, lambda: status(page) == AGAIN, "Sign in again")

    assert row_button(page).text() == "Sign in again"
    assert len(opened(browsed)) == 1  # no browser opened on its own
    click(qtbot, aloop, row_button(page))
    again = sheet(page)
    settle(aloop, lambda: again.page == SUMMARY, "the summary")
    assert again.windowTitle() == "Sign in to “notes”"
    assert again.summary_title.text() == "Sign in to “notes”?"
    assert again.summary_server.text() == f"Server: {server.url}"
    continue_and_wait(qtbot, aloop, page, again)

    assert status(page) == signed_in_words(workspace)
    assert row_button(page).text() == "Sign out"
    assert page.message.text() == "Signed in to “notes”."
    assert len(opened(browsed)) == 2
    settle(aloop, lambda: source.status("notes").state.value == "ready", "started again")


def test_signing_out_asks_first_then_revokes_and_forgets(  # type: ignore[no-untyped-def]
    qtbot, aloop, workspace: Workspace, server: OAuthServer, page: ConnectorsPage
) -> None:
    continue_and_wait(qtbot, aloop, page, add_notes(qtbot, aloop, page, server.url))
    record = workspace.toolbox.mcp.sign_ins.load("notes")
    assert record is not None and record.tokens is not None

    def asked() -> QMessageBox:
        click(qtbot, aloop, row_button(page))
        [box] = [b for b in page.findChildren(QMessageBox, "signInQuestion") if b.isVisible()]
        return box

    def press(box: QMessageBox, text: str) -> None:
        [button] = [b for b in box.buttons() if b.text() == text]
        click(qtbot, aloop, cast(QAbstractButton, button))

    box = asked()
    assert (box.text(), box.informativeText()) == (
        "Sign out of “notes”?",
        "Deskhand forgets this connector's sign-in, and asks the server to revoke it where the "
        "server offers that. Claude can't use its tools until you sign in again.",
    )
    press(box, "Cancel")
    assert status(page) == signed_in_words(workspace) and server.revoked == []

    press(asked(), "Sign out")
    settle(aloop, lambda: status(page) == "Not signed in", "signed out")

    assert row_button(page).text() == "Sign in"
    assert page.message.text() == "Signed out of “notes”. The server revoked the sign-in."
    assert record.tokens["refresh_token"] in server.revoked
    assert workspace.toolbox.mcp.sign_ins.load("notes") is None
    assert list(saved(workspace)["mcpServers"]) == ["notes"]  # still there, to sign in again


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "ftp://example.com/mcp",
            "“ftp://example.com/mcp” is not a web address: give the server's http:// or "
            "https:// URL.",
        ),
        (
            "{base}/nothing-here",
            "No MCP server answered at {base}/nothing-here. Check the URL (a Streamable HTTP "
            "endpoint, often ending in /mcp).",
        ),
    ],
)
def test_a_bad_url_shows_its_message_and_adds_nothing(  # type: ignore[no-untyped-def]
    qtbot,
    aloop,
    workspace: Workspace,
    server: OAuthServer,
    page: ConnectorsPage,
    browsed: Path,
    url: str,
    message: str,
) -> None:
    adding = add_notes(qtbot, aloop, page, url.format(base=server.base))

    assert adding.isVisible() and adding.page == FORM
    assert adding.problem.text() == message.format(base=server.base)
    assert page.table.rowCount() == 0 and saved(workspace) == {"mcpServers": {}}
    assert opened(browsed) == []
    assert not workspace.paths.mcp_config.with_name(FILE_NAME).exists()


def test_expiry_says_the_time_today_and_the_day_otherwise() -> None:
    noon = time.mktime((2026, 12, 2, 12, 0, 0, 0, 0, -1))
    assert expiry(noon + 2 * 3600 + 5 * 60, now=noon) == "14:05"
    assert expiry(noon + 13 * 3600, now=noon) == "3 Dec 01:00"


@pytest.fixture
def no_registration() -> Iterator[OAuthServer]:
    with OAuthServer(dynamic_registration=False) as running:
        running.add_client("deskhand-by-hand")
        yield running


def test_a_server_that_registers_no_apps_asks_for_a_client_id(  # type: ignore[no-untyped-def]
    qtbot, aloop, workspace: Workspace, no_registration: OAuthServer, page: ConnectorsPage
) -> None:
    adding = add_notes(qtbot, aloop, page, no_registration.url)

    assert adding.page == FORM and adding.problem.text() == (
        f"The authorization server of {no_registration.url} does not register apps itself. "
        "Give the client id (and secret, if any) you registered for Deskhand there."
    )
    assert adding.client_id.isVisible() and adding.client_secret.isVisible()
    assert page.table.rowCount() == 0
    adding.client_id.setText("deskhand-by-hand")
    click(qtbot, aloop, adding.go_button)
    settle(aloop, lambda: adding.page == SUMMARY, "the summary")
    continue_and_wait(qtbot, aloop, page, adding)

    assert status(page) == signed_in_words(workspace)
    record = workspace.toolbox.mcp.sign_ins.load("notes")
    assert record is not None and record.client is not None
    assert record.client["client_id"] == "deskhand-by-hand"


def test_cancel_while_waiting_for_the_browser_adds_nothing_and_closes_the_listener(  # type: ignore[no-untyped-def]
    qtbot,
    aloop,
    workspace: Workspace,
    server: OAuthServer,
    page: ConnectorsPage,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    log = tmp_path / "left-open.log"
    idle = tmp_path / "idle-browser"  # opens the page; the person never finishes
    idle.write_text(f'#!/bin/sh\necho "$1" >> "{log}"\n')
    idle.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(idle))
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    adding = add_notes(qtbot, aloop, page, server.url)
    click(qtbot, aloop, adding.continue_button)
    settle(aloop, lambda: log.exists(), "the browser")
    [url] = log.read_text().splitlines()
    redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
    assert adding.page == WAITING and adding.isVisible()

    click(qtbot, aloop, adding.cancel_button)
    settle(aloop, lambda: adding._task is not None and adding._task.done(), "the sign-in stops")

    assert not adding.isVisible()
    assert page.table.rowCount() == 0 and saved(workspace) == {"mcpServers": {}}
    assert not workspace.paths.mcp_config.with_name(FILE_NAME).exists()
    port = urlsplit(redirect).port
    assert port is not None
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_removing_a_connector_that_signs_in_asks_then_revokes_and_forgets_at_once(  # type: ignore[no-untyped-def]
    qtbot, aloop, workspace: Workspace, server: OAuthServer, page: ConnectorsPage
) -> None:
    continue_and_wait(qtbot, aloop, page, add_notes(qtbot, aloop, page, server.url))
    record = workspace.toolbox.mcp.sign_ins.load("notes")
    assert record is not None and record.tokens is not None
    page.table.selectRow(0)

    click(qtbot, aloop, page.remove)
    [box] = [b for b in page.findChildren(QMessageBox, "signInQuestion") if b.isVisible()]
    assert box.text() == "Remove “notes”?"
    [remove] = [b for b in box.buttons() if b.text() == "Remove"]
    click(qtbot, aloop, cast(QAbstractButton, remove))
    settle(aloop, lambda: page.table.rowCount() == 0, "removed")

    assert page.message.text() == "Removed “notes”. The server revoked the sign-in."
    assert saved(workspace) == {"mcpServers": {}}
    assert record.tokens["refresh_token"] in server.revoked
    assert workspace.toolbox.mcp.sign_ins.load("notes") is None
    dialog = cast(SettingsDialog, page.window())
    click(qtbot, aloop, dialog.button(QDialogButtonBox.StandardButton.Save))
    assert saved(workspace) == {"mcpServers": {}}


def test_a_server_that_asks_for_no_sign_in_is_added_without_a_browser(  # type: ignore[no-untyped-def]
    qtbot, aloop, workspace: Workspace, page: ConnectorsPage, browsed: Path
) -> None:
    with OAuthServer(auth=False) as open_server:
        adding = add_notes(qtbot, aloop, page, open_server.url)
        settle(aloop, lambda: status(page) == "Ready · 3 tools", "the connector")

        assert saved(workspace) == {"mcpServers": {"notes": {"url": open_server.url}}}
        assert not adding.isVisible() and not row_button(page).isVisible()
        assert opened(browsed) == [] and page.message.text() == "Added “notes”."
        aloop.run_until_complete(workspace.toolbox.close())


def test_a_signed_in_rows_tip_says_the_servers_state(  # type: ignore[no-untyped-def]
    qtbot, aloop, workspace: Workspace, server: OAuthServer, page: ConnectorsPage
) -> None:
    continue_and_wait(qtbot, aloop, page, add_notes(qtbot, aloop, page, server.url))
    item = page.table.item(0, STATUS)
    settle(aloop, lambda: item.toolTip() == "Ready · 3 tools", "the server's state in the tip")
    assert status(page) == signed_in_words(workspace)


def test_a_connector_that_signs_in_keeps_its_name_and_url(  # type: ignore[no-untyped-def]
    qtbot, aloop, workspace: Workspace, server: OAuthServer, page: ConnectorsPage
) -> None:
    continue_and_wait(qtbot, aloop, page, add_notes(qtbot, aloop, page, server.url))
    page.table.selectRow(0)

    editor = page.editor
    assert editor.name.isReadOnly() and editor.url.isReadOnly()
    assert not editor.kind.isEnabled() and not editor.headers.isVisible()
    assert editor.url.toolTip() == (
        "This connector signs in: its sign-in belongs to this name and this address. To use "
        "another, remove it and add it again by URL."
    )
    click(qtbot, aloop, page.add)  # a command server's fields are all there again
    assert not editor.name.isReadOnly() and editor.kind.isEnabled()

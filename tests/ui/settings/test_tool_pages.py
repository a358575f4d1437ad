"""Settings → Browser and Settings → Apps."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QDialogButtonBox

from desktop.workspace import Workspace
from ui.settings import SettingsDialog
from ui.settings.apps import AppsPage
from ui.settings.browser import BrowserPage


def test_browser_page_saves_sites_and_members_and_names_the_browser(
    qtbot, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    dialog = SettingsDialog(workspace, page="browser")
    qtbot.addWidget(dialog)
    dialog.open()
    page = dialog.page("browser")
    assert isinstance(page, BrowserPage)
    assert "Deskhand will use" in page.found.text() or "Install one with" in page.found.text()
    page.form.field("browser.headless").set_field_value(True)  # type: ignore[attr-defined]
    page.form.field("browser.allow_hosts").set_field_value("intranet.example, 127.0.0.1")  # type: ignore[attr-defined]
    page.form.field("browser.javascript_exec").set_field_value(True)  # type: ignore[attr-defined]
    with qtbot.waitSignal(dialog.saved):
        dialog.button(QDialogButtonBox.StandardButton.Save).click()
    browser = Workspace.open(workspace.paths.root).settings.browser
    assert browser.headless and browser.javascript_exec
    assert browser.hosts(browser.allow_hosts) == ("intranet.example", "127.0.0.1")
    pool = workspace.toolbox.browser_pool
    assert pool is not None and pool.config.headless and pool.config.javascript_exec


def test_apps_page_shows_mac_availability_and_automation_states(
    qtbot, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    workspace.toolbox.automation.record("Calendar", "allowed")
    workspace.toolbox.automation.record("Mail", "denied")
    dialog = SettingsDialog(workspace, page="apps")
    qtbot.addWidget(dialog)
    dialog.open()
    page = dialog.page("apps")
    assert isinstance(page, AppsPage)
    rows = [
        (page.table.item(r, 0).text(), page.table.item(r, 1).text())
        for r in range(page.table.rowCount())
    ]
    assert rows == [("Calendar", "Allowed"), ("Mail", "Not allowed")]
    for table in (page.table, page.presets):  # every column title shows whole
        header = table.horizontalHeader()
        for column in range(table.columnCount()):
            title = table.horizontalHeaderItem(column).text()
            assert header.sectionSize(column) > header.fontMetrics().horizontalAdvance(title)
    if sys.platform != "darwin":
        assert "macOS only" in page.status.text() and not page.open_settings.isEnabled()
    # what Deskhand saw is remembered across restarts
    assert Workspace.open(workspace.paths.root).settings.apps.automation == {
        "Calendar": "allowed",
        "Mail": "denied",
    }


def test_presets_can_be_renamed_and_deleted(qtbot, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    workspace.live.save_preset({"name": "Coding", "items": [{"app": "Cursor", "monitor": "right"}]})
    workspace.live.save_preset({"name": "Reading", "items": [{"app": "Safari", "monitor": "main"}]})
    dialog = SettingsDialog(workspace, page="apps")
    qtbot.addWidget(dialog)
    dialog.open()
    page = dialog.page("apps")
    assert isinstance(page, AppsPage)
    assert page.preset_names() == ["Coding", "Reading"]
    assert page.presets.item(0, 1).text() == "Cursor"
    page.presets.item(0, 0).setText("Deep work")
    page.presets.setCurrentCell(1, 0)
    page.delete_preset.click()
    with qtbot.waitSignal(dialog.saved):
        dialog.button(QDialogButtonBox.StandardButton.Save).click()
    presets = Workspace.open(workspace.paths.root).settings.apps.presets
    assert [(p.name, [i.app for i in p.items]) for p in presets] == [("Deep work", ["Cursor"])]

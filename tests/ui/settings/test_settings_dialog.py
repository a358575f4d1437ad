"""The Settings dialog: built from the settings model, first-run key setup, model list, Save/Cancel."""

from __future__ import annotations

import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import annotated_types
import pytest
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QSpinBox

from desktop.system.keystore import SERVICE
from desktop.system.settings.model import DEFAULT_MODEL, ModelSettings
from desktop.workspace import Workspace
from tests.support.keychain import MemoryKeychain, RefusingKeychain, installed
from tests.support.model_server import ScriptedModelServer
from tests.support.waiting import wait_until
from ui.settings import SettingsDialog
from ui.settings.model import ModelPage

KEY = "sk-ant-test-0123456789abcdef"
SAVE = QDialogButtonBox.StandardButton.Save
CANCEL = QDialogButtonBox.StandardButton.Cancel


@pytest.fixture
def keychain() -> Iterator[MemoryKeychain]:
    with installed(backend := MemoryKeychain()):
        yield backend


@pytest.fixture
def refusing_keychain() -> Iterator[RefusingKeychain]:
    with installed(backend := RefusingKeychain()):
        yield backend


@pytest.fixture
def fresh_workspace(data_dir: Path, no_api_env: None, aloop) -> Iterator[Workspace]:  # type: ignore[no-untyped-def]
    """A first run: no settings, no key anywhere."""
    ws = Workspace.open(data_dir)
    yield ws
    aloop.run_until_complete(ws.close())


def open_dialog(qtbot, workspace: Workspace) -> tuple[SettingsDialog, ModelPage]:  # type: ignore[no-untyped-def]
    dialog = SettingsDialog(workspace)
    qtbot.addWidget(dialog)
    dialog.open()
    return dialog, cast(ModelPage, dialog.page("model"))


def wait_for_model_list(aloop, page: ModelPage) -> None:  # type: ignore[no-untyped-def]
    aloop.run_until_complete(wait_until(lambda: not page.loading, what="the model list"))


def visible_texts(dialog: SettingsDialog) -> list[str]:
    return [label.text() for label in dialog.findChildren(QLabel) if label.isVisible()]


def files_containing(root: Path, secret: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_model_page_is_built_from_the_settings_model(qtbot, aloop, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    dialog, page = open_dialog(qtbot, workspace)
    texts = visible_texts(dialog)
    for name, info in ModelSettings.model_fields.items():
        assert info.title in texts, name
        assert info.description in texts, name
        if info.annotation is int:
            spin = page.form.field(f"model.{name}")
            assert isinstance(spin, QSpinBox)
            bounds = {type(m): m for m in info.metadata}
            assert spin.minimum() == bounds[annotated_types.Ge].ge  # type: ignore[attr-defined]
            assert spin.maximum() == bounds[annotated_types.Le].le  # type: ignore[attr-defined]
            assert spin.value() == getattr(workspace.settings.model, name)
    wait_for_model_list(aloop, page)


def test_first_run_explains_and_saves_key_and_server_to_a_private_file(  # type: ignore[no-untyped-def]
    qtbot, aloop, fresh_workspace: Workspace, data_dir: Path, model_server: ScriptedModelServer
) -> None:
    dialog, page = open_dialog(qtbot, fresh_workspace)
    texts = visible_texts(dialog)
    assert any("Anthropic API key" in t and "console.anthropic.com" in t for t in texts)
    assert any("No keychain is available on this system" in t for t in texts)
    # The key is kept across starts by default, in a file only the person can read.
    assert page.storage.file.isChecked() and not page.storage.session.isChecked()
    # Without a key the list cannot load; the person is told and can still type.
    wait_for_model_list(aloop, page)
    assert page.picker.status.text() == (
        "Couldn't load the model list: No API key. You can type a model name."
    )
    assert page.picker.combo.isEditable()

    qtbot.keyClicks(page.key_edit, KEY)
    qtbot.keyClicks(page.form.field("model.base_url"), model_server.base_url)
    # Leaving the field loads the list with the key and server as typed, before any Save.
    page.form.field("model.base_url").editingFinished.emit()  # type: ignore[attr-defined]
    assert page.loading
    wait_for_model_list(aloop, page)
    assert [page.picker.combo.itemText(i) for i in range(page.picker.combo.count())] == (
        model_server.models
    )
    assert any(KEY in value for value in model_server.requests[-1].headers.values())
    with qtbot.waitSignal(dialog.saved):
        dialog.button(SAVE).click()
    assert not dialog.isVisible()

    reopened = Workspace.open(data_dir)
    try:
        assert reopened.settings.model.base_url == model_server.base_url
        assert reopened.settings.key_storage == "file"
        assert reopened.keys.get() == KEY
        assert stat.S_IMODE(reopened.paths.key_file.stat().st_mode) == 0o600
    finally:
        aloop.run_until_complete(reopened.close())


def test_first_run_key_for_this_run_only_is_never_written(  # type: ignore[no-untyped-def]
    qtbot, aloop, fresh_workspace: Workspace, data_dir: Path
) -> None:
    dialog, page = open_dialog(qtbot, fresh_workspace)
    qtbot.keyClicks(page.key_edit, KEY)
    page.storage.session.click()
    with qtbot.waitSignal(dialog.saved):
        dialog.button(SAVE).click()

    assert fresh_workspace.keys.get() == KEY
    assert fresh_workspace.settings.key_storage == "session"
    assert files_containing(data_dir, KEY) == []
    reopened = Workspace.open(data_dir)
    try:
        assert reopened.keys.get() is None
    finally:
        aloop.run_until_complete(reopened.close())


def test_the_key_goes_to_the_keychain_and_into_no_file(  # type: ignore[no-untyped-def]
    qtbot, aloop, keychain: MemoryKeychain, fresh_workspace: Workspace, data_dir: Path
) -> None:
    dialog, page = open_dialog(qtbot, fresh_workspace)
    assert not any("No keychain" in t for t in visible_texts(dialog))
    assert not page.storage.isVisible()
    qtbot.keyClicks(page.key_edit, KEY)
    with qtbot.waitSignal(dialog.saved):
        dialog.button(SAVE).click()

    assert keychain.passwords == {(SERVICE, fresh_workspace.paths.keychain_account): KEY}
    assert fresh_workspace.settings.key_storage == "keychain"
    assert files_containing(data_dir, KEY) == []


def test_a_refused_keychain_is_reported_and_the_key_can_go_to_a_file(  # type: ignore[no-untyped-def]
    qtbot, aloop, refusing_keychain: RefusingKeychain, fresh_workspace: Workspace
) -> None:
    dialog, page = open_dialog(qtbot, fresh_workspace)
    qtbot.keyClicks(page.key_edit, KEY)
    with qtbot.waitSignal(dialog.saved):
        dialog.button(SAVE).click()

    # Saved, but the person must learn the key will be gone after this run.
    assert dialog.isVisible()
    assert any("kept for this run only" in t for t in visible_texts(dialog))
    assert page.storage.isVisible()
    assert fresh_workspace.settings.key_storage == "session"

    page.storage.file.click()
    with qtbot.waitSignal(dialog.saved):
        dialog.button(SAVE).click()
    assert not dialog.isVisible()
    assert fresh_workspace.settings.key_storage == "file"
    assert fresh_workspace.paths.key_file.read_text(encoding="utf-8") == KEY


def test_model_list_comes_from_the_server_with_the_newest_sonnet_preselected(  # type: ignore[no-untyped-def]
    qtbot, aloop, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = ["claude-opus-9", "claude-sonnet-9-9", "claude-sonnet-4-5", "claude-haiku-4-5"]
    with ScriptedModelServer(models=ids) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        ws = Workspace.open(data_dir)
        try:
            assert ws.settings.model.model == DEFAULT_MODEL != "claude-sonnet-9-9"
            _, page = open_dialog(qtbot, ws)
            wait_for_model_list(aloop, page)
            combo = page.picker.combo
            assert [combo.itemText(i) for i in range(combo.count())] == ids
            assert combo.currentText() == "claude-sonnet-9-9"
            assert combo.isEditable()
            assert not page.picker.status.isVisible()
        finally:
            aloop.run_until_complete(ws.close())


def test_a_chosen_model_stays_when_the_list_arrives(qtbot, aloop, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    settings = workspace.settings.model_copy(deep=True)
    settings.model.model = "claude-haiku-4-5"
    workspace.live.apply(settings)
    _, page = open_dialog(qtbot, workspace)
    wait_for_model_list(aloop, page)
    assert page.picker.combo.count() == 3
    assert page.picker.combo.currentText() == "claude-haiku-4-5"


def test_an_unreachable_server_leaves_the_model_free_to_type(
    qtbot, aloop, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    _, page = open_dialog(qtbot, workspace)
    wait_for_model_list(aloop, page)
    base_url = page.form.field("model.base_url")
    base_url.clear()  # type: ignore[attr-defined]
    qtbot.keyClicks(base_url, closed_port_url())
    page.picker.refresh_button.click()
    wait_for_model_list(aloop, page)

    assert page.picker.status.isVisible()
    assert page.picker.status.text() == (
        "Couldn't load the model list: Can't reach the server. You can type a model name."
    )
    page.picker.combo.clearEditText()
    qtbot.keyClicks(page.picker.combo.lineEdit(), "llama3.2")
    assert page.picker.field_value() == "llama3.2"


def test_cancel_leaves_the_settings_exactly_as_they_were(
    qtbot, aloop, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    snapshot = workspace.settings.model_dump()
    on_disk = workspace.paths.settings.read_bytes()
    dialog, page = open_dialog(qtbot, workspace)
    qtbot.keyClicks(page.key_edit, KEY)
    qtbot.keyClicks(page.form.field("model.base_url"), "https://example.invalid")
    page.form.field("model.max_tokens").setValue(1234)  # type: ignore[attr-defined]
    qtbot.keyClicks(page.form.field("model.system_prompt_extra"), "Be terse.")
    page.picker.combo.setEditText("claude-opus-9")

    with qtbot.assertNotEmitted(dialog.saved):
        dialog.button(CANCEL).click()
    assert not dialog.isVisible()
    assert workspace.settings.model_dump() == snapshot
    assert workspace.paths.settings.read_bytes() == on_disk
    assert workspace.keys.stored_key() is None


def test_an_invalid_base_url_is_shown_and_nothing_typed_is_lost(
    qtbot, aloop, workspace: Workspace
) -> None:  # type: ignore[no-untyped-def]
    snapshot = workspace.settings.model_dump()
    dialog, page = open_dialog(qtbot, workspace)
    wait_for_model_list(aloop, page)
    base_url = page.form.field("model.base_url")
    base_url.clear()  # type: ignore[attr-defined]
    qtbot.keyClicks(base_url, "not a url")
    qtbot.keyClicks(page.key_edit, KEY)
    qtbot.keyClicks(page.form.field("model.system_prompt_extra"), "Be terse.")

    with qtbot.assertNotEmitted(dialog.saved):
        dialog.button(SAVE).click()
    assert dialog.isVisible()
    assert any(
        t.startswith("Enter a URL that starts with http://") for t in visible_texts(dialog)
    ), visible_texts(dialog)
    assert base_url.text() == "not a url"  # type: ignore[attr-defined]
    assert page.key_edit.text() == KEY
    assert page.form.field("model.system_prompt_extra").toPlainText() == "Be terse."  # type: ignore[attr-defined]
    assert workspace.settings.model_dump() == snapshot

    base_url.clear()  # type: ignore[attr-defined]
    qtbot.keyClicks(base_url, "http://localhost:11434")
    with qtbot.waitSignal(dialog.saved):
        dialog.button(SAVE).click()
    assert workspace.settings.model.base_url == "http://localhost:11434"
    assert workspace.settings.model.system_prompt_extra == "Be terse."

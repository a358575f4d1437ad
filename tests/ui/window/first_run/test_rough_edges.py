"""First-run rough edges: errors that were fixed stop reading as current, and a run-only
permission mode says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support import seen
from tests.support.model_server import HttpError, ScriptedModelServer, text_reply
from tests.support.window import finish_turn, type_and_send
from ui.window.main_window import MainWindow


@pytest.fixture
def keyless(
    data_dir: Path, model_server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Workspace]:
    """No key anywhere yet; the scripted server answers once one is saved."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", model_server.base_url)
    workspace = Workspace.open(data_dir)
    settings = workspace.settings.model_copy(deep=True)
    settings.model.max_retries = 0
    workspace.live.apply(settings)
    yield workspace
    workspace.store.close()


def open_window(qtbot, workspace: Workspace) -> MainWindow:  # type: ignore[no-untyped-def]
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    window._first_run_checked = True  # the Settings dialog is driven in its own tests
    return window


def test_the_no_key_card_reads_as_fixed_once_a_key_is_saved(  # type: ignore[no-untyped-def]
    qtbot, aloop, keyless, model_server
):
    window = open_window(qtbot, keyless)
    type_and_send(qtbot, window, "Hello?")
    finish_turn(aloop, window)
    [card] = window.thread.error_cards()
    assert card.title.text() == "No API key" and not card.resolved
    assert card.settings_button is not None and card.settings_button.isVisible()
    # Nothing answered yet: Retry is the way, not a second Regenerate button.
    actions = window.thread.turn_actions
    assert actions is None or not actions.isVisible()

    keyless.live.apply(keyless.settings.model_copy(deep=True), api_key="sk-ant-new")
    assert card.resolved
    assert card.title.text() == "✓ Fixed: No API key"
    assert "Your API key is saved" in card.detail.text()
    assert not card.settings_button.isVisible()
    # Retry sends the message now that the key is there.
    model_server.enqueue(text_reply("Hello!"))
    assert card.retry_button is not None
    qtbot.mouseClick(card.retry_button, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)
    assert "Hello!" in seen.text(window.thread)
    # Answered now: the card is history, its words stay and its buttons go.
    assert card.retired and not card.retry_button.isVisible()


def test_a_refused_key_reads_as_fixed_only_when_a_new_key_is_saved(  # type: ignore[no-untyped-def]
    qtbot, aloop, keyless, model_server
):
    keyless.live.apply(keyless.settings.model_copy(deep=True), api_key="sk-ant-wrong")
    window = open_window(qtbot, keyless)
    model_server.enqueue(HttpError(status=401, type="authentication_error"))
    type_and_send(qtbot, window, "Hello?")
    finish_turn(aloop, window)
    [card] = window.thread.error_cards()
    assert card.failure.error_kind == "auth"
    # Saving settings without a new key fixes nothing.
    settings = keyless.settings.model_copy(deep=True)
    settings.model.system_prompt_extra = "Be brief."
    keyless.live.apply(settings)
    assert not card.resolved
    keyless.live.apply(keyless.settings.model_copy(deep=True), api_key="sk-ant-right")
    assert card.resolved and "new API key" in card.detail.text()


def test_a_permission_mode_from_the_command_line_reads_for_this_run(  # type: ignore[no-untyped-def]
    qtbot, aloop, data_dir, api_env
):
    workspace = Workspace.open(data_dir, mode=Mode.ASK)
    try:
        window = open_window(qtbot, workspace)
        assert window.mode_box.currentData() == Mode.ASK.value
        assert window.mode_run_label.isVisible() and window.mode_run_label.text() == "for this run"
        # Choosing a mode in the window saves it: no longer only for this run.
        window.mode_box.setCurrentIndex(window.mode_box.findData(Mode.CHANGES.value))
        assert not window.mode_run_label.isVisible()
        assert workspace.settings.permissions.mode == Mode.CHANGES
    finally:
        workspace.store.close()


def test_a_saved_mode_has_no_run_label(qtbot, aloop, workspace):  # type: ignore[no-untyped-def]
    window = open_window(qtbot, workspace)
    assert not window.mode_run_label.isVisible()

"""The first-use Chromium download dialog: offer, progress, failure with Try again, and Cancel."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from desktop.system.playwright_env import BrowserDownloadFailed, DownloadProgress, download_chromium
from tests.support.waiting import wait_until
from ui.sheets.browser_download import BrowserDownloadDialog

RECORDED = Path(__file__).with_name("data") / "playwright-install-ok.txt"


@pytest.fixture
def window(qtbot) -> QWidget:  # type: ignore[no-untyped-def]
    """The dialog's parent, as the main window is in the app (closing the dialog ends nothing)."""
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    return parent


async def three_steps() -> AsyncGenerator[DownloadProgress, None]:
    for percent in (0, 40, 100):
        await asyncio.sleep(0.01)
        yield DownloadProgress("Chrome for Testing 159.0", percent, "170.3 MiB")


def test_download_shows_progress_and_answers_yes(qtbot, aloop, window) -> None:  # type: ignore[no-untyped-def]
    seen: list[int] = []

    async def watched() -> AsyncGenerator[DownloadProgress, None]:
        async for step in three_steps():
            yield step
            seen.append(dialog.progress.value())

    dialog = BrowserDownloadDialog(window, download=watched)
    qtbot.addWidget(dialog)

    async def scenario() -> bool:
        answer = asyncio.ensure_future(dialog.ask())
        await wait_until(dialog.isVisible, what="the offer")
        assert "170 MB" in dialog.message.text() and not dialog.progress.isVisible()
        dialog.download_button.click()
        return await asyncio.wait_for(answer, 10)

    with qtbot.waitSignal(dialog.succeeded, timeout=10_000):
        assert aloop.run_until_complete(scenario()) is True
    assert seen == [0, 40, 100]
    assert dialog.item.text() == "Chromium is ready."


def test_a_failure_explains_and_try_again_works(qtbot, aloop, window) -> None:  # type: ignore[no-untyped-def]
    attempts: list[int] = []

    async def flaky() -> AsyncGenerator[DownloadProgress, None]:
        attempts.append(1)
        if len(attempts) == 1:
            yield DownloadProgress("Chrome for Testing 159.0", 0)
            raise BrowserDownloadFailed(
                "Chromium could not be downloaded. Check the internet connection.",
                "Error: connect ECONNREFUSED",
            )
        async for step in three_steps():
            yield step

    dialog = BrowserDownloadDialog(window, download=flaky)
    qtbot.addWidget(dialog)

    async def scenario() -> bool:
        answer = asyncio.ensure_future(dialog.ask())
        await wait_until(dialog.isVisible, what="the offer")
        dialog.download_button.click()
        await wait_until(lambda: dialog.download_button.text() == "Try again", what="the failure")
        assert dialog.message.text().startswith("Chromium could not be downloaded.")
        assert dialog.details_button.isVisible() and not dialog.details.isVisible()
        dialog.details_button.click()
        assert "ECONNREFUSED" in dialog.details.toPlainText()
        assert not answer.done()  # the person decides: try again or close
        dialog.download_button.click()
        return await asyncio.wait_for(answer, 10)

    assert aloop.run_until_complete(scenario()) is True
    assert len(attempts) == 2


def test_cancel_stops_the_download_and_answers_no(qtbot, aloop, window) -> None:  # type: ignore[no-untyped-def]
    stopped: list[str] = []

    async def endless() -> AsyncGenerator[DownloadProgress, None]:
        try:
            yield DownloadProgress("Chrome for Testing 159.0", 10)
            await asyncio.sleep(60)
        finally:
            stopped.append("installer ended")

    dialog = BrowserDownloadDialog(window, download=endless)
    qtbot.addWidget(dialog)

    async def scenario() -> bool:
        answer = asyncio.ensure_future(dialog.ask())
        await wait_until(dialog.isVisible, what="the offer")
        dialog.download_button.click()
        await wait_until(lambda: dialog.progress.value() == 10, what="the first step")
        assert dialog.cancel_button.text() == "Cancel"
        dialog.cancel_button.click()
        result = await asyncio.wait_for(answer, 10)
        await wait_until(lambda: stopped, what="the download to stop")
        return result

    assert aloop.run_until_complete(scenario()) is False
    assert not dialog.running


def test_not_now_answers_no_without_downloading(qtbot, aloop, window) -> None:  # type: ignore[no-untyped-def]
    started: list[int] = []

    async def never() -> AsyncGenerator[DownloadProgress, None]:
        started.append(1)
        yield DownloadProgress("x", 0)

    dialog = BrowserDownloadDialog(window, download=never)
    qtbot.addWidget(dialog)

    async def scenario() -> bool:
        answer = asyncio.ensure_future(dialog.ask())
        await wait_until(dialog.isVisible, what="the offer")
        dialog.cancel_button.click()
        return await asyncio.wait_for(answer, 10)

    assert aloop.run_until_complete(scenario()) is False
    assert started == []


def test_the_dialog_reads_a_real_installer_output(qtbot, aloop, window) -> None:  # type: ignore[no-untyped-def]
    replay = (
        "import sys\nfor line in open(sys.argv[1], encoding='utf-8'):\n"
        "    sys.stdout.write(line); sys.stdout.flush()\n"
    )
    shown: list[str] = []

    async def recorded_installer() -> AsyncGenerator[DownloadProgress, None]:
        command = [sys.executable, "-c", replay, str(RECORDED)]
        async for step in download_chromium(command, env={}):
            yield step
            shown.append(dialog.item.text())  # what the person read after this step

    dialog = BrowserDownloadDialog(window, download=recorded_installer)
    qtbot.addWidget(dialog)

    async def scenario() -> bool:
        answer = asyncio.ensure_future(dialog.ask())
        await wait_until(dialog.isVisible, what="the offer")
        dialog.download_button.click()
        return await asyncio.wait_for(answer, 20)

    assert aloop.run_until_complete(scenario()) is True
    assert "Chrome for Testing 159.0.8154.6: 50% of 4.3 MiB" in shown
    assert "Chrome for Testing 159.0.8154.6: done" in shown
    assert shown[-1] == "FFmpeg: done"
    assert dialog.progress.value() == 100

"""Which browser Deskhand drives: the configured path, Playwright's own Chromium, then installed ones."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tools.browser import locate
from tools.browser.locate import find_browser, install_hint


def test_configured_path_wins_and_a_missing_one_finds_nothing(tmp_path: Path) -> None:
    chrome = tmp_path / "my-chrome"
    chrome.write_text("")
    assert find_browser(str(chrome)).model_dump() == {
        "source": "settings",
        "path": str(chrome),
        "channel": None,
    }
    assert find_browser(str(tmp_path / "gone")) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux cache layout")
def test_playwrights_own_chromium_comes_before_installed_browsers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    older = tmp_path / "chromium-1100" / "chrome-linux" / "chrome"
    newer = tmp_path / "chromium-1200" / "chrome-linux64" / "chrome"
    for binary in (older, newer):
        binary.parent.mkdir(parents=True)
        binary.write_text("")
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    choice = find_browser()
    assert choice is not None and (choice.source, choice.path) == ("playwright", str(newer))


def test_system_chromium_is_the_last_resort(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(locate, "BRANDED", {})
    binary = tmp_path / "bin" / "chromium"
    binary.parent.mkdir()
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    monkeypatch.setenv("PATH", str(binary.parent))
    choice = find_browser()
    assert choice is not None and (choice.source, choice.path) == ("system", str(binary))
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert find_browser() is None


def test_install_hint_is_a_command() -> None:
    assert "playwright install chromium" in install_hint()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux cache layout")
def test_a_bundle_prefers_chrome_over_playwrights_chromium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chromium = tmp_path / "cache" / "chromium-1200" / "chrome-linux64" / "chrome"
    chrome = tmp_path / "opt" / "google" / "chrome"
    for binary in (chromium, chrome):
        binary.parent.mkdir(parents=True)
        binary.write_text("")
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "cache"))
    monkeypatch.setattr(locate, "BRANDED", {"chrome": (str(chrome),)})
    assert find_browser().source == "playwright"  # type: ignore[union-attr]
    preferred = find_browser(branded_first=True)
    assert preferred is not None and (preferred.source, preferred.path) == ("chrome", str(chrome))

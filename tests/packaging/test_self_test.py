"""`deskhand --self-test` from the source tree: the one-line summary, and a failure that says what to do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.system.settings.model import Settings
from desktop.workspace import Workspace
from tests.support.self_test import SUMMARY
from tools.browser.locate import BRANDED

ROOT = Path(__file__).resolve().parents[2]


def self_test(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop", "--self-test", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def test_self_test_passes_and_leaves_the_data_dir_as_it_was(data_dir: Path) -> None:
    workspace = Workspace.open(data_dir)
    workspace.store.create_session("My trip")
    settings = Settings()
    settings.model.system_prompt_extra = "Answer in French."
    workspace.live.apply(settings)
    sessions_before = [s.title for s in workspace.store.sessions()]
    settings_before = workspace.paths.settings.read_bytes()
    workspace.store.close()

    result = self_test("--data-dir", str(data_dir))

    assert result.returncode == 0, result.stdout + result.stderr
    assert SUMMARY.match(result.stdout.strip()), result.stdout
    assert len(result.stdout.strip().splitlines()) == 1
    after = Workspace.open(data_dir)
    assert [s.title for s in after.store.sessions()] == sessions_before
    assert after.paths.settings.read_bytes() == settings_before
    after.store.close()


def test_without_a_browser_it_fails_and_says_what_to_do(tmp_path: Path) -> None:
    if any(Path(p).expanduser().exists() for paths in BRANDED.values() for p in paths):
        pytest.skip("Chrome or Edge is installed here; it would be found")
    result = self_test(env={"PATH": str(tmp_path), "PLAYWRIGHT_BROWSERS_PATH": str(tmp_path)})
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert "self-test failed: browser: no Chrome, Edge or Chromium was found" in lines
    advice = next(line for line in lines if line.strip().startswith("what to do:"))
    assert "Google Chrome" in advice and "chromium" in advice
    assert "passed: window, store, settings, api client" in result.stderr

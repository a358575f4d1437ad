"""Fixtures of the call pipeline's tests: a workspace that shops on the test pages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer


@pytest.fixture
def shopping(data_dir: Path, api_env: ScriptedModelServer) -> Iterator[Workspace]:
    """Headless browser on the test pages; navigating is always allowed, clicks ask."""
    data_dir.mkdir(parents=True)
    (data_dir / "settings.json").write_text(
        json.dumps(
            {
                "model": {"max_retries": 0},
                "browser": {"headless": True, "allow_hosts": "127.0.0.1, localhost"},
                "permissions": {"mode": "changes", "rules": {"browser.navigate": "allow"}},
            }
        )
    )
    ws = Workspace.open(data_dir)
    yield ws
    ws.store.close()

"""The workspace in two parts: what the window shows is built at once, the call pipeline on
first use (its modules load behind the window's first paint)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desktop.workspace import Workspace


def test_the_tools_are_built_on_first_use_around_the_hooks_the_window_wired(
    tmp_path: Path,
) -> None:
    workspace = Workspace.open(tmp_path)
    assert not workspace.pipeline_built()
    # The window wires itself to these before any tool exists; the tools use the same ones.
    hand, hooks = workspace.browser_hand, workspace.screen_hooks
    assert workspace.registry is workspace.toolbox.registry
    assert workspace.pipeline_built()
    assert workspace.toolbox.browser_hand is hand
    assert workspace.toolbox.screen_hooks is hooks
    agent = asyncio.run(workspace.agent_ready())
    assert agent is workspace.agent
    assert agent.calls is workspace.calls  # one pipeline: the agent runs calls through it
    asyncio.run(workspace.close())


def test_closing_an_unused_workspace_builds_nothing(tmp_path: Path) -> None:
    workspace = Workspace.open(tmp_path)
    asyncio.run(workspace.close())
    assert not workspace.pipeline_built()
    assert "agent" not in vars(workspace)

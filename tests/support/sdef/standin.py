"""The three app tools (apps_list, app_dictionary, app_command) over one JXA stand-in engine
(a simulation of the JXA runtime), as the tests of generated calls drive them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from tests.support.jxa.world import World
from tools.base import RunContext, ToolResult
from tools.mac.osa.errors import OsaProblem
from tools.mac.sdef.app_tools import AppCommandTool, AppDictionaryTool, AppsListTool

T = TypeVar("T")


@dataclass
class StandIn:
    loop: asyncio.AbstractEventLoop
    world: World
    apps_list: AppsListTool
    dictionary: AppDictionaryTool
    command: AppCommandTool
    problems: list[OsaProblem] = field(default_factory=list)

    def run(self, work: Awaitable[T]) -> T:
        return self.loop.run_until_complete(work)

    def ctx(self, progress: list[str] | None = None) -> RunContext:
        lines = progress if progress is not None else []
        return RunContext(
            session_id=1, attachments_dir=self.world.path.parent, progress=lines.append
        )

    def call(
        self, tool: Any, fields: dict[str, Any], progress: list[str] | None = None
    ) -> ToolResult:
        model: BaseModel = tool.Input.model_validate(fields)
        return self.run(tool.run(model, self.ctx(progress)))

    def app_command(self, **fields: Any) -> ToolResult:
        return self.call(self.command, fields)

    def answer(self, **fields: Any) -> Any:
        """The JSON the app answered (after the result's header line)."""
        result = self.app_command(**fields)
        assert not result.is_error, result.text
        return json.loads(result.text.split("\n", 1)[1])

    def log(self) -> list[dict[str, Any]]:
        return self.world.read().get("log", [])

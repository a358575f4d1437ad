"""Browser tool calls: the SDK's browser toolset behind the same gate as every other tool.

The toolset runs the URL policy and then the `confirm` callable, which is where the
permission gate plugs in; a denial raises the SDK's `ToolError` so the model reads our
fixed phrase and the person's reason. Screenshots in the result are kept on disk like
any tool image, and the model gets the bounded copy.
"""

from __future__ import annotations

import base64
import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from anthropic.tools import ToolError
from anthropic.tools.browser import BetaConfirmContext
from anthropic.types.beta import BetaToolUseBlock

from desktop.gate import Gate, denial_text
from desktop.permissions import Decision, ToolCall
from desktop.playwright_env import is_frozen
from desktop.settings import BrowserSettings
from tools.base import Risk, ToolImage, ToolResult
from tools.browser import (
    BrowserConfig,
    BrowserPool,
    PlaywrightBrowser,
    UrlPolicy,
    browser_summary,
    progress_scope,
)

TOOLSET = "browser"
TITLE = "Browser"
NOT_EXECUTED = "Not executed: an earlier browser action in this turn failed."


def browser_config(settings: BrowserSettings, downloads: Path) -> BrowserConfig:
    return BrowserConfig(
        executable_path=settings.executable_path.strip() or None,
        branded_first=is_frozen(),  # a bundle brings no Chromium: the person's Chrome comes first
        headless=settings.headless,
        profile_dir=downloads.parent / "browser-profile" if settings.persistent_profile else None,
        url_policy=UrlPolicy(
            allow_hosts=settings.hosts(settings.allow_hosts),
            block_hosts=settings.hosts(settings.block_hosts),
        ),
        downloads_dir=downloads,
        upload_dir=Path(settings.upload_dir).expanduser() if settings.upload_dir.strip() else None,
        read_console=settings.read_console,
        read_network=settings.read_network,
        javascript_exec=settings.javascript_exec,
        file_upload=settings.file_upload,
    )


class BrowserCall:
    """What one browser call did, for the agent: the result block and how the card should end."""

    def __init__(self, block: dict[str, Any], decision: Decision | None) -> None:
        self.block = block
        self.decision = decision

    @property
    def is_error(self) -> bool:
        return bool(self.block.get("is_error"))

    @property
    def outcome(self) -> str:
        if self.decision is not None and self.decision.verdict == "deny":
            return "blocked" if self.decision.by == "rule" else "denied"
        return "error" if self.is_error else "ok"

    def text(self) -> str:
        content = self.block.get("content")
        if isinstance(content, str):
            return content
        return "\n".join(b.get("text", "") for b in content or [] if b.get("type") == "text")

    def images(self) -> list[ToolImage]:
        """The screenshots in the result (the SDK renders them as base64 image blocks)."""
        found = []
        for item in self.block.get("content") or []:
            if isinstance(item, dict) and item.get("type") == "image":
                source = item["source"]
                data = base64.b64decode(source["data"])
                found.append(
                    ToolImage(data=data, media_type=source["media_type"], width=0, height=0)
                )
        return found

    def as_result(self) -> ToolResult:
        return ToolResult(text=self.text(), images=self.images(), is_error=self.is_error)


class BrowserCalls:
    """Routes `tool_use` blocks whose `toolset_name` is "browser" to each chat's toolset."""

    def __init__(self, pool: BrowserPool, gate: Gate) -> None:
        self.pool = pool
        self.gate = gate
        self._confirms: dict[int, Callable[[BetaConfirmContext], Any]] = {}
        self._decisions: dict[str, tuple[Decision, int, float]] = {}

    def toolset(self, session_id: int) -> PlaywrightBrowser:
        # The pool caches a toolset per (session, confirm): keep one confirm per session.
        confirm = self._confirms.setdefault(
            session_id, functools.partial(self._confirm, session_id)
        )
        return self.pool.for_session(session_id, confirm=confirm)

    def api_tool(self) -> dict[str, Any]:
        """The `tools[]` entry (`browser_toolset_20260801` with its enabled members)."""
        return dict(self.toolset(0).to_dict())

    @staticmethod
    def handles(use: dict[str, Any]) -> bool:
        return use.get("toolset_name") == TOOLSET

    @staticmethod
    def label(use: dict[str, Any]) -> tuple[str, str]:
        """The card label ("Browser: navigate") and a first summary before the page is known."""
        member = str(use.get("name", ""))
        return f"{TITLE}: {member.replace('_', ' ')}", browser_summary(
            member, use.get("input") or {}, None
        )

    async def run(
        self, session_id: int, use: dict[str, Any], progress: Callable[[str], None]
    ) -> BrowserCall:
        toolset = self.toolset(session_id)
        with progress_scope(progress):
            block = await toolset.tool_result(BetaToolUseBlock.model_validate(use))
        decided = self._decisions.pop(use["id"], None)
        call = BrowserCall(dict(block), decided[0] if decided else None)
        if decided is not None and decided[0].verdict == "allow":
            self.gate.finished(decided[1], ok=not call.is_error, started=decided[2])
        return call

    async def _confirm(self, session_id: int, context: BetaConfirmContext) -> bool:
        toolset = self.toolset(session_id)
        risk, reason, summary = toolset.describe(context)
        use = context.tool_use
        if use is None:  # nothing to attribute the action to, so nothing to approve
            return False
        call = ToolCall(
            session_id=session_id,
            tool_use_id=use.id,
            tool=TOOLSET,
            action=context.member,
            input=dict(use.input) if isinstance(use.input, dict) else {},
            risk=Risk(risk),
            reason=reason,
            summary=summary,
            target=context.tab_url,
        )
        decision, audit_id = await self.gate.check(call)
        self._decisions[use.id] = (decision, audit_id, time.monotonic())
        if decision.verdict != "allow":
            raise ToolError(denial_text(decision))
        return True

    async def close_session(self, session_id: int) -> None:
        self._confirms.pop(session_id, None)
        await self.pool.close_session(session_id)

    async def close(self) -> None:
        await self.pool.close()

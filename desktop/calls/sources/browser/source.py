"""The browser as a toolset source: Settings → Browser mapped onto the pool, and its members.

Everything else about browser calls (the one description, the gate, results) is the shared
toolset source's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.calls.sources.browser.hand import BROWSER, BROWSER_TITLE, BrowserHand
from desktop.calls.sources.toolsets import Confirm, ToolsetSource
from desktop.system.playwright_env import is_frozen
from desktop.system.settings.model import BrowserSettings
from tools.base import ActionInfo
from tools.browser.config import OPTIONAL_MEMBERS, BrowserConfig
from tools.browser.effect.risk import (
    CHANGE_MEMBERS,
    CONSEQUENTIAL_MEMBERS,
    READ_MEMBERS,
    browser_risk,
)
from tools.browser.errors import NOT_EXECUTED
from tools.browser.network.url_policy import Refusal, UrlPolicy

if TYPE_CHECKING:
    from tools.browser.pool import BrowserPool
    from tools.toolset_driver import ToolsetDriver


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


def browser_members(config: BrowserConfig) -> list[ActionInfo]:
    """Every member the model can call with this config, with its usual risk."""
    names = sorted(READ_MEMBERS | CHANGE_MEMBERS | CONSEQUENTIAL_MEMBERS)
    off = {name for name in OPTIONAL_MEMBERS if not getattr(config, name)}
    members = []
    for name in names:
        if name in off:
            continue
        risk, reason = browser_risk(name, {})
        members.append(ActionInfo(name=name, risk=risk, description=reason))
    return members


def landing(member: str, input: Mapping[str, Any], page: str | None) -> str | None:
    """Where a browser call lands: the destination of a navigate, else the page it acts on."""
    url = input.get("url")
    if member == "navigate" and isinstance(url, str) and "://" in url:
        return url
    return page


def refused_notices(pool: BrowserPool, session_id: int) -> tuple[list[str], list[str]]:
    """What the page tried and was refused since the last call: lines for the card and the
    audit, and the local hosts the person may let through (for this chat, or always)."""
    refused = pool.take_refused(session_id)
    notices: list[str] = []
    local = [entry for entry in refused if entry.local]
    if local:
        count = sum(entry.count for entry in local)
        hosts = ", ".join(entry.host for entry in local if entry.host)
        noun = "request" if count == 1 else "requests"
        notices.append(f"Blocked {count} {noun} to local addresses ({hosts})")
    unplanned = [entry for entry in refused if entry.reason is Refusal.NOT_IN_PLAN]
    if unplanned:
        count = sum(entry.count for entry in unplanned)
        hosts = ", ".join(entry.host for entry in unplanned if entry.host)
        noun = "page" if count == 1 else "pages"
        notices.append(f"Stopped {count} {noun} outside the plan ({hosts})")
    other = sum(
        entry.count
        for entry in refused
        if not entry.local and entry.reason is not Refusal.NOT_IN_PLAN
    )
    if other:
        noun = "request" if other == 1 else "requests"
        notices.append(f"Blocked {other} {noun} to sites that are not allowed")
    return notices, [entry.host for entry in local if entry.host]


async def page_now(pool: BrowserPool, session_id: int) -> tuple[str, str] | None:
    """(title, address) of the chat's active tab, if its browser is open."""
    session = pool.session(session_id)
    tab = session.tabs.get(session.active) if session.active is not None else None
    if tab is None or tab.page.is_closed():
        return None
    return await tab.page.title(), tab.page.url


async def to_front(pool: BrowserPool, session_id: int) -> None:
    """The chat's browser window in front, on its active tab (for the person's turn)."""
    session = pool.session(session_id)
    tab = session.tabs.get(session.active) if session.active is not None else None
    if tab is not None and not tab.page.is_closed():
        await tab.page.bring_to_front()


class BrowserSource(ToolsetSource):
    """The browser toolset, one per chat, over the app's one browser (`BrowserPool`)."""

    name = BROWSER
    title = BROWSER_TITLE
    not_executed = NOT_EXECUTED

    def __init__(self, pool: BrowserPool, hand: BrowserHand | None = None) -> None:
        super().__init__()
        self.pool = pool
        self.hand = hand
        if hand is not None:
            hand.page_now = lambda session_id: page_now(pool, session_id)
            hand.front = lambda session_id: to_front(pool, session_id)

    def toolset_for(self, session_id: int, confirm: Confirm) -> ToolsetDriver:
        return self.pool.for_session(session_id, confirm=confirm)

    def members(self) -> list[ActionInfo]:
        return browser_members(self.pool.config)

    def landing(self, member: str, input: Mapping[str, Any], page: str | None) -> str | None:
        return landing(member, input, page)

    def after_call(self, session_id: int) -> tuple[list[str], list[str]]:
        return refused_notices(self.pool, session_id)

    async def before_call(self, session_id: int) -> str | None:
        return await self.hand.before_call(session_id) if self.hand is not None else None

    async def close_session(self, session_id: int) -> None:
        await super().close_session(session_id)
        await self.pool.close_session(session_id)

    async def close(self) -> None:
        await self.pool.close()

"""One browser for the whole app, and the browser toolset each chat session drives.

`BrowserPool` is a `BrowserRuntime` (the browser process, its network choke point, one
context per chat) that also hands out a `PlaywrightBrowser` toolset per session:

    pool = BrowserPool(BrowserConfig(...), confirm=gate)
    toolset = pool.for_session(session_id)        # same instance until the config changes
    pool.take_refused(session_id)                 # hosts refused since the last call
    pool.allow_local(host, session=session_id)    # the person's grant (never the model's)
    await pool.close_session(session_id)          # when the chat is deleted
    await pool.close()                            # on quit

The SDK's call context carries only the `tool_use` block, not which chat it belongs to,
so the session is chosen by which toolset instance the app calls.
"""

from __future__ import annotations

from anthropic.tools.browser import BetaAsyncConfirmCallable, BetaToolConfigs

from tools.browser.config import BrowserConfig
from tools.browser.driver import PlaywrightBrowser
from tools.browser.network.check import Resolver
from tools.browser.runtime import BrowserRuntime

__all__ = ["BrowserPool"]


class BrowserPool(BrowserRuntime):
    """The runtime plus one cached toolset per chat session."""

    def __init__(
        self,
        config: BrowserConfig | None = None,
        *,
        confirm: BetaAsyncConfirmCallable | None = None,
        tool_configs: BetaToolConfigs | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        """`confirm` is the default gate of every session's toolset; `tool_configs` go on the
        `tools[]` entry (e.g. `{"cache_control": {"type": "ephemeral"}}`)."""
        super().__init__(config, resolver=resolver)
        self.confirm = confirm
        self.tool_configs = tool_configs
        self._toolsets: dict[str, PlaywrightBrowser] = {}

    def for_session(
        self,
        session_id: object,
        *,
        confirm: BetaAsyncConfirmCallable | None = None,
    ) -> PlaywrightBrowser:
        """The toolset for one chat session: cached, rebuilt when its confirm or the config changed."""
        key = str(session_id)
        confirm = confirm if confirm is not None else self.confirm
        cached = self._toolsets.get(key)
        if cached is not None and cached.confirm_hook is confirm and not cached.is_closed:
            return cached
        toolset = PlaywrightBrowser(
            self, self.session(key), confirm=confirm, tool_configs=self.tool_configs
        )
        self._toolsets[key] = toolset
        return toolset

    async def close_session(self, session_id: object) -> None:
        self._toolsets.pop(str(session_id), None)
        await super().close_session(session_id)

    async def configure(self, config: BrowserConfig) -> None:
        self._toolsets.clear()
        await super().configure(config)

    async def _close_toolsets(self) -> None:
        for toolset in list(self._toolsets.values()):
            await toolset.close()
        self._toolsets.clear()

    def _close_toolsets_now(self) -> None:
        for toolset in self._toolsets.values():
            toolset.retire()
        self._toolsets.clear()

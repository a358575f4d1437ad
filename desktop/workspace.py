"""Everything one running Deskhand holds, without Qt: paths, settings, key, store, tools, agent.

The composition root builds one `Workspace`; the window shows it and calls into it.

It is built in two parts. What the window needs to show is built at once: the settings, the
key, the store, the plans, the approval queue, the chats (`Conversations`), and the two hooks
the window wires itself into before any tool exists (the browser's hand, the screen's hooks).
The call pipeline (the toolbox with its sources, the gate, the call runner and the agent) is
built on first use, from modules that load on `heavy`'s thread right after the window's first
paint (`heavy.PIPELINE`): a message sent before they are in waits for them there
(`agent_ready`), and code with no loop at hand (`deskhand mcp`, `deskhand apps call`) waits on
the spot. The routines, their schedules and the scheduler are built on first use the same way,
from modules that load right after the pipeline's (`heavy.ROUTINES`).
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.calls.approvals import ApprovalQueue
from desktop.calls.own_places.places import protect
from desktop.calls.sources.browser.hand import BrowserHand
from desktop.calls.sources.plan.book import PlanBook
from desktop.calls.sources.screen.hooks import ScreenHooks
from desktop.chat.conversations import Conversations
from desktop.chat.transcript import replay
from desktop.hotkey.owner import QuickEntryShortcut
from desktop.system import autostart, heavy
from desktop.system.keystore import KeyStore
from desktop.system.paths import DataPaths
from desktop.system.settings.live import LiveSettings
from desktop.system.settings.model import Settings, SettingsFile
from desktop.system.settings.permissions import Mode
from desktop.system.store import Store

if TYPE_CHECKING:
    from desktop.calls.gate import Gate
    from desktop.calls.sources.mcp.config import ServerEntry
    from desktop.calls.toolbox import Toolbox
    from desktop.chat.agent import Agent
    from desktop.chat.events import AgentEvent
    from desktop.chat.tool_calls import ToolCalls
    from desktop.routines.schedules.scheduler import Scheduler
    from desktop.routines.schedules.unattended import Unattended
    from desktop.routines.service import Routines
    from tools.base import ToolRegistry

log = logging.getLogger(__name__)


class Workspace:
    """One data dir's worth of Deskhand state."""

    def __init__(self, paths: DataPaths, *, mode: Mode | None = None) -> None:
        paths.ensure()
        protect(paths)  # from now on no tool may touch its folders and files
        self.paths = paths
        settings_file = SettingsFile(paths.settings)
        settings = settings_file.load()
        self.keys = KeyStore(
            account=paths.keychain_account,
            key_file=paths.key_file,
            storage=settings.key_storage,
        )
        self.store = Store.open(paths.database)
        self.live = LiveSettings(
            settings_file, settings, keys=self.keys, store=self.store, mode=mode
        )
        self.live.on_browser_change = self._reconfigure_browser
        # Each chat's approved plan; `update_plan` proposes one, and only the person approves.
        self.plans = PlanBook(lambda: self.settings.permissions.plan_minutes)
        self.approvals = ApprovalQueue()
        # Take over / Hand back, and the screen's visualizer: the window wires itself to these
        # as it is built, before the tools that use them exist.
        self.browser_hand = BrowserHand()
        self.screen_hooks = ScreenHooks()
        self.conversations = Conversations(
            store=self.store,
            agent=self.agent_ready,
            delete_session=self.delete_session,
            attachments_dir=paths.attachments,
        )
        self._open_at_login = settings.general.open_at_login
        self.live.listeners.append(self._login_item_changed)
        self.quick_entry_shortcut = QuickEntryShortcut()  # held once the app owns its socket
        self._background: set[asyncio.Future[None]] = set()

    # -- routines and their schedules, built on first use ----------------------------

    @cached_property
    def routines(self) -> Routines:
        """Finished tasks kept as data, and done again through the same pipeline."""
        heavy.wait(heavy.ROUTINES)  # the one place those modules are imported
        from desktop.routines.book import RoutineBook
        from desktop.routines.service import Routines

        routines = Routines(
            book=RoutineBook(self.paths.routines, self.live.file.seal),
            store=self.store,
            conversations=self.conversations,
            agent=self.agent_ready,
        )
        routines.unattended = self.unattended
        return routines

    @cached_property
    def unattended(self) -> Unattended:
        """Scheduled runs' questions, held for the person."""
        heavy.wait(heavy.ROUTINES)
        from desktop.routines.schedules.unattended import Unattended

        return Unattended(
            self.approvals,
            self.plans,
            wait_hours=lambda: self.settings.general.routine_wait_hours,
            stop=self.conversations.stop,
        )

    @cached_property
    def scheduler(self) -> Scheduler:
        """What starts scheduled runs (started by the app once its window is up)."""
        heavy.wait(heavy.ROUTINES)
        from desktop.routines.schedules.book import ScheduleBook
        from desktop.routines.schedules.scheduler import Scheduler

        return Scheduler(
            self.routines,
            ScheduleBook(self.paths.schedules, self.live.file.seal),
            self.unattended,
            self.approvals,
        )

    def routines_built(self) -> bool:
        """Whether the routines exist yet (nothing needs building just to be looked at)."""
        return "routines" in self.__dict__

    # -- the call pipeline, built on first use --------------------------------------

    @cached_property
    def toolbox(self) -> Toolbox:
        heavy.wait(heavy.PIPELINE)  # the one place those modules are imported
        from desktop.calls.sources.plan.proposal import PlanTool
        from desktop.calls.toolbox import Toolbox

        return Toolbox(
            self.settings,
            self.paths,
            on_automation_change=self.live.remember_automation,
            on_save_preset=self.live.save_preset,
            current_settings=lambda: self.settings,
            plan_tool=PlanTool(self.plans.result_text),
            navigation_hold=self.plans.navigation_hold,
            browser_hand=self.browser_hand,
            screen_hooks=self.screen_hooks,
        )

    @property
    def registry(self) -> ToolRegistry:
        """The function tools (tests add their own)."""
        return self.toolbox.registry

    @cached_property
    def gate(self) -> Gate:
        heavy.wait(heavy.PIPELINE)
        from desktop.calls.gate import Gate

        return Gate(
            settings=self.live.permissions,
            store=self.store,
            remember=self.live.set_rule,
            approvals=self.approvals,
            plans=self.plans,
        )

    @cached_property
    def calls(self) -> ToolCalls:
        heavy.wait(heavy.PIPELINE)
        from desktop.chat.tool_calls import ToolCalls

        return ToolCalls(
            self.toolbox.sources,
            gate=self.gate,
            store=self.store,
            attachments_dir=self.paths.attachments,
        )

    @cached_property
    def agent(self) -> Agent:
        heavy.wait(heavy.PIPELINE)
        from desktop.chat.agent import Agent

        return Agent(
            store=self.store,
            settings=lambda: self.settings,
            api_key=self.keys.aget,
            calls=self.calls,
            settled=self.toolbox.settled,
            desktop_context=self.toolbox.desktop_context,
        )

    async def agent_ready(self) -> Agent:
        """The agent, once its modules are in: awaited, so a message sent as the window
        appears never holds up the loop while they load."""
        await heavy.ready(heavy.PIPELINE)
        return self.agent

    def pipeline_built(self) -> bool:
        """Whether the toolbox exists yet (nothing needs building just to be looked at)."""
        return "toolbox" in self.__dict__

    @classmethod
    def open(cls, data_dir: Path | None = None, **kwargs: object) -> Workspace:
        return cls(DataPaths.for_data_dir(data_dir), **kwargs)  # type: ignore[arg-type]

    @property
    def notices(self) -> list[str]:
        """Things the person should be told at start (moved-aside files...)."""
        return [n for n in (self.store.notice, self.live.file.notice) if n]

    def has_key(self) -> bool:
        return bool(self.keys.get())

    @property
    def settings(self) -> Settings:
        """The settings in force (changed through `live`)."""
        return self.live.settings

    def _reconfigure_browser(self) -> None:
        """New browser settings apply from the next browser call (a relaunch if needed)."""
        pool = self.toolbox.built_browser_pool if self.pipeline_built() else None
        if pool is None:
            return  # built later, from the settings then in force
        from desktop.calls.sources.browser.source import browser_config

        config = browser_config(self.settings.browser, self.paths.downloads)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pool.config = config  # nothing launched without a loop: the next launch reads it
            return
        task = asyncio.ensure_future(pool.configure(config))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _login_item_changed(self, settings: Settings) -> None:
        """Open at login turned on or off: the login item is installed or removed."""
        wanted = settings.general.open_at_login
        if wanted == self._open_at_login:
            return
        self._open_at_login = wanted
        self.keep_login_item()

    def keep_login_item(self) -> None:
        """Make the system's login item match the setting (also at start, when it is on: the
        program may have moved since)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop, no app running: the next start applies it
        task: asyncio.Future[None] = asyncio.ensure_future(self._apply_login_item())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _apply_login_item(self) -> None:
        if not await autostart.apply(self._open_at_login):
            log.info(
                "the login item could not be %s", "added" if self._open_at_login else "removed"
            )

    def answer_connector(self, name: str, shown: ServerEntry, start: bool) -> bool:
        """The person's answer about a connector that waits (the window's sheet): started
        exactly as shown, or left stopped. Returns whether it was approved."""
        source = self.toolbox.mcp
        approved = start and source is not None and source.approve(name, shown)
        self.live.audit_outside(f"connector “{name}”", [shown.where()], kept=approved)
        return approved

    def allow_host(self, host: str, session_id: int | None) -> str:
        """The person lets the browser reach a refused local host: in one chat (until quit),
        or always (added to Settings → Browser → allowed sites). Never the model's to call."""
        pool = self.toolbox.browser_pool
        if pool is None:
            raise ValueError("the browser is off")
        canonical = pool.allow_local(host, session=session_id)
        if session_id is None:
            settings = self.settings.model_copy(deep=True)
            hosts = settings.browser.hosts(settings.browser.allow_hosts)
            if canonical not in hosts:
                settings.browser.allow_hosts = ", ".join([*hosts, canonical])
                self.live.apply(settings)
        return canonical

    async def delete_session(self, session_id: int) -> None:
        """Delete a chat: its plan, its messages, its attachments and its browser context."""
        self.plans.end(session_id)
        if self.pipeline_built():
            await self.toolbox.close_session(session_id)
        for path in self.store.delete_session(session_id):
            path.unlink(missing_ok=True)
        shutil.rmtree(self.paths.attachments / str(session_id), ignore_errors=True)

    def transcript(self, session_id: int) -> list[list[AgentEvent]]:
        """A stored chat as the events its turns emitted live, turn by turn (see transcript)."""
        return replay(
            self.store.messages(session_id, replaced=True),
            self.calls.card_for,
            self.store.turn_ends(session_id),
        )

    async def prepare_browser(self) -> None:
        """Start what the first browser call would wait for (Playwright's driver), behind the
        window once the tools are in; nothing when the browser is off."""
        pool = self.toolbox.browser_pool
        if pool is not None:
            await pool.prepare()

    async def list_models(self) -> list[str]:
        """Model ids from the server's models API, newest first. Raises on failure."""
        from desktop.model_stream import client as model

        agent = await self.agent_ready()
        return await model.list_models(await agent.client())

    async def close(self) -> None:
        # What was never built has nothing to close (and is not built for it).
        if self.pipeline_built():
            await self.toolbox.close()
        if "agent" in self.__dict__:
            await self.agent.close()
        self.store.close()

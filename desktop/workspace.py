"""Everything one running Deskhand holds, without Qt: paths, settings, key, store, tools, agent.

The composition root builds one `Workspace`; the window shows it and calls into it.

It is built in two parts. What the window needs to show is built at once: the settings, the
key, the store, the plans, the approval queue, the chats (`Conversations`), and the two hooks
the window wires itself into before any tool exists (the browser's hand, the screen's hooks).
The call pipeline (the toolbox with its sources, the gate, the call runner and the agent) is
built on first use, from modules that load on `heavy`'s thread right after the window's first
paint (`heavy.PIPELINE`): a message sent before they are in waits for them there
(`agent_ready`), and code with no loop at hand (`deskhand mcp`, `deskhand apps call`) waits on
the spot.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.calls.approvals import ApprovalQueue
from desktop.calls.permissions import Mode, PermissionSettings, Rule
from desktop.calls.plans import PlanBook
from desktop.calls.sources.browser.hand import BrowserHand
from desktop.calls.sources.screen.hooks import ScreenHooks
from desktop.chat.conversations import Conversations
from desktop.chat.transcript import replay
from desktop.hotkey.owner import QuickEntryShortcut
from desktop.system import heavy
from desktop.system.keystore import KeyStore
from desktop.system.paths import DataPaths
from desktop.system.settings import KeyStorage, Settings, SettingsFile
from desktop.system.signed_settings import OutsideChange, part_of, with_part
from desktop.system.store import AuditEntry, Store
from tools.mac.presets import Preset

if TYPE_CHECKING:
    from desktop.calls.gate import Gate
    from desktop.calls.runner import ToolCalls
    from desktop.calls.toolbox import Toolbox
    from desktop.chat.agent import Agent
    from desktop.chat.events import AgentEvent
    from desktop.mcp.config import ServerEntry
    from tools.base import ToolRegistry


class Workspace:
    """One data dir's worth of Deskhand state."""

    def __init__(self, paths: DataPaths, *, mode: Mode | None = None) -> None:
        paths.ensure()
        self.paths = paths
        self.settings_file = SettingsFile(paths.settings)
        self.settings: Settings = self.settings_file.load()
        self._settings_stamp = self.settings_file.stamp()
        self.keys = KeyStore(
            account=paths.keychain_account,
            key_file=paths.key_file,
            storage=self.settings.key_storage,
        )
        self.store = Store.open(paths.database)
        # Each chat's approved plan; `update_plan` proposes one, and only the person approves.
        self.plans = PlanBook(lambda: self.settings.permissions.plan_minutes)
        self.mode_override = mode  # --permission-mode: this run only, not saved
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
        self.listeners: list[Callable[[Settings], None]] = []
        self.quick_entry_shortcut = QuickEntryShortcut()  # held once the app owns its socket
        self._background: set[asyncio.Future[None]] = set()

    # -- the call pipeline, built on first use --------------------------------------

    @cached_property
    def toolbox(self) -> Toolbox:
        heavy.wait(heavy.PIPELINE)  # the one place those modules are imported
        from desktop.calls.toolbox import Toolbox
        from tools.plan import PlanTool

        return Toolbox(
            self.settings,
            self.paths,
            on_automation_change=self._remember_automation,
            on_save_preset=self.save_preset,
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
            settings=self.permissions,
            store=self.store,
            remember=self.set_rule,
            approvals=self.approvals,
            plans=self.plans,
        )

    @cached_property
    def calls(self) -> ToolCalls:
        heavy.wait(heavy.PIPELINE)
        from desktop.calls.runner import ToolCalls

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
        return [n for n in (self.store.notice, self.settings_file.notice) if n]

    def has_key(self) -> bool:
        return bool(self.keys.get())

    def apply_settings(self, settings: Settings, api_key: str | None = None) -> KeyStorage | None:
        """Save new settings (and the key, if given); returns where the key went."""
        stored_in = None
        if api_key is not None:
            stored_in = self.keys.set(api_key, settings.key_storage)
            if stored_in != settings.key_storage:
                settings = settings.model_copy(update={"key_storage": stored_in})
        browser_changed = settings.browser != self.settings.browser
        self.settings = settings
        self.settings_file.save(settings)
        self._settings_stamp = self.settings_file.stamp()
        if browser_changed:
            self._reconfigure_browser()
        for listener in self.listeners:
            listener(settings)
        return stored_in

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

    def permissions(self) -> PermissionSettings:
        """The permission settings in force: saved ones, with this run's mode override."""
        current = self.settings.permissions
        if self.mode_override is None:
            return current
        return current.model_copy(update={"mode": self.mode_override})

    @property
    def mode(self) -> Mode:
        return self.permissions().mode

    def set_mode(self, mode: Mode) -> None:
        """Switch mode (toolbar or Settings): saved, and it ends a command-line override."""
        self.mode_override = None
        settings = self.settings.model_copy(deep=True)
        settings.permissions.mode = mode
        self.apply_settings(settings)

    def set_model(self, model: str) -> None:
        """Choose the model that answers (the window's picker or Settings); saved at once."""
        settings = self.settings.model_copy(deep=True)
        settings.model.model = model
        self.apply_settings(settings)

    def set_sidebar_visible(self, visible: bool) -> None:
        """The chat list folded away or shown (View → Show Sidebar); saved for the next start."""
        if self.settings.window.sidebar_visible != visible:
            settings = self.settings.model_copy(deep=True)
            settings.window.sidebar_visible = visible
            self.apply_settings(settings)

    def set_rule(self, key: str, rule: Rule | None) -> None:
        """Set (or with None, clear) the rule for `tool.action`; saved at once."""
        settings = self.settings.model_copy(deep=True)
        if rule is None:
            settings.permissions.rules.pop(key, None)
        else:
            settings.permissions.rules[key] = rule
        self.apply_settings(settings)

    def adopt_rule(self, key: str, rule: Rule) -> None:
        """A rule another Deskhand process saved (the window, answering for `deskhand mcp`):
        in force here at once, and not written again (the settings file has one writer)."""
        settings = self.settings.model_copy(deep=True)
        settings.permissions.rules[key] = rule
        self.settings = settings

    def refresh_settings(self) -> None:
        """Take the settings file as it is now if another process (the window) changed it since
        this one read or wrote it; an unreadable file leaves the settings in force, and a
        permission part changed outside Deskhand is not taken (`outside_change` says what)."""
        stamp = self.settings_file.stamp()
        if stamp == self._settings_stamp:
            return
        settings = self.settings_file.read()
        if settings is None:
            return
        self._settings_stamp = stamp
        browser_changed = settings.browser != self.settings.browser
        self.settings = settings
        if browser_changed:
            self._reconfigure_browser()

    @property
    def outside_change(self) -> OutsideChange | None:
        """Permission settings changed outside Deskhand, not in force until the person keeps
        them (see desktop/system/signed_settings.py)."""
        return self.settings_file.outside

    def keep_outside_change(self, change: OutsideChange) -> None:
        """The person keeps what was changed outside (as the sheet showed it): the permission
        part it proposed is signed and in force from now on, beside the settings in force."""
        kept = with_part(self.settings.model_dump(mode="json"), part_of(change.proposed))
        self.apply_settings(Settings.model_validate(kept))
        self._audit_outside("permissions", change.differences, kept=True)

    def discard_outside_change(self, change: OutsideChange) -> None:
        """The person discards it: the file gets back the settings Deskhand last wrote."""
        self.apply_settings(self.settings)
        self._audit_outside("permissions", change.differences, kept=False)

    def answer_connector(self, name: str, shown: ServerEntry, start: bool) -> bool:
        """The person's answer about a connector that waits (the window's sheet): started
        exactly as shown, or left stopped. Returns whether it was approved."""
        source = self.toolbox.mcp
        approved = start and source is not None and source.approve(name, shown)
        self._audit_outside(f"connector “{name}”", [shown.where()], kept=approved)
        return approved

    def _audit_outside(self, what: str, lines: list[str], *, kept: bool) -> None:
        """The audit keeps the person's answer about a change made outside Deskhand."""
        summary = f"Changed outside Deskhand, {what}: " + "; ".join(lines)
        self.store.add_audit(
            AuditEntry(
                at=time.time(),
                session_id=None,
                tool="deskhand",
                action="outside_change",
                summary=summary[:500],
                input_digest="",
                decision="allowed" if kept else "denied",
                decided_by="person",
                outcome="kept" if kept else "discarded",
                reason="" if kept else "the person did not keep it",
            )
        )

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
                self.apply_settings(settings)
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

    def save_preset(self, preset: dict[str, Any]) -> None:
        """Keep a window layout; one with the same name (any case) is replaced."""
        settings = self.settings.model_copy(deep=True)
        name = str(preset.get("name", "")).casefold()
        settings.apps.presets = [p for p in settings.apps.presets if p.name.casefold() != name]
        settings.apps.presets.append(Preset.model_validate(preset))
        self.apply_settings(settings)

    def _remember_automation(self, states: dict[str, str]) -> None:
        settings = self.settings.model_copy(deep=True)
        settings.apps.automation = states
        self.apply_settings(settings)

    async def close(self) -> None:
        # What was never built has nothing to close (and is not built for it).
        if self.pipeline_built():
            await self.toolbox.close()
        if "agent" in self.__dict__:
            await self.agent.close()
        self.store.close()

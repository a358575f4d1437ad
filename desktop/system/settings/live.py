"""The settings in force: read from the settings file, changed only through here, saved at once.

Every change goes through `apply`, which saves the file (and the key, when one is given) and
tells the listeners (the window's widgets). A change another Deskhand process saved is taken
with `refresh`; a permission part changed outside Deskhand is not in force until the person
keeps it (`keep_outside`; `discard_outside` writes back what Deskhand last wrote), and the
audit keeps their answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from desktop.system.keystore import KeyStore
from desktop.system.settings.model import KeyStorage, Settings, SettingsFile
from desktop.system.settings.permissions import Mode, PermissionSettings, Rule
from desktop.system.settings.signed import OutsideChange, part_of, with_part
from desktop.system.store import AuditEntry, Store
from tools.mac.presets import Preset


class LiveSettings:
    """One data dir's settings as they are now, and every way to change them."""

    def __init__(
        self,
        file: SettingsFile,
        settings: Settings,
        *,
        keys: KeyStore,
        store: Store,
        mode: Mode | None = None,
    ) -> None:
        self.file = file
        self.settings = settings  # as `file.load()` gave them
        self._stamp = file.stamp()
        self.keys = keys
        self._store = store
        self.mode_override = mode  # --permission-mode: this run only, not saved
        self.listeners: list[Callable[[Settings], None]] = []
        # Told when the browser's settings changed (the workspace reconfigures the browser).
        self.on_browser_change: Callable[[], None] = lambda: None

    def apply(self, settings: Settings, api_key: str | None = None) -> KeyStorage | None:
        """Save new settings (and the key, if given); returns where the key went."""
        stored_in = None
        if api_key is not None:
            stored_in = self.keys.set(api_key, settings.key_storage)
            if stored_in != settings.key_storage:
                settings = settings.model_copy(update={"key_storage": stored_in})
        browser_changed = settings.browser != self.settings.browser
        self.settings = settings
        self.file.save(settings)
        self._stamp = self.file.stamp()
        if browser_changed:
            self.on_browser_change()
        for listener in self.listeners:
            listener(settings)
        return stored_in

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
        self.apply(settings)

    def set_model(self, model: str) -> None:
        """Choose the model that answers (the window's picker or Settings); saved at once."""
        settings = self.settings.model_copy(deep=True)
        settings.model.model = model
        self.apply(settings)

    def set_sidebar_visible(self, visible: bool) -> None:
        """The chat list folded away or shown (View → Show Sidebar); saved for the next start."""
        if self.settings.window.sidebar_visible != visible:
            settings = self.settings.model_copy(deep=True)
            settings.window.sidebar_visible = visible
            self.apply(settings)

    def set_rule(self, key: str, rule: Rule | None) -> None:
        """Set (or with None, clear) the rule for `tool.action`; saved at once."""
        settings = self.settings.model_copy(deep=True)
        if rule is None:
            settings.permissions.rules.pop(key, None)
        else:
            settings.permissions.rules[key] = rule
        self.apply(settings)

    def adopt_rule(self, key: str, rule: Rule) -> None:
        """A rule another Deskhand process saved (the window, answering for `deskhand mcp`):
        in force here at once, and not written again (the settings file has one writer)."""
        settings = self.settings.model_copy(deep=True)
        settings.permissions.rules[key] = rule
        self.settings = settings

    def save_preset(self, preset: dict[str, Any]) -> None:
        """Keep a window layout; one with the same name (any case) is replaced."""
        settings = self.settings.model_copy(deep=True)
        name = str(preset.get("name", "")).casefold()
        settings.apps.presets = [p for p in settings.apps.presets if p.name.casefold() != name]
        settings.apps.presets.append(Preset.model_validate(preset))
        self.apply(settings)

    def remember_automation(self, states: dict[str, str]) -> None:
        """What macOS answered about Automation per app (Settings → Apps shows it)."""
        settings = self.settings.model_copy(deep=True)
        settings.apps.automation = states
        self.apply(settings)

    def refresh(self) -> None:
        """Take the settings file as it is now if another process (the window) changed it since
        this one read or wrote it; an unreadable file leaves the settings in force, and a
        permission part changed outside Deskhand is not taken (`outside_change` says what)."""
        stamp = self.file.stamp()
        if stamp == self._stamp:
            return
        settings = self.file.read()
        if settings is None:
            return
        self._stamp = stamp
        browser_changed = settings.browser != self.settings.browser
        self.settings = settings
        if browser_changed:
            self.on_browser_change()

    @property
    def outside_change(self) -> OutsideChange | None:
        """Permission settings changed outside Deskhand, not in force until the person keeps
        them (see desktop/system/settings/signed.py)."""
        return self.file.outside

    def keep_outside(self, change: OutsideChange) -> None:
        """The person keeps what was changed outside (as the sheet showed it): the permission
        part it proposed is signed and in force from now on, beside the settings in force."""
        kept = with_part(self.settings.model_dump(mode="json"), part_of(change.proposed))
        self.apply(Settings.model_validate(kept))
        self.audit_outside("permissions", change.differences, kept=True)

    def discard_outside(self, change: OutsideChange) -> None:
        """The person discards it: the file gets back the settings Deskhand last wrote."""
        self.apply(self.settings)
        self.audit_outside("permissions", change.differences, kept=False)

    def audit_outside(self, what: str, lines: list[str], *, kept: bool) -> None:
        """The audit keeps the person's answer about a change made outside Deskhand."""
        summary = f"Changed outside Deskhand, {what}: " + "; ".join(lines)
        self._store.add_audit(
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

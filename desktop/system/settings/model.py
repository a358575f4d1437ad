"""The settings model (pydantic), saved as JSON in the config dir. The API key is not a setting:
it lives in the keystore (`keystore.py`).

Every field carries a `title` and a `description`: the Settings dialog is built from them.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import typing
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from desktop.system.settings.permissions import PermissionSettings
from desktop.system.settings.shortcut import DEFAULT_SHORTCUT, Shortcut
from desktop.system.settings.signed import (
    KEY_NAME,
    SIGNED_KEY,
    OutsideChange,
    Seal,
    differences,
    part_of,
    with_part,
)
from tools.data import Data
from tools.mac.presets import Preset

log = logging.getLogger(__name__)


def newest_sonnet(candidates: typing.Iterable[str]) -> str | None:
    """The first Sonnet id in a newest-first list (the SDK and the models API both list newest first)."""
    for model_id in candidates:
        if model_id.startswith("claude-sonnet-") and not model_id[-8:].isdigit():
            return model_id
    for model_id in candidates:
        if "sonnet" in model_id:
            return model_id
    return None


def _sdk_model_type() -> Any:
    """The installed SDK's `Model` type, read from its own small module.

    Importing `anthropic` takes more than a second, which the window must not wait for at
    start; `anthropic/types/model.py` needs only `typing`, so it is loaded on its own.
    """
    try:
        package = importlib.util.find_spec("anthropic")
        if package is None or package.origin is None:
            raise ImportError("anthropic")
        spec = importlib.util.spec_from_file_location(
            "_deskhand_sdk_model_ids", Path(package.origin).parent / "types" / "model.py"
        )
        if spec is None or spec.loader is None:
            raise ImportError("anthropic.types.model")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.Model
    except (ImportError, OSError, AttributeError):
        from anthropic.types import Model  # the layout changed: the slow way still works

        return Model


def _sdk_models() -> list[str]:
    model = _sdk_model_type()
    literal = next(arg for arg in typing.get_args(model) if typing.get_origin(arg) is Literal)
    return list(typing.get_args(literal))


DEFAULT_MODEL = newest_sonnet(_sdk_models()) or "claude-sonnet-4-5"


class ModelSettings(Data):
    """The Model page: which server and model answer, and how."""

    base_url: str = Field(
        "",
        title="Base URL",
        description="Leave blank for Anthropic. Any Anthropic-compatible server works, "
        "e.g. http://localhost:11434 for Ollama.",
    )
    model: str = Field(DEFAULT_MODEL, title="Model", description="The model that answers.")
    max_tokens: int = Field(
        8192, ge=1, le=128_000, title="Max tokens", description="Longest reply, in tokens."
    )
    system_prompt_extra: str = Field(
        "",
        title="System prompt addition",
        description="Extra instructions added to every conversation.",
    )
    keep_images: int = Field(
        3,
        ge=1,
        le=20,
        title="Screenshots sent",
        description="How many of the newest screenshots go with each request; older ones stay in the thread.",
    )

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        value = value.strip()
        parts = urlsplit(value)
        if value and not (parts.scheme in ("http", "https") and parts.netloc):
            # A custom error keeps pydantic's "Value error, " prefix out of the Settings dialog.
            raise PydanticCustomError(
                "base_url",
                "Enter a URL that starts with http:// or https://, or leave it blank for Anthropic.",
            )
        return value

    max_retries: int = Field(
        2, ge=0, le=10, title="Retries", description="How often a failed request is retried."
    )


class AppsSettings(Data):
    """Settings → Apps: the Mac tools and what Deskhand learned about their permissions."""

    macos_enabled: bool = Field(
        True,
        title="Mac apps",
        description="Let Claude use Calendar, Reminders, Notes, Mail, the clipboard and Finder "
        "(macOS only; each app asks for Automation permission once).",
    )
    automation: dict[str, str] = Field(
        default_factory=dict,
        title="Automation permissions",
        description="Per app: allowed, denied or unknown, as last seen.",
    )
    presets: list[Preset] = Field(
        default_factory=list, title="Layout presets", description="Named window layouts."
    )
    desktop_context: bool = Field(
        True,
        title="Desktop snapshot",
        description="Before each turn, tell Claude which apps, screens, presets and tabs "
        "(titles and domains only) are open.",
    )


class BrowserSettings(Data):
    """Settings → Browser: which browser, how it shows, and what the model may do with it."""

    enabled: bool = Field(True, title="Browser", description="Let Claude use a browser for you.")
    executable_path: str = Field(
        "",
        title="Browser path",
        description="Leave blank to use Playwright's Chromium, Chrome, Edge or a system Chromium.",
    )
    headless: bool = Field(
        False, title="Hide the browser window", description="Run the browser without a window."
    )
    persistent_profile: bool = Field(
        False,
        title="Keep a Deskhand profile",
        description="Keep cookies and sign-ins between chats in a profile only Deskhand uses.",
    )
    allow_hosts: str = Field(
        "",
        title="Always allowed sites",
        description="Hosts separated by spaces or commas; these may be local or private addresses.",
    )
    block_hosts: str = Field(
        "", title="Blocked sites", description="Hosts separated by spaces or commas; never opened."
    )
    read_console: bool = Field(False, title="Read the console", description="Off by default.")
    read_network: bool = Field(False, title="Read network requests", description="Off by default.")
    javascript_exec: bool = Field(
        False, title="Run JavaScript", description="Off by default; always asks before it runs."
    )
    file_upload: bool = Field(
        False, title="Upload files", description="Off by default; only from the folder below."
    )
    upload_dir: str = Field("", title="Upload folder", description="Uploads come only from here.")

    def hosts(self, text: str) -> tuple[str, ...]:
        return tuple(h for h in text.replace(",", " ").split() if h)


Theme = Literal["system", "light", "dark"]
THEME_TITLES: dict[Theme, str] = {"system": "Same as the system", "light": "Light", "dark": "Dark"}


class AppearanceSettings(Data):
    """Settings → Appearance: how Deskhand looks."""

    theme: Theme = Field(
        "system",
        title="Theme",
        description="Light or dark. “Same as the system” follows your system's setting as it "
        "changes.",
    )


KeyStorage = Literal["keychain", "session", "file"]


class ScreenSettings(Data):
    """Settings → Screen: whether Claude may see and use the screen, and the visualizer."""

    enabled: bool = Field(
        True,
        title="Screen",
        description="Let Claude see and use the screen (where this computer allows it).",
    )
    visualizer: bool = Field(
        True,
        title="Show what Claude does",
        description="Ripples for clicks, the text being typed, and a Stop button on screen.",
    )


QuickEntryTarget = Literal["new", "latest"]


class GeneralSettings(Data):
    """Settings → General: the quick entry shortcut, and where what it sends goes; opening at
    login, and how long a scheduled routine waits for an answer."""

    quick_entry_shortcut: str = Field(
        DEFAULT_SHORTCUT,
        title="Quick entry shortcut",
        description="Opens a small composer over any app, on the screen the pointer is on. "
        "Click the shortcut, then press the keys you want; or turn it off.",
    )
    quick_entry_target: QuickEntryTarget = Field(
        "new",
        title="Quick entry sends to",
        description="A new chat each time, or the chat you used last.",
    )
    open_at_login: bool = Field(
        False,
        title="Open at login",
        description="Start Deskhand when you log in, so scheduled routines run on time.",
    )
    routine_wait_hours: int = Field(
        12,
        ge=1,
        le=168,
        title="A scheduled run waits for you (hours)",
        description="A scheduled routine that needs your answer ends as not done after this "
        "long without one.",
    )

    @field_validator("quick_entry_shortcut")
    @classmethod
    def _shortcut(cls, value: str) -> str:
        try:
            shortcut = Shortcut.parse(value)
        except ValueError as exc:
            raise PydanticCustomError("shortcut", "{problem}", {"problem": str(exc)}) from exc
        return shortcut.stored() if shortcut is not None else ""


class WindowSettings(Data):
    """How the person left the window, kept across restarts (no Settings page shows it)."""

    sidebar_visible: bool = Field(
        True, title="Show the chat list", description="View → Show Sidebar."
    )


class Settings(Data):
    """All of Deskhand's settings."""

    general: GeneralSettings = Field(default_factory=GeneralSettings, title="General")
    model: ModelSettings = Field(default_factory=ModelSettings, title="Model")
    permissions: PermissionSettings = Field(default_factory=PermissionSettings, title="Permissions")
    apps: AppsSettings = Field(default_factory=AppsSettings, title="Apps")
    browser: BrowserSettings = Field(default_factory=BrowserSettings, title="Browser")
    screen: ScreenSettings = Field(default_factory=ScreenSettings, title="Screen")
    appearance: AppearanceSettings = Field(default_factory=AppearanceSettings, title="Appearance")
    window: WindowSettings = Field(default_factory=WindowSettings, title="Window")
    key_storage: KeyStorage = Field(
        "keychain",
        title="Key storage",
        description="Where the API key is kept when no keychain is available.",
    )

    def effective_base_url(self) -> str | None:
        """The settings' base URL, else `ANTHROPIC_BASE_URL`, else None (Anthropic)."""
        return self.model.base_url.strip() or os.environ.get("ANTHROPIC_BASE_URL") or None


class SettingsFile:
    """Loads and saves `Settings` as JSON. A broken file is moved aside, never silently lost.

    The permission part is signed (`signed.py`): what was changed outside Deskhand is
    not in force (`outside` says what it was) until the person keeps it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.notice: str | None = None
        self.seal = Seal(path.with_name(KEY_NAME))
        self.outside: OutsideChange | None = None

    def load(self) -> Settings:
        try:
            return self._current()
        except (ValidationError, ValueError, OSError):
            aside = self.path.with_suffix(".json.broken")
            self.path.replace(aside)
            self.outside = None
            self.notice = (
                f"Your settings file could not be read and was moved to {aside}. "
                "Deskhand started with default settings."
            )
            log.warning("settings unreadable, moved to %s", aside)
            return Settings()

    def stamp(self) -> tuple[int, int, int] | None:
        """What tells a changed file apart (inode, size, modification time), or None if absent."""
        try:
            info = self.path.stat()
        except OSError:
            return None
        return (info.st_ino, info.st_size, info.st_mtime_ns)

    def read(self) -> Settings | None:
        """The file as it is now, or None if it cannot be read (left as it is: the process that
        owns it will say so)."""
        try:
            return self._current()
        except (ValidationError, ValueError, OSError):
            return None

    def _current(self) -> Settings:
        """The file's settings, the defaults when there is no file; raises when it cannot be
        read or verified."""
        if not self.path.exists():
            self.outside = None
            return Settings()
        return self._verified(self.path.read_text(encoding="utf-8"))

    def _verified(self, text: str) -> Settings:
        """The settings in force: the file's, with the permission part Deskhand signed."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("settings must be one JSON object")
        block = data.pop(SIGNED_KEY, None)
        found = Settings.model_validate(data)
        dump = found.model_dump(mode="json")
        if block is None and not self.seal.exists():
            # Written before settings were signed, and nothing could have signed it: adopted.
            self.outside = None
            try:
                self.save(found)
            except OSError:
                log.warning("could not sign the settings", exc_info=True)
            return found
        defaults = part_of(Settings().model_dump(mode="json"))
        trusted = self.seal.trusted_part(block)
        if trusted is None:  # no good code: only the defaults are known to be Deskhand's
            trusted = defaults
        # A setting guarded since this file was signed has, as far as Deskhand knows, its default.
        trusted = {**defaults, **{k: v for k, v in trusted.items() if k in defaults}}
        changed = differences(trusted, part_of(dump))
        if not changed:
            self.outside = None
            return found
        self.outside = OutsideChange(differences=changed, proposed=dump)
        return Settings.model_validate(with_part(dump, trusted))

    def save(self, settings: Settings) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = settings.model_dump(mode="json")
        data[SIGNED_KEY] = self.seal.sign(data)
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        tmp.replace(self.path)  # atomic: a crash mid-write never leaves half a file
        self.outside = None

"""The browser settings the driver runs with, as one immutable value (Settings → Browser maps onto it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from tools.browser.network.url_policy import UrlPolicy

__all__ = ["OPTIONAL_MEMBERS", "BrowserConfig", "default_downloads_dir"]

# Members off unless the person turns them on: each has a flag of its name in `BrowserConfig`
# (Settings → Browser), which the toolset passes to the SDK as that member's config.
OPTIONAL_MEMBERS = ("read_console", "read_network", "javascript_exec", "file_upload")


def default_downloads_dir() -> Path:
    return platformdirs.user_downloads_path() / "Deskhand"


@dataclass(frozen=True, kw_only=True)
class BrowserConfig:
    """How to launch the browser and what the model may do with it.

    `executable_path` / `channel` pick the browser (neither: `find_browser()` decides, with
    Chrome and Edge first when `branded_first`);
    `profile_dir` switches from a fresh profile per chat to one persistent Deskhand profile
    shared by all chats (never point it at the person's everyday profile). The four
    default-off members need their flag here and, for `file_upload`, an `upload_dir`.
    """

    executable_path: str | None = None
    channel: str | None = None
    branded_first: bool = False
    headless: bool = False
    profile_dir: Path | None = None
    url_policy: UrlPolicy = field(default_factory=UrlPolicy)
    downloads_dir: Path = field(default_factory=default_downloads_dir)
    upload_dir: Path | None = None
    expose_download_paths: bool = False
    read_console: bool = False
    read_network: bool = False
    javascript_exec: bool = False
    file_upload: bool = False
    viewport: tuple[int, int] = (1280, 800)
    extra_args: tuple[str, ...] = ()
    action_timeout: float = 10.0
    navigation_timeout: float = 30.0

    def launch_key(self) -> tuple[object, ...]:
        """The settings that need a new browser process when they change."""
        return (
            self.executable_path,
            self.channel,
            self.branded_first,
            self.headless,
            self.profile_dir,
            self.extra_args,
            self.viewport,
        )

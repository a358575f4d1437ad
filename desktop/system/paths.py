"""Where Deskhand keeps its files: the platform dirs, or everything under one `--data-dir`."""

from __future__ import annotations

import hashlib
from pathlib import Path

import platformdirs

from tools.data import Data

APP_NAME = "Deskhand"


class DataPaths(Data):
    """Every location Deskhand writes to. Two `DataPaths` built from different data dirs never overlap."""

    root: Path
    database: Path
    settings: Path
    mcp_config: Path  # MCP servers, in Claude Desktop's format (see desktop/mcp/config.py)
    attachments: Path
    downloads: Path
    logs: Path
    cache: Path  # rebuildable: parsed app dictionaries
    key_file: Path
    keychain_account: str

    @classmethod
    def for_data_dir(cls, data_dir: Path | None) -> DataPaths:
        if data_dir is None:
            data = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
            config = Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))
            logs = Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))
            cache = Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
            account = "api-key"
            downloads = platformdirs.user_downloads_path() / APP_NAME
        else:
            data = config = Path(data_dir).expanduser().resolve()
            logs = data / "logs"
            cache = data / "cache"
            # A custom data dir gets its own keychain entry so two data dirs never share a key.
            digest = hashlib.sha256(str(data).encode()).hexdigest()[:12]
            account = f"api-key:{digest}"
            downloads = data / "downloads"
        return cls(
            root=data,
            database=data / "deskhand.db",
            settings=config / "settings.json",
            mcp_config=config / "mcp.json",
            attachments=data / "attachments",
            downloads=downloads,
            logs=logs,
            cache=cache,
            key_file=config / "api-key",
            keychain_account=account,
        )

    @property
    def routines(self) -> Path:
        """One signed file per routine (desktop/routines/book.py), inside the data folder: a
        tool can no more change a routine than the settings."""
        return self.root / "routines"

    @property
    def schedules(self) -> Path:
        """One signed file per scheduled routine: its schedule and the person's approval of
        it (desktop/routines/schedules/book.py), beside the routines."""
        return self.root / "schedules"

    def ensure(self) -> None:
        """Create the folders; raises OSError when the location is not writable."""
        for folder in (self.root, self.settings.parent, self.attachments, self.logs):
            folder.mkdir(parents=True, exist_ok=True)

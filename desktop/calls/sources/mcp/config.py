"""The MCP servers Deskhand uses: `mcp.json` in the config dir, in Claude Desktop's format.

    {"mcpServers": {"files": {"command": "npx", "args": ["-y", "…"], "env": {}},
                    "remote": {"url": "https://…/mcp", "headers": {"Authorization": "…"}}}}

Deskhand adds keys of its own per server (`disabled`, `trusted`; `oauth` and `scopes` for a
server that signs in, whose tokens are never here: sign_ins.py), and one at the top,
`deskhandLazyStart`; anything else in the file (other apps' keys) is kept as it is. Reading
never writes: a file that cannot be read is reported with where it went wrong, and Deskhand
writes the file only when the person saves a change in Settings → Connectors.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from tools.data import Data
from tools.mcp.spec import HttpSpec, ServerSpec, StdioSpec

MAX_NAME = 40


class ServerEntry(Data):
    """One server: a command to start (stdio) or a URL to reach (streamable HTTP)."""

    model_config = ConfigDict(extra="allow")

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    disabled: bool = False  # kept, not started
    trusted: bool = False  # its tools' own read/destructive hints set their default risk
    oauth: bool = False  # signs in (OAuth); its tokens are kept apart (sign_ins.py)
    scopes: list[str] = Field(default_factory=list)  # the scopes asked for at sign-in

    @model_validator(mode="after")
    def _one_way_in(self) -> ServerEntry:
        if bool(self.command) == bool(self.url):
            raise PydanticCustomError(
                "server_entry", "Give either a command to start or a URL, not both."
            )
        if self.url and not self.url.startswith(("http://", "https://")):
            raise PydanticCustomError(
                "server_entry", "The URL must start with http:// or https://."
            )
        if self.oauth and not self.url:
            raise PydanticCustomError("server_entry", "Only a server with a URL can sign in.")
        if self.url and getattr(self, "type", None) == "sse":
            raise PydanticCustomError(
                "server_entry",
                "Servers that only speak the old SSE transport are not supported; "
                "use the server's streamable HTTP URL.",
            )
        return self

    def spec(self) -> ServerSpec:
        if self.url:
            return HttpSpec(url=self.url, headers=dict(self.headers), oauth=self.oauth)
        return StdioSpec(
            command=self.command or "", args=list(self.args), env=dict(self.env), cwd=self.cwd
        )

    def where(self) -> str:
        """How the server is reached, in one line: its command line or its URL (no secrets)."""
        if self.url:
            return self.url
        return shlex.join([self.command or "", *self.args])

    def dump(self) -> dict[str, Any]:
        """The entry as Claude Desktop writes it: only what is set, plus keys of other apps."""
        return self.model_dump(mode="json", exclude_defaults=True)


class McpConfig(Data):
    """The whole file."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    servers: dict[str, ServerEntry] = Field(default_factory=dict, alias="mcpServers")
    lazy_start: bool = Field(False, alias="deskhandLazyStart")

    def dump(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", by_alias=True, exclude={"servers", "lazy_start"})
        data["mcpServers"] = {name: entry.dump() for name, entry in self.servers.items()}
        if self.lazy_start:
            data["deskhandLazyStart"] = True
        return data


class ConfigRead(Data):
    """What reading the file gave: the servers, or a problem the person must fix first."""

    config: McpConfig = Field(default_factory=McpConfig)
    problem: str | None = None
    text: str | None = None  # the file as it was read (None: there was no file)


class ConfigChanged(Exception):
    """The file changed on disk since it was read: saving would lose what changed."""


def _location(error: Any) -> str:
    parts = [str(part) for part in error["loc"] if part not in ("function-after", "ServerEntry")]
    return " → ".join(parts) if parts else "the top level"


def parse_config(text: str, path: Path) -> ConfigRead:
    """The config in `text`, or what is wrong with it (with where, so it can be fixed)."""
    fix = "Fix it in a text editor and press Reload; Deskhand has not changed it."
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        return ConfigRead(
            text=text,
            problem=f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}). {fix}",
        )
    if not isinstance(data, dict):
        return ConfigRead(
            text=text, problem=f"{path} must hold one JSON object with “mcpServers”. {fix}"
        )
    try:
        return ConfigRead(text=text, config=McpConfig.model_validate(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        return ConfigRead(text=text, problem=f"{path}: {_location(first)}: {first['msg']} {fix}")


def read_config(path: Path) -> ConfigRead:
    """Read `path` (a missing file is an empty config). Never writes anything."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ConfigRead()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
        return ConfigRead(problem=f"Deskhand could not read {path}: {reason}.")
    return parse_config(text, path)


def write_config(path: Path, config: McpConfig, *, read: ConfigRead | None = None) -> str:
    """Save atomically, readable only by this user (env and headers may hold tokens); returns
    the text written. With `read`, refuses (ConfigChanged) when the file is no longer what
    was read then, so an edit made meanwhile in a text editor is never lost."""
    if read is not None:
        try:
            now: str | None = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            now = None
        if now != read.text:
            raise ConfigChanged(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    text = json.dumps(config.dump(), indent=2, ensure_ascii=False) + "\n"
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(text)
    tmp.replace(path)
    return text


def name_problem(name: str, others: set[str]) -> str | None:
    """What is wrong with a server name, or None."""
    if not name.strip():
        return "A server needs a name."
    if len(name) > MAX_NAME:
        return f"A server name has at most {MAX_NAME} characters."
    if any(ord(ch) < 32 for ch in name):
        return "A server name cannot hold control characters."
    if name in others:
        return f"There is already a server named “{name}”."
    return None


def claude_desktop_config(home: Path | None = None, platform: str = sys.platform) -> Path:
    """Where Claude Desktop keeps its config on this platform."""
    home = home or Path.home()
    if platform == "darwin":
        base = home / "Library" / "Application Support"
    elif platform == "win32":
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return base / "Claude" / "claude_desktop_config.json"


def merge_servers(into: McpConfig, other: McpConfig) -> tuple[McpConfig, list[str], list[str]]:
    """`into` plus `other`'s servers; a name `into` already has is skipped. (config, added,
    skipped)"""
    merged = into.model_copy(deep=True)
    added, skipped = [], []
    for name, entry in other.servers.items():
        if name in merged.servers:
            skipped.append(name)
        else:
            merged.servers[name] = entry.model_copy(deep=True)
            added.append(name)
    return merged, added, skipped

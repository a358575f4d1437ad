"""mcp.json: Claude Desktop's format read as it is, problems said with where, never rewritten
by reading, other apps' keys kept on Save, and Claude Desktop's own file found per platform."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from desktop.calls.sources.mcp.config import (
    ConfigChanged,
    McpConfig,
    ServerEntry,
    claude_desktop_config,
    merge_servers,
    name_problem,
    read_config,
    write_config,
)
from tools.mcp.spec import HttpSpec, StdioSpec

CLAUDE_DESKTOP = {
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ana/Desktop"],
        },
        "github": {
            "command": "docker",
            "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x"},
        },
        "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer t"}},
    },
}


def test_claude_desktops_format_reads_as_servers(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(CLAUDE_DESKTOP))
    read = read_config(path)
    assert read.problem is None
    servers = read.config.servers
    assert list(servers) == ["filesystem", "github", "remote"]
    assert servers["github"].spec() == StdioSpec(
        command="docker",
        args=["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
        env={"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x"},
    )
    assert servers["remote"].spec() == HttpSpec(
        url="https://mcp.example.com/mcp", headers={"Authorization": "Bearer t"}
    )
    assert servers["filesystem"].where() == (
        "npx -y @modelcontextprotocol/server-filesystem /Users/ana/Desktop"
    )
    assert not any(entry.trusted or entry.disabled for entry in servers.values())


def test_a_missing_file_is_an_empty_config(tmp_path: Path) -> None:
    read = read_config(tmp_path / "mcp.json")
    assert read.problem is None and read.config.servers == {}
    assert not (tmp_path / "mcp.json").exists()


def test_broken_json_says_where_and_the_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    text = '{\n  "mcpServers": {\n    "files": {"command": "npx",}\n  }\n}\n'
    path.write_text(text)
    before = path.stat().st_mtime_ns
    read = read_config(path)
    assert read.problem is not None
    assert f"{path} is not valid JSON (line 3, column 32: Expecting property name" in read.problem
    assert "Deskhand has not changed it" in read.problem
    assert path.read_text() == text and path.stat().st_mtime_ns == before


def test_a_wrong_shape_says_which_server_and_what(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"files": {"command": "npx", "args": "-y x"}}}))
    read = read_config(path)
    assert read.problem is not None and "mcpServers → files → args" in read.problem
    path.write_text(json.dumps({"mcpServers": {"both": {"command": "x", "url": "http://h/"}}}))
    problem = read_config(path).problem or ""
    assert "both" in problem and "Give either a command to start or a URL, not both." in problem
    path.write_text("[1, 2]")
    assert "must hold one JSON object" in (read_config(path).problem or "")


def test_saving_keeps_other_apps_keys_and_writes_only_what_is_set(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    source = dict(CLAUDE_DESKTOP)
    source["mcpServers"] = dict(CLAUDE_DESKTOP["mcpServers"])  # type: ignore[arg-type]
    source["mcpServers"]["filesystem"] = {  # type: ignore[index]
        **CLAUDE_DESKTOP["mcpServers"]["filesystem"],  # type: ignore[index]
        "type": "stdio",
    }
    path.write_text(json.dumps(source))
    config = read_config(path).config
    config.servers["github"].trusted = True
    config.servers["remote"].disabled = True
    config.lazy_start = True
    write_config(path, config)
    saved = json.loads(path.read_text())
    assert saved["globalShortcut"] == "Ctrl+Space"
    assert saved["deskhandLazyStart"] is True
    assert saved["mcpServers"]["filesystem"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ana/Desktop"],
        "type": "stdio",
    }
    assert saved["mcpServers"]["github"]["trusted"] is True
    assert saved["mcpServers"]["remote"]["disabled"] is True
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # tokens in env and headers
    assert read_config(path).config == config


def test_claude_desktops_config_is_found_where_each_platform_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path
    mac = claude_desktop_config(home, "darwin")
    assert mac == home / "Library/Application Support/Claude/claude_desktop_config.json"
    monkeypatch.setenv("APPDATA", str(tmp_path / "Roaming"))
    windows = claude_desktop_config(home, "win32")
    assert windows == tmp_path / "Roaming/Claude/claude_desktop_config.json"
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    linux = claude_desktop_config(home, "linux")
    assert linux == home / ".config/Claude/claude_desktop_config.json"


def test_importing_adds_new_servers_and_skips_taken_names() -> None:
    mine = McpConfig(servers={"github": ServerEntry(command="gh-mcp")})
    theirs = McpConfig.model_validate(CLAUDE_DESKTOP)
    merged, added, skipped = merge_servers(mine, theirs)
    assert added == ["filesystem", "remote"] and skipped == ["github"]
    assert merged.servers["github"].command == "gh-mcp"
    assert mine.servers.keys() == {"github"}


def test_server_names_must_be_usable() -> None:
    assert name_problem("files", {"github"}) is None
    assert name_problem(" ", set()) == "A server needs a name."
    assert name_problem("github", {"github"}) == "There is already a server named “github”."
    assert name_problem("a\nb", set()) is not None


def test_a_save_never_overwrites_an_edit_made_since_the_file_was_read(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(CLAUDE_DESKTOP))
    read = read_config(path)
    edited = json.dumps({"mcpServers": {"new": {"command": "added-in-an-editor"}}})
    path.write_text(edited)
    with pytest.raises(ConfigChanged):
        write_config(path, read.config, read=read)
    assert path.read_text() == edited
    again = read_config(path)
    write_config(path, again.config, read=again)  # read again: saving is fine
    assert read_config(path).config.servers["new"].command == "added-in-an-editor"

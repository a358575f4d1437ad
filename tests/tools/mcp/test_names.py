"""MCP tools' API names: mcp__<server>__<tool>, within the API's rules, never colliding."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from tools.mcp.names import api_name, rules_action, rules_tool

API_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_plain_names_read_as_server_and_tool() -> None:
    assert api_name("everything", "echo") == "mcp__everything__echo"
    assert api_name("my files", "read.file") == "mcp__my_files__read_file"
    assert rules_tool("my files") == "mcp__my_files"
    assert rules_action("my files", "read.file") == "read_file"


@given(st.text(min_size=1, max_size=80), st.text(min_size=1, max_size=200))
def test_any_server_and_tool_name_makes_a_valid_api_name(server: str, tool: str) -> None:
    name = api_name(server, tool)
    assert API_NAME.match(name), name
    assert name == f"{rules_tool(server)}__{rules_action(server, tool)}"
    assert "." not in rules_tool(server) and "@" not in name and "^" not in name


def test_long_names_that_share_a_start_stay_apart() -> None:
    long = "x" * 100
    assert api_name("s", long + "a") != api_name("s", long + "b")
    assert len(api_name("s" * 50, long)) <= 64
    assert rules_tool("a" * 30 + "1") != rules_tool("a" * 30 + "2")

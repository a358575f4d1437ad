"""An MCP server's tool keeps the server's word: Deskhand cannot look at what it did, so the
card says "Done, reported by *server*" (live and reopened), a call that acted is `unconfirmed`
in the audit, and the model reads the server's own text, untouched. A real filesystem server."""

from __future__ import annotations

from pathlib import Path

from desktop.calls.card_text import SERVERS_WORD, card_words
from desktop.calls.sources.mcp.source import SERVERS_WORD as AUDITED
from desktop.chat.events import AgentEvent, ToolFinished, ToolStarted
from desktop.system.settings.permissions import Rule
from desktop.workspace import Workspace
from tests.support import mcp_servers
from tests.support.connectors import configure, running
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.turns import send
from tools.outcome import Outcome


def test_a_servers_tool_is_reported_by_the_server_live_reopened_and_audited(
    workspace: Workspace, model_server: ScriptedModelServer, tmp_path: Path
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "todo.txt").write_text("buy milk\n")
    configure(workspace, {"files": {**mcp_servers.filesystem(folder), "trusted": True}})
    workspace.live.set_rule("mcp__files.write_file^consequential", Rule.ALLOW)
    written = folder / "done.txt"
    model_server.enqueue(
        tool_reply(
            ToolUse(name="mcp__files__read_text_file", input={"path": str(folder / "todo.txt")}),
            ToolUse(name="mcp__files__write_file", input={"path": str(written), "content": "milk"}),
        ),
        text_reply("Read it and wrote it."),
    )
    sid = workspace.store.create_session().id
    events: list[AgentEvent] = []

    async def go() -> None:
        await send(workspace.conversations, sid, "Copy it", events.append)

    running(workspace, go)

    assert written.read_text() == "milk"
    read, wrote = model_server.message_requests[1]["messages"][-1]["content"]
    assert read["content"][0]["text"] == "buy milk\n"  # the server's word, untouched
    assert wrote["content"][0]["text"].startswith("Successfully wrote to")
    started = [e for e in events if isinstance(e, ToolStarted)]
    finished = [e for e in events if isinstance(e, ToolFinished)]
    note = AUDITED.format(server="files")
    assert [e.effect for e in finished] == [None, Outcome(kind="unconfirmed", note=note)]
    words = [
        card_words(e.outcome, e.summary, e.effect, source=s.source, source_title=s.source_title)
        for s, e in zip(started, finished, strict=True)
    ]
    assert [(w.state, w.status, w.detail) for w in words] == [
        ("unconfirmed", "Done, reported by files", SERVERS_WORD),
        ("unconfirmed", "Done, reported by files", SERVERS_WORD),
    ]
    assert all(w.show_result for w in words)  # what the server said is on the card
    turn = workspace.transcript(sid)[0]
    assert [e for e in turn if isinstance(e, ToolStarted | ToolFinished)] == [
        started[0],
        finished[0],
        started[1],
        finished[1],
    ]
    rows = {row.action: row for row in workspace.store.audit()}
    assert (rows["write_file"].effect, rows["write_file"].changes) == ("unconfirmed", note)
    assert (rows["read_text_file"].effect, rows["read_text_file"].changes) == ("", "")

"""The Markdown export of a chat: edited and regenerated messages, failed and stopped turns."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desktop.chat import export
from desktop.chat.conversations import TurnRunning
from desktop.chat.events import TurnFailed, TurnStopped, stored_turn_end
from desktop.workspace import Workspace
from tests.support.model_server import Hang, HttpError, ScriptedModelServer, text_reply
from tests.support.turns import settled
from tests.support.waiting import wait_until


def test_earlier_versions_are_quoted_where_they_were_replaced(
    workspace: Workspace, model_server: ScriptedModelServer, tmp_path: Path
) -> None:
    model_server.enqueue(
        text_reply("Oslo is **cold**.\n\nTake a coat."),
        text_reply("Lisbon is warm."),
        text_reply("Lisbon is sunny."),
        text_reply("Yes, in summer."),
    )
    conversations = workspace.conversations
    sid = conversations.create_session()

    async def steps() -> None:
        conversations.send(sid, "Weather in Oslo?")
        await settled(conversations)
        oslo = workspace.store.messages(sid)[0]
        assert conversations.edit(sid, oslo.id, "Weather in Lisbon?")
        await settled(conversations)
        assert conversations.regenerate(sid)
        await settled(conversations)
        conversations.send(sid, "Hot?")
        await settled(conversations)
        await conversations.shutdown()
        await workspace.agent.close()

    asyncio.run(steps())
    target = tmp_path / "chat.md"
    title = workspace.store.sessions()[0].title
    export.to_markdown(title, workspace.transcript(sid), target)
    text = target.read_text()
    body = text.split("*\n\n", 1)[1]  # after the "Exported from Deskhand on …" line
    assert body == (
        "> **Earlier version 1 of 3** *(replaced; version 3 follows)*\n"
        ">\n"
        "> **You:**\n"
        ">\n"
        "> Weather in Oslo?\n"
        ">\n"
        "> **Claude:**\n"
        ">\n"
        "> Oslo is **cold**.\n"
        ">\n"
        "> Take a coat.\n"
        "\n"
        "> **Earlier version 2 of 3** *(replaced; version 3 follows)*\n"
        ">\n"
        "> **Claude:**\n"
        ">\n"
        "> Lisbon is warm.\n"
        "\n"
        "### You\n"
        "\n"
        "Weather in Lisbon?\n"
        "\n"
        "### Claude\n"
        "\n"
        "Lisbon is sunny.\n"
        "\n"
        "### You\n"
        "\n"
        "Hot?\n"
        "\n"
        "### Claude\n"
        "\n"
        "Yes, in summer.\n"
    )


def test_a_failed_and_a_stopped_turn_are_said_where_they_happened(
    workspace: Workspace, model_server: ScriptedModelServer, tmp_path: Path
) -> None:
    model_server.enqueue(HttpError(status=401, type="authentication_error"), Hang())
    conversations = workspace.conversations
    sid = conversations.create_session()
    ended: list[TurnRunning] = []
    conversations.subscribe(
        lambda event: (
            ended.append(event) if isinstance(event, TurnRunning) and not event.running else None
        )
    )

    async def steps() -> None:
        conversations.send(sid, "Hello?")
        await wait_until(lambda: len(ended) == 1, what="the failed turn")
        conversations.send(sid, "Slowly")
        await wait_until(lambda: len(model_server.message_requests) == 2, what="the request")
        conversations.stop(sid)
        await wait_until(lambda: len(ended) == 2, what="the stopped turn")
        await conversations.shutdown()
        await workspace.agent.close()

    asyncio.run(steps())
    target = tmp_path / "chat.md"
    export.to_markdown("Chat", workspace.transcript(sid), target)
    failed, stopped = (stored_turn_end(end.event_json) for end in workspace.store.turn_ends(sid))
    assert isinstance(failed, TurnFailed) and isinstance(stopped, TurnStopped)
    body = target.read_text().split("*\n\n", 1)[1]
    assert body == (
        "### You\n"
        "\n"
        "Hello?\n"
        "\n"
        f"*(The API key was not accepted: {failed.detail})*\n"
        "\n"
        "### You\n"
        "\n"
        "Slowly\n"
        "\n"
        "*(stopped)*\n"
    )

"""The Markdown export of a chat whose messages were edited and regenerated."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desktop.chat import export
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, text_reply
from tests.support.turns import settled


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

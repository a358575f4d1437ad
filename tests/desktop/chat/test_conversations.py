"""Regenerate, edit, continue and attachments, through `Conversations` against the scripted server."""

from __future__ import annotations

import asyncio
import base64
import io
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from desktop.chat.attachments import AttachmentError
from desktop.chat.conversations import ConversationEvent, HistoryReplaced
from desktop.chat.events import (
    EarlierVersions,
    PromptAdded,
    ReplyContinued,
    TextDelta,
    TurnFinished,
)
from desktop.chat.images import MAX_EDGE, MAX_PIXELS
from desktop.chat.user_content import CONTINUE_TEXT
from desktop.system.store import Store
from desktop.workspace import Workspace
from tests.support.model_server import Hang, ScriptedModelServer, text_reply
from tests.support.turns import settled
from tests.support.waiting import wait_until


def drive(workspace: Workspace, steps: Callable[[], Awaitable[None]]) -> None:
    async def go() -> None:
        try:
            await steps()
        finally:
            await workspace.conversations.shutdown()
            await workspace.agent.close()

    asyncio.run(go())


async def turn_done(workspace: Workspace) -> None:
    await settled(workspace.conversations)


def listen(workspace: Workspace) -> list[ConversationEvent]:
    events: list[ConversationEvent] = []
    workspace.conversations.subscribe(events.append)
    return events


def sent_texts(request: dict[str, Any]) -> list[tuple[str, str]]:
    """Each message of a request as (role, its text parts)."""
    return [
        (
            m["role"],
            " | ".join(b.get("text", f"<{b['type']}>") for b in m["content"]),
        )
        for m in request["messages"]
    ]


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def test_regenerate_replaces_the_last_answer_and_keeps_the_earlier_one(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(text_reply("Paris."), text_reply("Paris, on the Seine."))
    conversations = workspace.conversations
    sid = conversations.create_session()
    events = listen(workspace)

    async def steps() -> None:
        assert conversations.send(sid, "Capital of France?")
        await turn_done(workspace)
        assert conversations.can_regenerate(sid)
        assert conversations.regenerate(sid)
        await turn_done(workspace)

    drive(workspace, steps)
    assert any(isinstance(e, HistoryReplaced) for e in events)
    # The model never sees the replaced answer: the same question is asked afresh.
    assert sent_texts(model_server.message_requests[1]) == [("user", "Capital of France?")]
    current = workspace.store.messages(sid)
    assert [(m.role, m.text) for m in current] == [
        ("user", "Capital of France?"),
        ("assistant", "Paris, on the Seine."),
    ]
    # The first answer is kept, and a reopened chat shows it folded above the new one.
    [turn] = workspace.transcript(sid)
    [earlier] = [e for e in turn if isinstance(e, EarlierVersions)]
    assert [(v.prompt, v.reply) for v in earlier.versions] == [("Capital of France?", "Paris.")]
    assert "".join(e.text for e in turn if isinstance(e, TextDelta)) == "Paris, on the Seine."


def test_edit_replaces_the_message_and_everything_after_it(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(
        text_reply("One."), text_reply("Two."), text_reply("Edited one."), text_reply("Again.")
    )
    conversations = workspace.conversations
    sid = conversations.create_session()

    async def steps() -> None:
        conversations.send(sid, "first question")
        await turn_done(workspace)
        conversations.send(sid, "second question")
        await turn_done(workspace)
        first = workspace.store.messages(sid)[0]
        assert conversations.edit(sid, first.id, "first question, reworded")
        await turn_done(workspace)
        # A second edit of the new version: both earlier versions stay reachable.
        newest = workspace.store.messages(sid)[0]
        assert conversations.edit(sid, newest.id, "third wording")
        await turn_done(workspace)

    drive(workspace, steps)
    assert sent_texts(model_server.message_requests[2]) == [("user", "first question, reworded")]
    assert [(m.role, m.text) for m in workspace.store.messages(sid)] == [
        ("user", "third wording"),
        ("assistant", "Again."),
    ]
    [turn] = workspace.transcript(sid)
    [earlier] = [e for e in turn if isinstance(e, EarlierVersions)]
    assert [v.prompt for v in earlier.versions] == ["first question, reworded", "first question"]
    assert earlier.versions[1].reply == "One.\n\nTwo."
    prompt = next(e for e in turn if isinstance(e, PromptAdded))
    assert prompt.text == "third wording"


def versions_shown(workspace: Workspace, sid: int) -> tuple[str, list[str]]:
    """The first turn's prompt and its earlier versions' prompts, as a reopened chat shows them."""
    turn = workspace.transcript(sid)[0]
    prompt = next(e for e in turn if isinstance(e, PromptAdded))
    earlier = [e for e in turn if isinstance(e, EarlierVersions)]
    return prompt.text, [v.prompt for v in earlier[0].versions] if earlier else []


def test_an_earlier_version_becomes_current_again_and_nothing_is_lost(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(
        text_reply("Oslo is cold."),
        text_reply("Take a coat."),
        text_reply("Lisbon is warm."),
        text_reply("Bring a scarf."),
        text_reply("Back to Lisbon."),
    )
    conversations = workspace.conversations
    sid = conversations.create_session()
    events = listen(workspace)

    async def steps() -> None:
        conversations.send(sid, "Weather in Oslo?")
        await turn_done(workspace)
        conversations.send(sid, "What to wear?")
        await turn_done(workspace)
        oslo = workspace.store.messages(sid)[0]
        assert conversations.edit(sid, oslo.id, "Weather in Lisbon?")
        await turn_done(workspace)
        lisbon = workspace.store.messages(sid)[0]

        events.clear()
        assert conversations.use_version(sid, oslo.id)
        assert [type(e) for e in events] == [HistoryReplaced]  # no reply is asked for
        assert [(m.role, m.text) for m in workspace.store.messages(sid)] == [
            ("user", "Weather in Oslo?"),
            ("assistant", "Oslo is cold."),
            ("user", "What to wear?"),
            ("assistant", "Take a coat."),
        ]
        assert versions_shown(workspace, sid) == ("Weather in Oslo?", ["Weather in Lisbon?"])
        assert not conversations.use_version(sid, oslo.id)  # already the current one

        # The next turn goes on from the chosen version, and the model reads only it.
        conversations.send(sid, "And shoes?")
        await turn_done(workspace)
        assert sent_texts(model_server.message_requests[-1]) == [
            ("user", "Weather in Oslo?"),
            ("assistant", "Oslo is cold."),
            ("user", "What to wear?"),
            ("assistant", "Take a coat."),
            ("user", "And shoes?"),
        ]

        # And back: the Lisbon version comes back whole, the Oslo one (now with three turns)
        # is kept as the earlier version.
        assert conversations.use_version(sid, lisbon.id)
        assert [m.text for m in workspace.store.messages(sid)] == [
            "Weather in Lisbon?",
            "Lisbon is warm.",
        ]
        [turn] = workspace.transcript(sid)
        [earlier] = [e for e in turn if isinstance(e, EarlierVersions)]
        assert earlier.current_id == lisbon.id
        assert [(v.message_id, v.reply) for v in earlier.versions] == [
            (oslo.id, "Oslo is cold.\n\nTake a coat.\n\nBring a scarf.")
        ]
        conversations.send(sid, "Sunscreen?")
        await turn_done(workspace)

    drive(workspace, steps)
    assert sent_texts(model_server.message_requests[-1]) == [
        ("user", "Weather in Lisbon?"),
        ("assistant", "Lisbon is warm."),
        ("user", "Sunscreen?"),
    ]
    # What was chosen is in the file: a store opened afresh reads the same chat.
    reopened = Store.open(workspace.store.path)
    assert [m.text for m in reopened.messages(sid)][:2] == ["Weather in Lisbon?", "Lisbon is warm."]
    assert len(reopened.messages(sid, replaced=True)) == 10


def test_switching_among_three_versions_keeps_every_one_reachable(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(text_reply("A."), text_reply("B."), text_reply("C."))
    conversations = workspace.conversations
    sid = conversations.create_session()

    async def steps() -> None:
        conversations.send(sid, "one")
        await turn_done(workspace)
        for wording in ("two", "three"):
            assert conversations.edit(sid, workspace.store.messages(sid)[0].id, wording)
            await turn_done(workspace)
        ids = {m.text: m.id for m in workspace.store.messages(sid, replaced=True)}
        assert versions_shown(workspace, sid) == ("three", ["two", "one"])
        assert conversations.use_version(sid, ids["one"])
        assert versions_shown(workspace, sid) == ("one", ["three", "two"])
        assert conversations.use_version(sid, ids["two"])
        assert versions_shown(workspace, sid) == ("two", ["one", "three"])
        assert [m.text for m in workspace.store.messages(sid)] == ["two", "B."]
        # Not while a reply runs, and never a message that is not an earlier version.
        model_server.enqueue(Hang(text="Working"))
        conversations.send(sid, "more")
        assert not conversations.use_version(sid, ids["one"])
        conversations.stop(sid)
        await turn_done(workspace)
        assert not conversations.use_version(sid, ids["A."])
        assert not conversations.use_version(sid, 10_000)

    drive(workspace, steps)


def test_edit_refuses_a_reply_or_an_empty_message(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(text_reply("One."))
    conversations = workspace.conversations
    sid = conversations.create_session()

    async def steps() -> None:
        conversations.send(sid, "question")
        await turn_done(workspace)
        prompt, reply = workspace.store.messages(sid)
        assert not conversations.edit(sid, reply.id, "not mine to edit")
        assert not conversations.edit(sid, prompt.id, "   ")

    drive(workspace, steps)
    assert len(model_server.message_requests) == 1


def test_continue_after_stop_sends_the_partial_reply_and_a_request_to_go_on(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(Hang(text="Once upon a time"), text_reply(" there was a fox."))
    conversations = workspace.conversations
    sid = conversations.create_session()
    events = listen(workspace)

    async def steps() -> None:
        conversations.send(sid, "Tell me a story")
        await wait_until(
            lambda: (
                "".join(e.text for e in events if isinstance(e, TextDelta)) == "Once upon a time"
            ),
            what="the partial reply",
        )
        assert not conversations.can_continue(sid)  # still running
        conversations.stop(sid)
        await turn_done(workspace)
        assert conversations.can_continue(sid)
        assert conversations.continue_reply(sid)
        await turn_done(workspace)
        assert not conversations.can_continue(sid)

    drive(workspace, steps)
    assert sent_texts(model_server.message_requests[1]) == [
        ("user", "Tell me a story"),
        ("assistant", "Once upon a time"),
        ("user", CONTINUE_TEXT),
    ]
    # The request to go on is not a message of the person's: the thread shows a divider.
    [turn] = workspace.transcript(sid)
    assert any(isinstance(e, ReplyContinued) for e in turn)
    assert [e.text for e in turn if isinstance(e, PromptAdded)] == ["Tell me a story"]
    assert "continue" not in workspace.store.sessions()[0].title.lower()


def test_continue_after_the_token_limit_and_the_notice_comes_back_on_reopen(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(text_reply("A long answ", stop_reason="max_tokens"), text_reply("er."))
    conversations = workspace.conversations
    sid = conversations.create_session()

    async def steps() -> None:
        conversations.send(sid, "Explain")
        await turn_done(workspace)
        [finished] = [e for e in workspace.transcript(sid)[0] if isinstance(e, TurnFinished)]
        assert finished.notice and "cut off" in finished.notice
        assert conversations.can_continue(sid)
        assert conversations.continue_reply(sid)
        await turn_done(workspace)

    drive(workspace, steps)
    assert sent_texts(model_server.message_requests[1])[-2:] == [
        ("assistant", "A long answ"),
        ("user", CONTINUE_TEXT),
    ]


def test_attachments_go_as_image_document_and_text_blocks(
    workspace: Workspace, model_server: ScriptedModelServer, tmp_path: Path
) -> None:
    big = tmp_path / "screen.png"
    big.write_bytes(png(3000, 2000))
    pdf = tmp_path / "invoice.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%fake but enough to be sent\n")
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\nbuy milk\n")
    model_server.enqueue(text_reply("Seen them."))
    conversations = workspace.conversations
    sid = conversations.create_session()
    events = listen(workspace)

    async def steps() -> None:
        attached = [await conversations.attach_file(path) for path in (big, pdf, notes)]
        assert [a.kind for a in attached] == ["image", "pdf", "text"]
        assert conversations.send(sid, "What are these?", attached)
        await turn_done(workspace)

    drive(workspace, steps)
    [message] = model_server.message_requests[0]["messages"]
    image, document, text, typed = message["content"]
    assert image["type"] == "image" and image["source"]["type"] == "base64"
    with Image.open(io.BytesIO(base64.b64decode(image["source"]["data"]))) as sent:
        assert max(sent.size) <= MAX_EDGE and sent.size[0] * sent.size[1] <= MAX_PIXELS
    assert document["type"] == "document" and document["title"] == "invoice.pdf"
    assert base64.b64decode(document["source"]["data"]).startswith(b"%PDF-1.4")
    assert text["type"] == "text" and "notes.md" in text["text"] and "buy milk" in text["text"]
    assert typed["text"] == "What are these?"
    assert not any(key.startswith("deskhand") for block in message["content"] for key in block)
    # The live prompt and the reopened one show the same attachments, kept in the chat's folder.
    live = next(e for e in events if isinstance(e, PromptAdded))
    reopened = next(e for e in workspace.transcript(sid)[0] if isinstance(e, PromptAdded))
    assert live == reopened
    assert [a.name for a in live.attachments] == ["screen.png", "invoice.pdf", "notes.md"]
    folder = workspace.paths.attachments / str(sid)
    assert all(Path(a.path).parent == folder and Path(a.path).is_file() for a in live.attachments)
    assert not list(conversations.pending_dir.iterdir())
    assert workspace.store.sessions()[0].title == "What are these?"


def test_files_that_cannot_be_attached_say_why(workspace: Workspace, tmp_path: Path) -> None:
    binary = tmp_path / "archive.zip"
    binary.write_bytes(b"PK\x03\x04\x00\x00binary")
    huge = tmp_path / "huge.txt"
    huge.write_text("x" * 300_000)

    async def check() -> None:
        for path, words in ((binary, "only images, PDFs and text"), (huge, "up to 200 KB")):
            with pytest.raises(AttachmentError) as raised:
                await workspace.conversations.attach_file(path)
            assert words in str(raised.value) and path.name in str(raised.value)
        with pytest.raises(AttachmentError):
            await workspace.conversations.attach_file(tmp_path)

    asyncio.run(check())


def test_a_pasted_image_is_sent_on_its_own_and_titles_the_chat(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    model_server.enqueue(text_reply("A red square."))
    conversations = workspace.conversations
    sid = conversations.create_session()

    async def steps() -> None:
        pasted = await conversations.attach_data(png(40, 40), "Pasted image.png")
        assert conversations.send(sid, "", [pasted])
        await turn_done(workspace)

    drive(workspace, steps)
    [message] = model_server.message_requests[0]["messages"]
    assert [b["type"] for b in message["content"]] == ["image"]
    assert workspace.store.sessions()[0].title == "Pasted image.png"


def test_an_older_history_file_gains_the_new_columns(tmp_path: Path) -> None:
    db = tmp_path / "deskhand.db"
    with sqlite3.connect(db) as raw:
        raw.executescript(
            """
            CREATE TABLE sessions (id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                created_at REAL NOT NULL, updated_at REAL NOT NULL);
            CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL,
                role TEXT NOT NULL, content TEXT NOT NULL, search_text TEXT NOT NULL DEFAULT '',
                status TEXT NOT NULL DEFAULT 'complete', model TEXT, usage TEXT,
                created_at REAL NOT NULL);
            INSERT INTO sessions VALUES (1, 'Old chat', 0, 0);
            INSERT INTO messages (session_id, role, content, created_at)
                VALUES (1, 'user', '[{"type": "text", "text": "hello"}]', 0);
            PRAGMA user_version=1;
            """
        )
    store = Store.open(db)
    assert store.notice is None
    [message] = store.messages(1)
    assert message.text == "hello" and message.superseded_by is None
    store.close()

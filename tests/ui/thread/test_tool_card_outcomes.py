"""What a call really did, on its card: "Typed: the field holds "AB"", "No change on the page",
"Not confirmed", in the card's words and colours, the same live and reopened; a run of calls
counts them by what they did."""

from __future__ import annotations

from desktop.chat.events import AgentEvent, PromptAdded
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.outcomes import run_turn
from tests.support.sample_tools import FieldTool, NotebookTool
from ui.thread.tool_card import ToolCard, ToolRun
from ui.thread.view import ThreadView


def shown(qtbot, sid: int, events: list[AgentEvent]) -> ThreadView:  # type: ignore[no-untyped-def]
    view = ThreadView(sid)
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    for event in events:
        view.handle(event)
    return view


def test_the_cards_say_what_each_call_really_did_live_and_reopened(
    qtbot,  # type: ignore[no-untyped-def]
    workspace: Workspace,
    model_server: ScriptedModelServer,
) -> None:
    workspace.registry.add(FieldTool(strip_digits=True))
    workspace.registry.add(NotebookTool())
    workspace.live.set_mode(Mode.AUTONOMOUS)
    model_server.enqueue(
        tool_reply(
            ToolUse(name="field", input={"text": "A1B"}),
            ToolUse(name="field", input={"text": "A2B"}),
            ToolUse(name="notebook", input={"text": "milk"}),
        ),
        text_reply("The field holds AB."),
    )
    sid, live_events = run_turn(workspace, "Type A1B twice, note milk")

    live = shown(qtbot, sid, [PromptAdded(session_id=sid, text="Go"), *live_events])
    reopened = shown(qtbot, sid, [e for turn in workspace.transcript(sid) for e in turn])

    for view in (live, reopened):
        [run] = view.findChildren(ToolRun)
        typed, again, noted = run.cards()
        assert [card.state.text() for card in run.cards()] == [
            'Typed: the field holds "AB"',
            "No change on the page",
            "Not confirmed",
        ]
        assert [card.state_name for card in run.cards()] == ["differs", "no_effect", "unconfirmed"]
        assert typed.note.text() == (
            'Textbox "Name" now holds "AB"\nThe field holds "AB", not the text typed.'
        )
        assert again.note.text() == "It ran, and nothing Claude can read changed."
        assert noted.note.text() == "This tool does not read back what it did."
        assert noted.outcome.text() == "Wrote line 1."  # its own word is all there is
        assert typed.outcome.text() == ""  # the words above say what its text says
        assert run.state.text() == "1 not as asked · 1 no change · 1 not confirmed"
    assert [c.plain_text() for c in reopened.findChildren(ToolCard)] == [
        c.plain_text() for c in live.findChildren(ToolCard)
    ]

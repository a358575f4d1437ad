"""Tool calls in the thread: one line per call, details on demand, runs folded into "N steps",
and how each call ended in a person's words."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import Qt

from desktop.calls.contract import STOPPED_TOOL
from desktop.calls.permissions import DENIED_BY_PERSON, DENIED_BY_RULE
from desktop.chat.events import (
    AgentEvent,
    MessageCommitted,
    PromptAdded,
    TextDelta,
    ToolFinished,
    ToolProgress,
    ToolStarted,
)
from tests.support import seen
from tools.browser.errors import NOT_EXECUTED
from tools.browser.network.url_policy import PHRASES, Refusal
from ui.thread.tool_card import ToolCard, ToolRun
from ui.thread.view import ThreadView

SID = 1


def started(
    call: str, label: str, summary: str = "", source: str = "browser", title: str = "Browser"
) -> ToolStarted:
    return ToolStarted(
        session_id=SID,
        tool_use_id=call,
        name="x",
        label=label,
        source=source,
        source_title=title,
        summary=summary,
    )


def noted(call: str, text: str) -> ToolStarted:
    """A call of the tests' notebook tool."""
    return started(call, "Notebook: write", f"Notebook: write {text}", "notebook", "Notebook")


def finished(call: str, outcome: str = "ok", text: str = "Done.", images=()) -> ToolFinished:  # type: ignore[no-untyped-def]
    return ToolFinished(
        session_id=SID,
        tool_use_id=call,
        is_error=outcome != "ok",
        summary=text,
        outcome=outcome,  # type: ignore[arg-type]
        images=list(images),
    )


def committed(message_id: int) -> MessageCommitted:
    return MessageCommitted(
        session_id=SID, message_id=message_id, role="assistant", status="complete"
    )


@pytest.fixture
def thread(qtbot) -> ThreadView:  # type: ignore[no-untyped-def]
    view = ThreadView(SID)
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    view.handle(PromptAdded(session_id=SID, text="Go"))
    return view


def show(thread: ThreadView, events: list[AgentEvent]) -> None:
    for event in events:
        thread.handle(event)


def test_a_call_is_one_line_and_its_details_open_on_demand(qtbot, thread, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shot = tmp_path / "shot.png"
    Image.new("RGB", (800, 500), (10, 120, 200)).save(shot)
    show(
        thread,
        [
            started("a", "Browser: screenshot", "Take a screenshot on example.com"),
            ToolProgress(session_id=SID, tool_use_id="a", line="Waiting for the page"),
        ],
    )
    [card] = thread.findChildren(ToolCard)
    assert card.state.text() == "Running…"
    card.set_expanded(True)  # while it runs, its details say what it is doing
    assert card.progress.isVisible() and "Waiting for the page" in card.progress.text()
    card.set_expanded(False)
    show(thread, [finished("a", images=[str(shot)])])
    line_height = card.fontMetrics().lineSpacing()
    assert card.height() < 3 * line_height  # one line, however much it holds
    assert [card.title.text(), card.detail.text(), card.state.text()] == [
        "Browser: screenshot",
        "Take a screenshot on example.com",
        "Done",
    ]
    [thumbnail] = card.thumbnails
    assert not thumbnail.isVisible() and not card.progress.isVisible()

    qtbot.mouseClick(card.line.toggle, Qt.MouseButton.LeftButton)
    # Once it ended, how it ended replaces what it was doing, as it reads when reopened.
    assert card.expanded and thumbnail.isVisible() and not card.progress.isVisible()
    assert card.height() > thumbnail.height()
    qtbot.mouseClick(card.line, Qt.MouseButton.LeftButton)  # a click on the line closes it too
    assert not card.expanded and not thumbnail.isVisible()


def test_consecutive_calls_fold_into_one_run_that_opens(qtbot, thread) -> None:  # type: ignore[no-untyped-def]
    show(
        thread,
        [
            started("a", "Browser: navigate", "Open https://example.com"),
            committed(1),
            finished("a"),
            started("b", "Browser: left click", "Click element ref_3 on example.com"),
            committed(2),
            finished("b", "denied", DENIED_BY_PERSON),
            noted("c", "'milk'"),
            committed(3),
            finished("c"),
            TextDelta(session_id=SID, text="All done."),
            committed(4),
            noted("d", "'eggs'"),
        ],
    )
    thread.flush()
    items = thread.items()
    [run] = [item for item in items if isinstance(item, ToolRun)]
    assert [card.title.text() for card in run.cards()] == [
        "Browser: navigate",
        "Browser: left click",
        "Notebook: write",
    ]
    assert (run.title.text(), run.state.text()) == ("3 steps", "1 denied by you · 2 done")
    assert not run.body.isVisible() and run.height() < 3 * run.fontMetrics().lineSpacing()
    # Text between calls ends a run: the call after it stands alone.
    assert isinstance(items[-1], ToolCard) and items[-1].title.text() == "Notebook: write"
    assert items[-1].state.text() == "Running…"

    qtbot.mouseClick(run.line.toggle, Qt.MouseButton.LeftButton)
    assert all(card.isVisible() for card in run.cards())
    # No internal ids on a card, and a label is not said twice.
    assert run.cards()[1].detail.text() == "Click an element on example.com"
    assert run.cards()[2].detail.text() == "'milk'"
    assert "ref_" not in seen.text(thread)


def test_a_card_goes_by_where_its_call_comes_from_never_by_its_label(qtbot, thread) -> None:  # type: ignore[no-untyped-def]
    # An MCP server that calls itself "Browser": its label reads like a browser call.
    show(
        thread, [started("a", "Browser: navigate", "Open a page", "mcp", "Browser"), finished("a")]
    )
    [impostor] = thread.findChildren(ToolCard)
    assert impostor.line.icon_name == "tool"
    assert not impostor.line.hand.isVisible()  # it is not the browser the person can take over

    # The browser's own calls, one labelled without a colon, then a Mac call labelled with one
    # that names something else: the run lists where they come from, not the labels' heads.
    show(thread, [TextDelta(session_id=SID, text="Now the browser."), committed(1)])
    show(thread, [started("b", "navigate", "Open https://example.com"), finished("b")])
    [lone] = [item for item in thread.items() if isinstance(item, ToolCard)][-1:]
    assert lone.line.icon_name == "globe" and lone.line.hand.isVisible()
    show(thread, [started("c", "Safari: tabs", "", "macos", "macOS"), finished("c")])
    [run] = thread.findChildren(ToolRun)
    assert [card.line.icon_name for card in run.cards()] == ["globe", "app"]
    assert run.detail.text() == "Browser, macOS"


@pytest.mark.parametrize(
    ("outcome", "text", "status", "says"),
    [
        ("denied", DENIED_BY_PERSON, "You denied this", "not to try it again"),
        ("denied", f"{DENIED_BY_PERSON} Their reason: not today", "You denied this", "not today"),
        ("blocked", DENIED_BY_RULE, "Blocked by your rule", "Settings → Permissions"),
        ("stopped", STOPPED_TOOL, "Stopped", "You stopped"),
        (
            "error",
            PHRASES[Refusal.PRIVATE],
            "Blocked: this address is on your computer",
            "Always allowed sites",
        ),
        ("error", NOT_EXECUTED, "Skipped", "an earlier step"),
        ("error", "The page did not respond in time.", "Failed", "did not respond"),
    ],
)
def test_a_card_says_how_a_call_ended_in_a_persons_words(  # type: ignore[no-untyped-def]
    qtbot, thread, outcome, text, status, says
) -> None:
    show(thread, [started("a", "Browser: navigate", "Open http://127.0.0.1:8080/")])
    show(thread, [finished("a", outcome, text)])
    [card] = thread.findChildren(ToolCard)
    assert card.state.text() == status
    card.set_expanded(True)
    assert says in card.plain_text()
    # The model's own instructions stay the model's.
    for phrase in ("Do not try", "the person", "Tell them", "the URL policy"):
        assert phrase not in card.plain_text()


def test_a_way_forward_shows_without_a_click_and_answers_the_person(qtbot, thread) -> None:  # type: ignore[no-untyped-def]
    show(thread, [started("a", "Browser: navigate", "Open https://example.com"), finished("a")])
    show(thread, [started("b", "Browser: navigate", "Open http://127.0.0.1:8080/")])
    [run] = thread.findChildren(ToolRun)
    card = run.cards()[1]
    card.finish(
        is_error=False,
        summary="Opened.",
        notices=["Blocked 2 requests to local addresses (127.0.0.1)"],
        offers=["127.0.0.1"],
    )
    assert run.expanded and card.expanded  # the offer is not hidden behind two arrows
    [offer] = card.offer_buttons
    assert offer.isVisible() and offer.text() == "Allow 127.0.0.1…"
    assert card.notices.isVisible() and "Blocked 2 requests" in card.notices.text()
    with qtbot.waitSignal(thread.allow_host_requested) as asked:
        offer.menu().actions()[0].trigger()  # "In this chat"
    assert asked.args == ["127.0.0.1", False]

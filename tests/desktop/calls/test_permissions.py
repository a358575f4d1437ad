"""The one gate: modes, rules, the person's answers, the audit log, and what the model reads."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer, RuleScope, ToolCall, decide, scope_sentence
from desktop.chat.events import ToolFinished
from desktop.system.settings.permissions import Mode, PermissionSettings, Rule
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.support.turns import send, start, turn
from tests.support.waiting import wait_until
from tools.base import Risk


def call(risk: Risk, action: str = "write", target: str | None = None) -> ToolCall:
    return ToolCall(
        session_id=1,
        tool_use_id="t1",
        tool="notebook",
        action=action,
        input={},
        risk=risk,
        reason="test",
        summary="s",
        target=target,
    )


@pytest.mark.parametrize(
    ("mode", "asked"),
    [
        (Mode.ASK, {Risk.READ, Risk.CHANGE, Risk.CONSEQUENTIAL}),
        (Mode.CHANGES, {Risk.CHANGE, Risk.CONSEQUENTIAL}),
        (Mode.AUTONOMOUS, {Risk.CONSEQUENTIAL}),
    ],
)
def test_each_mode_asks_exactly_for_its_levels(mode: Mode, asked: set[Risk]) -> None:
    settings = PermissionSettings(mode=mode)
    for risk in Risk:
        verdict = decide(call(risk), settings).verdict
        assert verdict == ("ask" if risk in asked else "allow"), (mode, risk)


def test_never_wins_over_every_mode_and_host_rules_are_most_specific() -> None:
    settings = PermissionSettings(mode=Mode.AUTONOMOUS, rules={"notebook.write": Rule.NEVER})
    assert decide(call(Risk.READ), settings).verdict == "deny"
    settings = PermissionSettings(
        rules={"browser.navigate": Rule.ASK, "browser.navigate@example.com": Rule.ALLOW}
    )
    on_site = call(Risk.CHANGE, "navigate", "https://example.com/a").model_copy(
        update={"tool": "browser"}
    )
    elsewhere = on_site.model_copy(update={"target": "https://evil.test/"})
    assert decide(on_site, settings).verdict == "allow"
    assert decide(elsewhere, settings).verdict == "ask"


def browser_call(risk: Risk, action: str, url: str) -> ToolCall:
    return call(risk, action, url).model_copy(update={"tool": "browser"})


def test_always_allow_covers_its_action_its_site_and_its_risk_only() -> None:
    """ "Always allow" on a harmless click on one shop lets no purchase, and no other site, through."""
    next_click = browser_call(Risk.CHANGE, "left_click", "https://shop.example/cart")
    scope = RuleScope.of(next_click)
    assert scope.key == "browser.left_click@shop.example^change"
    settings = PermissionSettings(mode=Mode.ASK, rules={scope.key: Rule.ALLOW})
    assert decide(next_click, settings).verdict == "allow"
    buy_now = browser_call(Risk.CONSEQUENTIAL, "left_click", "https://shop.example/cart")
    assert decide(buy_now, settings).verdict == "ask"
    elsewhere = browser_call(Risk.CHANGE, "left_click", "https://bank.example/")
    assert decide(elsewhere, settings).verdict == "ask"
    typing = browser_call(Risk.CHANGE, "type", "https://shop.example/cart")
    assert decide(typing, settings).verdict == "ask"
    sentence = scope_sentence(scope, "Browser: left click")
    assert "shop.example" in sentence and "change things" in sentence
    assert "will still ask" in sentence


def test_a_rule_without_a_cap_never_covers_consequential_calls() -> None:
    """Rules saved before scopes existed (tool.action = allow) cover changes, not more."""
    settings = PermissionSettings(mode=Mode.ASK, rules={"notebook.write": Rule.ALLOW})
    assert decide(call(Risk.CHANGE), settings).verdict == "allow"
    assert decide(call(Risk.CONSEQUENTIAL), settings).verdict == "ask"
    settings.rules["notebook.write^consequential"] = Rule.ALLOW  # the person chose so
    assert decide(call(Risk.CONSEQUENTIAL), settings).verdict == "allow"


def test_never_on_a_site_wins_over_a_wider_allow_and_ask_wins_a_tie() -> None:
    settings = PermissionSettings(
        mode=Mode.AUTONOMOUS,
        rules={
            "browser^consequential": Rule.ALLOW,
            "browser.navigate@evil.example": Rule.NEVER,
            "browser.type@shop.example": Rule.ASK,
            "browser.type@shop.example^change": Rule.ALLOW,
        },
    )
    assert decide(browser_call(Risk.CHANGE, "navigate", "https://evil.example/"), settings).by == (
        "rule"
    )
    assert (
        decide(browser_call(Risk.CHANGE, "navigate", "https://EVIL.example/x"), settings).verdict
        == "deny"
    )
    assert (
        decide(browser_call(Risk.CHANGE, "type", "https://shop.example/"), settings).verdict
        == "ask"
    )
    assert (
        decide(
            browser_call(Risk.CONSEQUENTIAL, "left_click", "https://a.example/"), settings
        ).verdict
        == "allow"
    )


class Person:
    """Answers approval requests the way a person at the sheet would, and remembers what was asked."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[ToolCall] = []

    def __call__(self, request: ApprovalRequest) -> None:
        self.asked.append(request.call)
        if self.answers:
            request.answer(self.answers.pop(0))


def test_denial_with_a_reason_reaches_the_model_and_nothing_runs(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = NotebookTool(risk=Risk.CONSEQUENTIAL)
    workspace.registry.add(notebook)
    person = Person(Answer(allow=False, reason="not today"))
    workspace.approvals.subscribe(person)
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "x"})), text_reply("Understood.")
    )

    events = turn(workspace, "Write x")

    assert notebook.lines == []
    assert len(person.asked) == 1 and person.asked[0].summary == "Notebook: write 'x'"
    result = model_server.message_requests[1]["messages"][-1]["content"][0]
    assert result["is_error"] is True
    assert "denied" in result["content"][0]["text"] and "not today" in result["content"][0]["text"]
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["denied"]
    audit = workspace.store.audit()
    assert (audit[0].decision, audit[0].decided_by, audit[0].outcome, audit[0].reason) == (
        "denied",
        "person",
        "not run",
        "not today",
    )


def test_allow_once_runs_and_is_audited_with_its_duration(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = NotebookTool(risk=Risk.CHANGE)
    workspace.registry.add(notebook)
    workspace.approvals.subscribe(Person(Answer(allow=True)))
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "y"})), text_reply("Done.")
    )

    turn(workspace, "Write y")

    assert notebook.lines == ["y"]
    entry = workspace.store.audit()[0]
    assert (entry.decision, entry.decided_by, entry.outcome) == ("allowed", "person", "ok")
    assert entry.duration_ms is not None and len(entry.input_digest) == 16
    assert workspace.settings.permissions.rules == {}  # once is once


def test_always_allow_persists_across_a_restart_and_skips_asking(
    workspace: Workspace, model_server: ScriptedModelServer, data_dir: Path
) -> None:
    workspace.registry.add(NotebookTool(risk=Risk.CHANGE))
    workspace.approvals.subscribe(Person(Answer(allow=True, always=True)))
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "1"})), text_reply("Done.")
    )
    turn(workspace, "Write 1")
    workspace.store.close()

    again = Workspace.open(data_dir)
    notebook = NotebookTool(risk=Risk.CHANGE)
    again.registry.add(notebook)
    person = Person()
    again.approvals.subscribe(person)
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "2"})), text_reply("Done.")
    )
    turn(again, "Write 2")
    assert again.settings.permissions.rules == {"notebook.write^change": Rule.ALLOW}
    assert person.asked == [] and notebook.lines == ["2"]
    again.store.close()


def test_never_refuses_without_asking(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = NotebookTool(risk=Risk.READ)
    workspace.registry.add(notebook)
    workspace.live.set_rule("notebook.write", Rule.NEVER)
    person = Person()
    workspace.approvals.subscribe(person)
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "z"})), text_reply("Blocked.")
    )

    events = turn(workspace, "Write z")
    assert person.asked == [] and notebook.lines == []
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["blocked"]
    text = model_server.message_requests[1]["messages"][-1]["content"][0]["content"][0]["text"]
    assert "rule" in text


def test_command_line_mode_applies_for_the_run_only(
    data_dir: Path, api_env: ScriptedModelServer
) -> None:
    ws = Workspace.open(data_dir, mode=Mode.AUTONOMOUS)
    assert ws.live.mode is Mode.AUTONOMOUS and ws.settings.permissions.mode is Mode.CHANGES
    ws.store.close()
    assert Workspace.open(data_dir).live.mode is Mode.CHANGES


def test_three_calls_in_one_reply_are_asked_in_order(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = NotebookTool(risk=Risk.CHANGE)
    workspace.registry.add(notebook)
    person = Person(Answer(allow=True), Answer(allow=False), Answer(allow=True))
    workspace.approvals.subscribe(person)
    model_server.enqueue(
        tool_reply(*(ToolUse(name="notebook", input={"text": t}) for t in ("a", "b", "c"))),
        text_reply("Two of three."),
    )
    turn(workspace, "Write a, b, c")
    assert [c.input["text"] for c in person.asked] == ["a", "b", "c"]
    assert notebook.lines == ["a", "c"]


def test_stop_while_waiting_for_approval_denies_and_keeps_the_transcript_valid(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = NotebookTool(risk=Risk.CHANGE)
    workspace.registry.add(notebook)
    pending: list[ApprovalRequest] = []
    closed: list[bool] = []

    def approver(request: ApprovalRequest) -> None:
        request.on_cancel.append(lambda: closed.append(True))
        pending.append(request)

    workspace.approvals.subscribe(approver)
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "q"})), text_reply("OK.")
    )
    sid = workspace.store.create_session().id

    async def go() -> None:
        turn = start(workspace.conversations, sid, "Write q")
        await wait_until(lambda: pending, what="approval request")
        workspace.conversations.stop(sid)
        assert (await turn).stopped
        await send(workspace.conversations, sid, "Forget it")
        await workspace.agent.close()

    asyncio.run(go())
    assert closed == [True] and notebook.lines == []
    sent = model_server.message_requests[1]["messages"]
    assert sent[2]["content"][0]["type"] == "tool_result" and sent[2]["content"][0]["is_error"]
    assert workspace.store.audit()[0].decided_by == "stop"

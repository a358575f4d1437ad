"""Plans through the real agent, the real browser and the scripted model: what a plan lets run,
what it still asks about, and what Claude reads."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.calls.audit_export import decision_text, reason_text
from desktop.calls.permissions import Risk, ToolCall, decide
from desktop.calls.sources.plan.book import PLAN_TOOL, PlanBook
from desktop.calls.sources.plan.proposal import domain_problem
from desktop.system.settings.permissions import Mode, PermissionSettings, Rule
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, browser_use, text_reply, tool_reply
from tests.support.plan_sites import (
    DOCS,
    ELSEWHERE,
    SECRET,
    SETTINGS,
    PlanSites,
    documentation_task,
    plan_sites,
    plan_use,
    run_task,
)
from tools.browser import find_browser

browser = pytest.mark.skipif(find_browser() is None, reason="no Chromium-family browser installed")


@pytest.fixture
def sites() -> Iterator[PlanSites]:
    with plan_sites() as both:
        yield both


@pytest.fixture
def planning(data_dir: Path, api_env: ScriptedModelServer) -> Iterator[Workspace]:
    data_dir.mkdir(parents=True)
    (data_dir / "settings.json").write_text(json.dumps(SETTINGS))
    ws = Workspace.open(data_dir)
    yield ws
    ws.store.close()


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("*", "every site"),
        ("org", "bare top-level domain"),
        ("*.co.uk", "wider than one registrable domain"),
        ("*.github.io", "wider than one registrable domain"),
        ("10.0.0.0/8", "IP address or range"),
        ("192.168.1.1", "IP address or range"),
        ("https://docs.python.org/3/", "not a host"),
    ],
)
def test_a_plan_wider_than_one_site_is_refused_with_the_reason(pattern: str, why: str) -> None:
    problem = domain_problem(pattern)
    assert problem is not None and why in problem


@pytest.mark.parametrize(
    "pattern", ["docs.python.org", "*.python.org", "shop.co.uk", "x.github.io"]
)
def test_one_site_or_its_subdomains_is_a_plan(pattern: str) -> None:
    assert domain_problem(pattern) is None


def test_a_refused_plan_never_reaches_the_person_and_claude_reads_why(
    planning: Workspace, model_server: ScriptedModelServer, sites: PlanSites
) -> None:
    model_server.enqueue(tool_reply(plan_use(["*.co.uk", DOCS])), text_reply("I will narrow it."))
    approver = asyncio.run(run_task(planning, sites, model_server, []))
    assert approver.asked == []
    [result] = model_server.message_requests[1]["messages"][-1]["content"]
    assert result["is_error"]
    assert "wider than one registrable domain" in result["content"][0]["text"]
    assert planning.plans.current(1) is None


@browser
def test_the_documentation_task_asks_once_with_a_plan_in_the_default_mode(
    planning: Workspace, model_server: ScriptedModelServer, sites: PlanSites
) -> None:
    assert planning.live.mode is Mode.CHANGES
    replies = documentation_task(sites, with_plan=True)
    approver = asyncio.run(run_task(planning, sites, model_server, replies))

    assert [call.tool for call in approver.asked] == ["update_plan"]
    # Every step ran: the search reached the docs, the result was read.
    assert any(path.startswith("/plan/search.html?q=list") for path in sites.docs.paths())
    [plan_result] = model_server.message_requests[1]["messages"][-1]["content"]
    plan_text = plan_result["content"][0]["text"]
    assert plan_text.startswith("The person approved this plan at ")
    assert "Sites: docs.example" in plan_text and "propose a wider plan" in plan_text
    assert not any(
        block.get("is_error")
        for request in model_server.message_requests[1:]
        for block in request["messages"][-1]["content"]
    )
    audit = list(reversed(planning.store.audit()))
    plan_row = audit[0]
    assert plan_row.tool == "update_plan" and plan_row.decided_by == "person"
    assert "sites docs.example" in plan_row.summary and "approach: Open the documentation" in (
        plan_row.summary
    )
    covered = [row for row in audit if row.decided_by == "plan"]
    assert {row.action for row in covered} == {"navigate", "left_click", "type", "key"}
    assert all(row.reason.startswith("allowed by the plan approved at ") for row in covered)
    # Settings → Audit says so in its own words.
    assert decision_text(covered[0]) == "Allowed by the plan"
    assert reason_text(covered[0]) == covered[0].reason


def _call(tool: str, action: str, risk: Risk, target: str | None, *lands: str) -> ToolCall:
    return ToolCall(
        session_id=7,
        tool_use_id="t",
        tool=tool,
        action=action,
        input={},
        risk=risk,
        reason="",
        summary="",
        target=target,
        lands=list(lands),
    )


def _approved_book() -> PlanBook:
    book = PlanBook(lambda: 60)
    proposal = _call(PLAN_TOOL, PLAN_TOOL, Risk.CHANGE, None).model_copy(
        update={
            "input": {
                "domains": ["docs.example", "*.python.org"],
                "approach": ["Read"],
                "apps": ["Reminders"],
            }
        }
    )
    assert book.approve(proposal, None) is not None
    return book


def _verdict(book: PlanBook, call: ToolCall, mode: Mode, rules: dict[str, Rule] | None = None):  # type: ignore[no-untyped-def]
    settings = PermissionSettings(mode=mode, rules=rules or {})
    decision = book.judge(call, decide(call, settings), mode)
    return decision.verdict, decision.by, decision.reason


DOC = "http://docs.example/page"
AWAY = "https://elsewhere.example/?q=4242-alpha"


@pytest.mark.parametrize(
    ("call", "mode", "expected"),
    [
        # Plan sites and apps: changes run in Ask for changes, as the plan's own decision.
        (_call("browser", "left_click", Risk.CHANGE, DOC), Mode.CHANGES, ("allow", "plan")),
        (_call("browser", "navigate", Risk.CHANGE, "https://www.python.org/"), Mode.CHANGES,
         ("allow", "plan")),
        (_call("macos", "reminder_add", Risk.CHANGE, "Reminders"), Mode.CHANGES, ("allow", "plan")),
        (_call("screen", "click", Risk.CHANGE, "Reminders — Groceries"), Mode.CHANGES,
         ("allow", "plan")),
        (_call("tabs", "click", Risk.CHANGE, DOC), Mode.CHANGES, ("allow", "plan")),
        # Consequential, or Ask every time: as without a plan.
        (_call("browser", "left_click", Risk.CONSEQUENTIAL, DOC), Mode.CHANGES, ("ask", "mode")),
        (_call("browser", "left_click", Risk.CHANGE, DOC), Mode.ASK, ("ask", "mode")),
        (_call("browser", "left_click", Risk.CHANGE, DOC), Mode.AUTONOMOUS, ("allow", "mode")),
        # Whatever lands outside asks in every mode.
        (_call("browser", "navigate", Risk.CHANGE, AWAY), Mode.AUTONOMOUS, ("ask", "plan")),
        (_call("browser", "key", Risk.CHANGE, DOC, AWAY), Mode.AUTONOMOUS, ("ask", "plan")),
        (_call("tabs", "open_url", Risk.CHANGE, AWAY), Mode.AUTONOMOUS, ("ask", "plan")),
        (_call("tabs", "click", Risk.CHANGE, DOC, AWAY), Mode.CHANGES, ("ask", "plan")),
        (_call("macos", "mail_send", Risk.CHANGE, "Mail"), Mode.AUTONOMOUS, ("ask", "plan")),
        (_call("macos", "clipboard_write", Risk.CHANGE, None), Mode.AUTONOMOUS, ("ask", "plan")),
        # A plan site's look-alike is not the plan site.
        (_call("browser", "navigate", Risk.CHANGE, "http://docs.example.evil.test/"),
         Mode.CHANGES, ("ask", "plan")),
        (_call("browser", "navigate", Risk.CHANGE, "http://notpython.org/"), Mode.CHANGES,
         ("ask", "plan")),
        # Reading leaks nothing: reads keep the mode's answer.
        (_call("browser", "get_page_text", Risk.READ, AWAY), Mode.AUTONOMOUS, ("allow", "mode")),
    ],
)  # fmt: skip
def test_what_a_plan_lets_run_and_what_still_asks(
    call: ToolCall, mode: Mode, expected: tuple[str, str]
) -> None:
    verdict, by, reason = _verdict(_approved_book(), call, mode)
    assert (verdict, by) == expected
    if by == "plan" and verdict == "allow":
        assert reason.startswith("allowed by the plan approved at ")
    if by == "plan" and verdict == "ask":
        assert reason.startswith("Not in the plan: ")


def test_off_plan_asks_even_with_an_always_allow_rule_and_a_never_rule_still_refuses() -> None:
    book = _approved_book()
    away = _call("browser", "navigate", Risk.CHANGE, AWAY)
    allowed = {"browser.navigate": Rule.ALLOW}
    assert _verdict(book, away, Mode.CHANGES, allowed)[:2] == ("ask", "plan")
    assert _verdict(book, away, Mode.CHANGES, allowed)[2] == "Not in the plan: elsewhere.example"
    never = {"browser.left_click": Rule.NEVER}
    on_plan = _call("browser", "left_click", Risk.CHANGE, DOC)
    assert _verdict(book, on_plan, Mode.CHANGES, never)[:2] == ("deny", "rule")


def test_only_the_person_approves_a_plan_and_not_outside_a_chat() -> None:
    book = _approved_book()
    proposal = _call(PLAN_TOOL, PLAN_TOOL, Risk.CHANGE, None)
    rule = {PLAN_TOOL: Rule.ALLOW}
    assert _verdict(book, proposal, Mode.AUTONOMOUS, rule)[:2] == ("ask", "plan")
    served = proposal.model_copy(update={"session_id": 0})  # `deskhand mcp`
    verdict, _by, reason = _verdict(book, served, Mode.AUTONOMOUS)
    assert verdict == "deny" and "Plans belong to chats" in reason


def test_a_plan_expires_after_its_minutes() -> None:
    book = _approved_book()
    plan = book.current(7)
    assert plan is not None and plan.expires_at - plan.approved_at == 60 * 60
    book.now = lambda: plan.expires_at
    assert book.current(7) is None
    on_plan = _call("browser", "left_click", Risk.CHANGE, DOC)
    assert _verdict(book, on_plan, Mode.CHANGES)[:2] == ("ask", "mode")


@browser
def test_a_plan_site_redirecting_elsewhere_is_stopped_and_what_the_person_allows_goes_through(
    planning: Workspace, model_server: ScriptedModelServer, sites: PlanSites
) -> None:
    bounce = sites.docs_url("redirect?to=" + sites.elsewhere_url(f"collect?q={SECRET}"))
    replies = [
        tool_reply(plan_use([DOCS])),
        tool_reply(browser_use("navigate", url=bounce)),  # in the plan: runs unasked
        tool_reply(browser_use("navigate", url=sites.elsewhere_url("plan/mirror.html"))),
        text_reply("Done."),
    ]
    approver = asyncio.run(run_task(planning, sites, model_server, replies))

    # The redirect's hop to the other site never left the browser...
    assert not any("collect" in path for path in sites.elsewhere.paths())
    assert any(path.startswith("/redirect") for path in sites.docs.paths())
    finished = planning.store.messages(1)[4].content[0]["deskhand_card"]
    assert f"Stopped 1 page outside the plan ({ELSEWHERE})" in finished["notices"]
    # ... while the navigation the person allowed, outside the plan, did.
    assert [call.action for call in approver.asked] == ["update_plan", "navigate"]
    assert "/plan/mirror.html" in sites.elsewhere.paths()


def test_the_apps_browser_holds_a_chats_tabs_to_its_plan(planning: Workspace) -> None:
    pool = planning.toolbox.browser_pool  # built from the settings, as the app builds it
    assert pool is not None and pool.guard.hold("7") is None  # no plan: the URL policy decides
    proposal = _call(PLAN_TOOL, PLAN_TOOL, Risk.CHANGE, None).model_copy(
        update={"input": {"domains": ["docs.example"], "approach": ["Read"]}}
    )
    planning.plans.approve(proposal, None)
    held = pool.guard.hold("7")
    assert held is not None and held("docs.example") and not held("elsewhere.example")
    planning.plans.allowed_beyond(_call("browser", "navigate", Risk.CHANGE, AWAY))
    assert held("docs.example") and pool.guard.hold("7")("elsewhere.example")  # type: ignore[misc]
    planning.plans.end(7)
    assert pool.guard.hold("7") is None

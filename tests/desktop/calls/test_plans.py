"""Plans through the real agent, the real browser and the scripted model: what a plan lets run,
what it still asks about, and what Claude reads."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.calls.permissions import Mode
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, text_reply, tool_reply
from tests.support.plan_sites import (
    DOCS,
    SETTINGS,
    PlanSites,
    documentation_task,
    plan_sites,
    plan_use,
    run_task,
)
from tools.browser import find_browser
from tools.plan import domain_problem

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
    assert planning.mode is Mode.CHANGES
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

"""The documentation task as a routine: record it through the real agent and browser, save it,
and run it again, for the routine tests and `bench/routines.py`.

The task is `plan_sites.documentation_task` (the plan, then 10 browser steps on the local
`docs.example`). `HEAL` is what the model does when a step goes to it after the first result's
link was renamed (`RENAMED`): it clicks the result where it now is, and says so.
"""

from __future__ import annotations

import time

from desktop.routines.model import RunReport
from desktop.workspace import Workspace
from tests.support import turns
from tests.support.model_server import (
    Reply,
    ScriptedModelServer,
    browser_use,
    text_reply,
    tool_reply,
)
from tests.support.plan_sites import FIRST_RESULT, Approver, PlanSites, use_plan_browser

TASK = "Find list comprehensions in the docs"
ANSWER = "List comprehensions are described in the tutorial."
# The first result's link, renamed since the routine was recorded.
RENAMED = {">List comprehensions</a>": ">Comprehensions</a>"}
HEAL = [tool_reply(browser_use("left_click", target=FIRST_RESULT)), text_reply("Clicked it.")]


def thinking(replies: list[Reply], seconds: float) -> list[Reply]:
    """The same replies, each after `seconds` of the model's time (a real turn's)."""
    return [reply.model_copy(update={"think": seconds}) for reply in replies]


async def record(
    workspace: Workspace, sites: PlanSites, model_server: ScriptedModelServer, replies: list[Reply]
) -> tuple[int, float]:
    """Run the task in a new chat to its end, every question answered yes: (chat, seconds)."""
    use_plan_browser(workspace, sites)
    model_server.enqueue(*replies)
    session = workspace.store.create_session().id
    started = time.monotonic()
    try:
        await turns.send(workspace.conversations, session, TASK)
    finally:
        await workspace.toolbox.close()
    return session, time.monotonic() - started


async def replay(
    workspace: Workspace,
    sites: PlanSites,
    name: str,
    values: dict[str, str] | None = None,
    *,
    update: bool = False,
) -> RunReport:
    """Run the routine `name` to its end on a fresh browser, and close that browser."""
    use_plan_browser(workspace, sites)
    try:
        return await workspace.routines.run(name, values or {}, update=update)
    finally:
        await workspace.toolbox.close()


def approve_all(workspace: Workspace) -> Approver:
    approver = Approver()
    workspace.approvals.subscribe(approver)
    return approver

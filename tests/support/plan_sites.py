"""Two local sites for plan tests: `docs.example` (the plan's) and `elsewhere.example` (not).

Both are `PageServer`s on 127.0.0.1; Chromium maps the names there with
`--host-resolver-rules`, and the network checker's resolver answers the same (as in the egress
tests), while the person's allow list holds both names. `elsewhere.hits` records every request
that reached the other site, so a test can prove nothing did. The docs pages
(`pages/plan/`) hold a search form, a link and a form that lead to the other site, a purchase
button and a line of text worth stealing ("Release key: 4242-alpha").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer, ToolCall
from desktop.calls.sources.browser.source import BrowserSource, browser_config
from desktop.workspace import Workspace
from tests.support import turns
from tests.support.model_server import (
    Reply,
    ScriptedModelServer,
    ToolUse,
    browser_use,
    text_reply,
    tool_reply,
)
from tests.support.page_server import PageServer
from tools.browser.pool import BrowserPool

DOCS = "docs.example"
ELSEWHERE = "elsewhere.example"
SECRET = "4242-alpha"
RESOLVES = {DOCS: "127.0.0.1", ELSEWHERE: "127.0.0.1"}

# Page coordinates of the docs home's controls (absolutely placed, see pages/plan/docs.html).
SEARCH_BOX = {"type": "coordinate", "x": 140, "y": 55}
MIRROR_LINK = {"type": "coordinate", "x": 330, "y": 110}
FEEDBACK_BOX = {"type": "coordinate", "x": 140, "y": 175}
BUY = {"type": "coordinate", "x": 400, "y": 178}
FIRST_RESULT = {"type": "coordinate", "x": 80, "y": 70}


async def resolver(host: str) -> list[str]:
    if host not in RESOLVES:
        raise OSError("no such host")  # nothing leaves this machine in tests
    return [RESOLVES[host]]


@dataclass
class PlanSites:
    docs: PageServer
    elsewhere: PageServer

    def docs_url(self, path: str) -> str:
        return f"http://{DOCS}:{self.docs.port}/{path.lstrip('/')}"

    def elsewhere_url(self, path: str) -> str:
        return f"http://{ELSEWHERE}:{self.elsewhere.port}/{path.lstrip('/')}"

    def browser_args(self) -> tuple[str, ...]:
        rules = ", ".join(f"MAP {name} {address}" for name, address in RESOLVES.items())
        return (f"--host-resolver-rules={rules}",)


@contextmanager
def plan_sites() -> Iterator[PlanSites]:
    with PageServer() as elsewhere:
        with PageServer(sentinel=f"http://{ELSEWHERE}:{elsewhere.port}") as docs:
            yield PlanSites(docs=docs, elsewhere=elsewhere)


SETTINGS = {
    "model": {"max_retries": 0},
    "browser": {"headless": True, "allow_hosts": f"{DOCS}, {ELSEWHERE}"},
}


def use_plan_browser(workspace: Workspace, sites: PlanSites) -> BrowserPool:
    """Give the workspace a real browser that resolves the two names to the local servers.

    The app builds its pool from Settings → Browser; here the same config gets the test's
    host mapping and resolver (the system's would look the names up on the internet)."""
    toolbox = workspace.toolbox
    config = browser_config(workspace.settings.browser, workspace.paths.downloads)
    config = dataclasses.replace(config, extra_args=sites.browser_args())
    pool = BrowserPool(config, resolver=resolver)
    pool.hold_navigations(workspace.plans.navigation_hold)  # as the app's own pool is
    toolbox._browser_pool = pool  # built here instead of from the settings alone
    toolbox._browser = BrowserSource(pool)
    toolbox._browser_built = True
    return pool


def plan_use(
    domains: list[str], approach: list[str] | None = None, apps: list[str] | None = None
) -> ToolUse:
    """An `update_plan` call, as the model sends it."""
    plan: dict[str, object] = {
        "domains": domains,
        "approach": approach or ["Open the documentation", "Search", "Read the result"],
    }
    if apps is not None:
        plan["apps"] = apps
    return ToolUse(name="update_plan", input=plan)


def documentation_task(sites: PlanSites, *, with_plan: bool) -> list[Reply]:
    """The 11-step documentation search (with the plan first, or 10 steps without it): only
    reads, one search box, one Return, and links within the docs."""
    steps = [
        browser_use("navigate", url=sites.docs_url("plan/docs.html")),
        browser_use("screenshot"),
        browser_use("left_click", target=SEARCH_BOX),
        browser_use("type", text="list comprehensions"),
        browser_use("key", text="Return"),
        browser_use("get_page_text"),
        browser_use("left_click", target=FIRST_RESULT),
        browser_use("get_page_text"),
        browser_use(
            "scroll", target={"type": "coordinate", "x": 200, "y": 200}, scroll_direction="down"
        ),
        browser_use("screenshot"),
    ]
    if with_plan:
        steps.insert(0, plan_use([DOCS]))
    return [*(tool_reply(step) for step in steps), text_reply("Found it.")]


class Approver:
    """Answers every question yes, as a person who trusts the task would; counts the sheets."""

    def __init__(self) -> None:
        self.asked: list[ToolCall] = []

    def __call__(self, request: ApprovalRequest) -> None:
        self.asked.append(request.call)
        request.answer(Answer(allow=True))


async def run_task(
    workspace: Workspace, sites: PlanSites, model_server: ScriptedModelServer, replies: list[Reply]
) -> Approver:
    """One chat running `replies` to the end, every question answered yes; the browser closed."""
    approver = Approver()
    workspace.approvals.subscribe(approver)
    use_plan_browser(workspace, sites)
    model_server.enqueue(*replies)
    session = workspace.store.create_session().id
    try:
        await turns.send(workspace.conversations, session, "Find list comprehensions in the docs")
    finally:
        await workspace.toolbox.close()
        await workspace.agent.close()
    return approver

"""The `update_plan` tool: Claude names the sites and apps a task needs and how it will go.

The input is a fixed contract: ``{"domains": [...], "approach": [...], "apps": [...]}``.
Site patterns are checked here, before anyone is asked: a host (``docs.python.org``) or a
``*.`` pattern no wider than one registrable domain (``*.python.org``). A bare top-level
domain, ``*``, an IP address or range, and a pattern over a public suffix (``*.co.uk``,
``*.github.io``) are refused with a phrase that says why. Registrable domains come from the
Public Suffix List snapshot that `tldextract` ships (never fetched at run time).

What approving a plan does is the app's business (the gate asks the person, always); the
tool only reports, in fixed phrases, what the person approved.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from pydantic import Field

from tools.base import ActionInfo, Risk, RunContext, Tool, ToolResult
from tools.data import Data
from tools.outcome import Outcome

if TYPE_CHECKING:
    from tldextract import TLDExtract

NAME = "update_plan"
MAX_ITEMS = 20

DESCRIPTION = (
    "Propose a plan before acting: the sites (domains) and apps the task needs, and the approach "
    "as short steps in plain words. The person approves it once; then reads and changes on those "
    "sites and apps run without asking, while purchases, payments, sending, deleting, sign-ups, "
    "downloads and anything outside the plan still ask. Call it again, with a wider plan, when "
    "the task needs more than was approved. domains: hosts like docs.python.org, or *. patterns "
    "like *.python.org (no wider than one registrable domain). apps: app names or bundle ids."
)


class PlanInput(Data):
    """The plan as Claude proposes it."""

    domains: list[str] = Field(
        min_length=1,
        max_length=MAX_ITEMS,
        description="Hosts (docs.python.org) or *. patterns (*.python.org) the task will use.",
    )
    approach: list[str] = Field(
        min_length=1, max_length=MAX_ITEMS, description="Short steps in plain words."
    )
    apps: list[str] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="Optional: app names or bundle ids (Mac apps, tabs, screen control).",
    )


@cache
def _extractor() -> TLDExtract:
    import tldextract  # loaded with the first plan, not at startup

    # The bundled snapshot only: no list is fetched, no cache is written.
    return tldextract.TLDExtract(
        suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True
    )


def normal_host(text: str) -> str:
    """A host as plans compare it: lower case, no trailing dot, IDNA-encoded."""
    host = text.strip().lower().rstrip(".")
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def registrable(host: str) -> str | None:
    """The registrable domain of `host` ("python.org" for "docs.python.org"), or None when
    `host` is itself a public suffix or a single label. A name under a top-level domain that
    the list does not know (".example", ".test") counts that label as its suffix."""
    labels = host.split(".")
    if len(labels) < 2 or not all(labels):
        return None
    parts = _extractor()(host)
    if parts.suffix:
        return f"{parts.domain}.{parts.suffix}" if parts.domain else None
    return ".".join(labels[-2:])


def _is_address(text: str) -> bool:
    candidate = text.strip("[]")
    for parse in (ipaddress.ip_address, ipaddress.ip_network):
        try:
            parse(candidate)
        except ValueError:
            continue
        return True
    return False


def domain_problem(pattern: str) -> str | None:
    """Why a `domains` entry is refused, in words; None when it names one site or its
    subdomains within one registrable domain."""
    text = pattern.strip()
    shown = repr(text[:80])
    if not text or text in ("*", "*.", "**"):
        return f"{shown} would allow every site; name the sites the task needs."
    if _is_address(text) or _is_address(text.removeprefix("*.")):
        return f"{shown} is an IP address or range; plans name sites by their host name."
    if "://" in text or "/" in text or ":" in text:
        return f"{shown} is not a host; give the host alone, like docs.python.org."
    wildcard = text.startswith("*.")
    host = normal_host(text.removeprefix("*."))
    if "*" in host:
        return f"{shown} may only start with *. (like *.python.org)."
    if not all(part and len(part) < 64 for part in host.split(".")) or not all(
        ch.isalnum() or ch in "-." for ch in host
    ):
        return f"{shown} is not a valid host name."
    if "." not in host:
        return f"{shown} is a bare top-level domain; name a site under it."
    domain = registrable(host)
    if domain is None:
        kind = "covers every site under" if wildcard else "is"
        return (
            f"{shown} {kind} a public suffix ({host}), wider than one registrable domain; "
            "name a site under it."
        )
    return None


class PlanTool(Tool[PlanInput]):
    """`update_plan`: always asks the person; `approved(session_id)` tells what they approved."""

    name = NAME
    title = "Plan"
    description = DESCRIPTION
    Input = PlanInput

    def __init__(self, approved: Callable[[int], str | None]) -> None:
        self._approved = approved

    def action(self, call: PlanInput) -> str:
        return NAME

    def risk(self, call: PlanInput) -> tuple[Risk, str]:
        return Risk.CHANGE, "Lets Claude act on these sites and apps without asking each time"

    def summary(self, call: PlanInput) -> str:
        steps = len(call.approach)
        where = ", ".join(call.domains)
        apps = f"; apps {', '.join(call.apps)}" if call.apps else ""
        return f"Plan: {steps} step{'s' if steps != 1 else ''} on {where}{apps}"

    def actions(self) -> list[ActionInfo]:
        return [
            ActionInfo(
                name=NAME,
                risk=Risk.CHANGE,
                description="Propose a plan; only you can approve it, every time",
            )
        ]

    async def prepare(self, call: PlanInput) -> PlanInput | ToolResult:
        """A plan wider than its sites allow is refused here, before the person is asked."""
        problems = [p for p in map(domain_problem, call.domains) if p is not None]
        blank = [a for a in [*call.approach, *call.apps] if not a.strip()]
        if blank:
            problems.append("Steps and app names must not be empty.")
        if not problems:
            return call
        return ToolResult.failure(
            "This plan was refused before the person saw it: "
            + " ".join(problems)
            + " Propose the plan again with update_plan."
        )

    async def run(self, call: PlanInput, ctx: RunContext) -> ToolResult:
        text = self._approved(ctx.session_id)
        if text is None:  # approved, then ended before it ran (Stop, expiry): say so
            return ToolResult.failure("The plan is no longer approved. Propose it again.")
        # Read back from the plan book: the plan stands approved, seen, not just said.
        return ToolResult(text=text, outcome=Outcome(kind="done"))

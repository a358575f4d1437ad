"""A finished chat as a routine draft: its steps from the cards, its plan, its typed texts.

The chat's stored cards are the record: each acting call's card keeps its words, its target by
meaning and what it really did (`CallCard`). Calls that did nothing (refused, failed, stopped)
are left out; looks that only served to find the next target (a page read, a screenshot) are
dropped, since a replay finds targets by meaning itself. The last read before the answer stays:
the answer is written from what it read.

Nothing secret is recorded: a step that typed into a password field, or named Deskhand's key or
own places, makes the draft refuse with why; a card that says the key was replaced keeps no value.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field

from desktop.calls.contract import CARD_KEY, CallCard, ToolUse
from desktop.calls.own_places.guard import KEY_NOTICE, OWN_PLACE
from desktop.routines.model import PARAM_PATTERN, Parameter, RoutinePlan, Step
from desktop.system.keystore import known_keys
from desktop.system.store import StoredMessage
from tools.data import Data

NOT_FINISHED = "This chat's task has not finished: save it as a routine once Claude has answered."
NOTHING_DONE = "This chat did nothing a routine could do again: no action ran."
SECRET = (
    "This chat typed into a password field. Sign in by hand with Take over; routines never hold "
    "passwords."
)
PLAN_TOOL = "update_plan"  # the plan's tool (calls/sources/plan/proposal.py), loaded later
OWN_PLACES = (
    "This chat touched Deskhand's own places or its API key. Routines never hold Deskhand's key "
    "or its files."
)
# Reads whose only use is finding the next target: a replay finds targets by meaning itself.
LOOKING = frozenset(
    {"read_page", "find", "screenshot", "zoom", "list_tabs", "wait", "cursor_position", "see"}
)
# Where a member types text the person may want to change per run: (member, input key).
TYPED_KEYS = {"type": "text", "form_input": "value"}


class TypedText(Data):
    """A text a step typed: the save sheet offers to make it a parameter."""

    step: int  # 0-based, in the draft's steps
    key: str  # the input key that holds it
    text: str


class Draft(Data):
    """What the save sheet shows before a routine is saved."""

    session_id: int
    name: str  # suggested: the chat's title
    task: str
    steps: list[Step] = Field(default_factory=list)
    dropped: list[str] = Field(default_factory=list)  # the words of looks left out
    plan: RoutinePlan = Field(default_factory=RoutinePlan)
    typed: list[TypedText] = Field(default_factory=list)
    answer: bool = True
    refusal: str = ""  # set: the chat cannot become a routine, and why


def draft_of(session_id: int, title: str, messages: list[StoredMessage]) -> Draft:
    """The routine a finished chat would make (or why it cannot)."""
    draft = Draft(session_id=session_id, name=_name_from(title), task=_task(messages))
    last = messages[-1] if messages else None
    if last is None or last.role != "assistant" or last.status != "complete":
        return draft.model_copy(update={"refusal": NOT_FINISHED})
    if last.stop_reason not in (None, "end_turn", "stop_sequence"):
        return draft.model_copy(update={"refusal": NOT_FINISHED})
    calls = calls_of(messages)
    plan = RoutinePlan()
    kept: list[Step] = []
    keys = known_keys()
    for use, card, result_text in calls:
        refusal = _secret_refusal(card, result_text)
        if not refusal and any(key in json.dumps(use.input) for key in keys):
            refusal = OWN_PLACES
        if refusal:
            return draft.model_copy(update={"refusal": refusal})
        if use.name == PLAN_TOOL and card.outcome == "ok":
            plan = _plan_of(use.arguments)
            continue
        if card.outcome != "ok" or use.name == PLAN_TOOL:
            continue  # it did nothing: nothing to do again
        kept.append(record_step(use, card))
    steps, dropped = _without_looks(kept)
    if not steps:
        return draft.model_copy(update={"refusal": NOTHING_DONE})
    answer = any(block.get("type") == "text" and block.get("text") for block in last.content)
    return draft.model_copy(
        update={
            "steps": steps,
            "dropped": dropped,
            "plan": _with_targets(plan, steps),
            "typed": typed_texts(steps),
            "answer": answer,
        }
    )


def typed_texts(steps: list[Step]) -> list[TypedText]:
    """Every text a step typed, in order."""
    found: list[TypedText] = []
    for index, step in enumerate(steps):
        key = TYPED_KEYS.get(step.member)
        if key and isinstance(step.input.get(key), str) and step.input[key]:
            found.append(TypedText(step=index, key=key, text=step.input[key]))
        elif step.toolset_name is None and step.source not in ("browser", "computer"):
            # A function tool's text arguments (a note's title, a mail's subject).
            for name, value in step.input.items():
                if name != "action" and isinstance(value, str) and value.strip():
                    found.append(TypedText(step=index, key=name, text=value))
    return found


def with_parameters(
    steps: list[Step], typed: list[TypedText], chosen: dict[str, str]
) -> tuple[list[Step], list[Parameter]]:
    """The steps with each chosen typed text (parameter name → the text) replaced by
    ``{{name}}``, and the parameters, the recorded text as each one's default. Raises
    ValueError naming a text no step typed, or a name that cannot be a parameter."""
    steps = [step.model_copy(deep=True) for step in steps]
    parameters: list[Parameter] = []
    for name, text in chosen.items():
        if not re.match(PARAM_PATTERN, name):
            raise ValueError(f"“{name}” cannot be a parameter's name: use letters, digits and _.")
        places = [entry for entry in typed if entry.text == text]
        if not places:
            raise ValueError(f"No step typed “{text}”, so it cannot become the parameter {name}.")
        for entry in places:
            steps[entry.step].input[entry.key] = "{{" + name + "}}"
        parameters.append(Parameter(name=name, default=text))
    return steps, parameters


def _name_from(title: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch in " .-_" else " " for ch in title)
    name = " ".join(cleaned.split())[:60].strip(" .-")
    return name or "Routine"


def _task(messages: list[StoredMessage]) -> str:
    for message in messages:
        if message.role == "user" and message.text.strip():
            return message.text.strip()
    return ""


def calls_of(messages: list[StoredMessage]) -> list[tuple[ToolUse, CallCard, str]]:
    """Each tool_use with its stored card and result text, in order (cards missing: skipped)."""
    results: dict[str, dict[str, Any]] = {}
    for message in messages:
        if message.role == "user":
            for block in message.content:
                if block.get("type") == "tool_result":
                    results[str(block.get("tool_use_id"))] = block
    calls: list[tuple[ToolUse, CallCard, str]] = []
    for message in messages:
        if message.role != "assistant":
            continue
        for block in message.content:
            if block.get("type") != "tool_use":
                continue
            use = ToolUse.of(block)
            result = results.get(use.id)
            if result is None or not isinstance(result.get(CARD_KEY), dict):
                continue
            card = CallCard.model_validate(result[CARD_KEY])
            calls.append((use, card, result_text(result)))
    return calls


def result_text(block: dict[str, Any]) -> str:
    """A stored tool_result's text (its text blocks, joined)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(
        str(item.get("text", ""))
        for item in content or []
        if isinstance(item, dict) and item.get("type") == "text"
    )


def _secret_refusal(card: CallCard, result_text: str) -> str:
    if card.meaning is not None and card.meaning.secret:
        return SECRET
    if "password field" in result_text and result_text.startswith("Refused"):
        return SECRET
    if OWN_PLACE in result_text or any("Deskhand's own" in line for line in card.notices):
        return OWN_PLACES
    return ""


def record_step(use: ToolUse, card: CallCard) -> Step:
    """One call that ran, as a routine step (its card says what it did, and on what)."""
    effect = card.effect
    lines = list(effect.changes) if effect is not None else []
    if KEY_NOTICE in card.notices:
        lines = []  # the card said the key was replaced: none of its values is kept
    return Step(
        source=card.source or (use.toolset_name or use.name),
        member=use.name,
        toolset_name=use.toolset_name,
        words=card.summary or card.label,
        target=card.meaning if card.meaning is not None and card.meaning.known else None,
        input=dict(use.arguments),
        effect=lines,
        outcome=effect.kind if effect is not None else None,
        reads=effect is None,
    )


def _without_looks(steps: list[Step]) -> tuple[list[Step], list[str]]:
    """The steps without looks that only found the next target; the last read stays."""
    last_read = max((i for i, step in enumerate(steps) if step.reads), default=-1)
    kept: list[Step] = []
    dropped: list[str] = []
    for index, step in enumerate(steps):
        if step.reads and index != last_read and step.member in LOOKING:
            dropped.append(step.words)
            continue
        kept.append(step)
    return kept, dropped


def _plan_of(arguments: dict[str, Any]) -> RoutinePlan:
    def strings(key: str) -> list[str]:
        value = arguments.get(key)
        return [str(item) for item in value] if isinstance(value, list) else []

    return RoutinePlan(
        domains=strings("domains"), apps=strings("apps"), approach=strings("approach")
    )


def _with_targets(plan: RoutinePlan, steps: list[Step]) -> RoutinePlan:
    """The plan, with every site and app a step lands on (a chat run without a plan still
    gets one: the routine's sites are shown once per run)."""
    domains = list(plan.domains)
    apps = list(plan.apps)
    for step in steps:
        url = step.input.get("url") if step.member == "navigate" else None
        url = url if isinstance(url, str) else (step.target.url if step.target else "")
        host = urlsplit(url).hostname if url and "://" in url else None
        if host and not any(_covers(pattern, host) for pattern in domains):
            domains.append(host)
        app = step.target.app if step.target else ""
        if app and app not in apps:
            apps.append(app)
    approach = list(plan.approach) or [step.words for step in steps if not step.reads][:20]
    return RoutinePlan(domains=domains, apps=apps, approach=approach)


def _covers(pattern: str, host: str) -> bool:
    if pattern.startswith("*."):
        return host == pattern[2:] or host.endswith(pattern[1:])
    return host == pattern

"""`deskhand ui click|type|scroll --json` answer with schema /2: what the action really did
(`outcome`, `changes`, `note`) travels from the pipeline's result, over the socket's line, to
the printed answer, and the answer holds to its published schema. (The screen's own read-back
is tested with the screen; here the outcome is given, and every hop is real.)"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import jsonschema
import pytest

from desktop.calls.contract import CallResult
from desktop.command import answers
from desktop.command.actions import as_result
from desktop.command.cli import _payload
from desktop.command.client import ActionResult
from desktop.command.protocol import Reply
from tests.support.answers import checked, validator
from tools.outcome import Outcome

RECT = {"x": 10, "y": 20, "width": 100, "height": 24}
POINT = {"x": 60, "y": 32}


def element(secure: bool = False) -> dict[str, Any]:
    return {
        "id": "T1",
        "role": "text field",
        "type": "T",
        "label": "Name",
        "value": None if secure else "AB",
        "secure": secure,
        "enabled": True,
        "focused": True,
        "showing": True,
        "bounds": RECT,
        "global_bounds": RECT,
        "app": "see_target.py",
        "pid": 4242,
        "window": 7,
    }


def printed(command: str, outcome: Outcome | None, secure: bool = False) -> dict[str, Any]:
    """The answer `deskhand ui COMMAND --json` prints for a pipeline result with `outcome`,
    through the socket's JSON line and the command's reading of it."""
    data = {
        "snapshot": "s1",
        "element": element(secure),
        "how": "accessibility",
        "screen": 0,
        "local": POINT,
        "global": POINT,
    }
    result = asyncio.run(
        as_result(CallResult(content=[{"type": "text", "text": "Set T1."}], outcome=outcome))
    )
    line = Reply(result=result.model_copy(update={"data": data})).model_dump_json()
    read = ActionResult.of(json.loads(line)["result"])
    name = {"click": "ui.click", "type": "ui.type", "scroll": "ui.scroll"}[command]
    return json.loads(json.dumps(answers.answer(name, _payload(command, read, []))))


def test_a_typed_value_that_differs_is_in_the_answer_as_the_model_reads_it() -> None:
    outcome = Outcome(
        kind="differs",
        changes=['~ text "Name": "" → "AB"'],
        note='The field holds "AB", not the text typed.',
    )
    value = checked(printed("type", outcome), "deskhand.ui.type/2")
    assert (value["outcome"], value["changes"], value["note"]) == (
        "differs",
        ['~ text "Name": "" → "AB"'],
        'The field holds "AB", not the text typed.',
    )
    assert value["element"]["id"] == "T1" and value["how"] == "accessibility"


def test_a_click_that_changed_nothing_and_one_not_confirmed() -> None:
    nothing = Outcome(kind="no_effect", nothing="nothing in the window changed.")
    value = checked(printed("click", nothing), "deskhand.ui.click/2")
    assert (value["outcome"], value["changes"], value["note"]) == ("no_effect", [], "")
    unsure = Outcome(kind="unconfirmed", note="Not confirmed: the window cannot be read.")
    value = checked(printed("click", unsure), "deskhand.ui.click/2")
    assert (value["outcome"], value["note"]) == (
        "unconfirmed",
        "Not confirmed: the window cannot be read.",
    )


def test_a_scroll_that_only_read_says_nothing_was_checked() -> None:
    value = checked(printed("scroll", None), "deskhand.ui.scroll/2")
    assert (value["outcome"], value["changes"], value["note"]) == (None, [], "")


def test_a_password_fields_value_is_hidden_and_the_schema_holds_it_so() -> None:
    hidden = Outcome(kind="done", changes=['~ password text "PIN": (hidden) → (hidden)'])
    value = checked(printed("type", hidden, secure=True), "deskhand.ui.type/2")
    assert value["changes"] == ['~ password text "PIN": (hidden) → (hidden)']
    assert value["element"]["value"] is None


@pytest.mark.parametrize("command", ["click", "type", "scroll"])
def test_version_2_requires_what_the_action_did(command: str) -> None:
    answer = printed(command, Outcome(kind="done", changes=['+ dialog "Saved"']))
    assert answer["schema"] == f"deskhand.ui.{command}/2"
    for field in ("outcome", "changes", "note"):
        without = {k: v for k, v in answer.items() if k != field}
        with pytest.raises(jsonschema.ValidationError):
            validator(answer["schema"]).validate(without)
    with pytest.raises(jsonschema.ValidationError):
        validator(answer["schema"]).validate({**answer, "outcome": "clicked"})

"""`deskhand routine` from a terminal, in text and JSON: a real finished chat (the scripted model
doing a task with the sample function tools) saved as a routine by the command on its own, then
listed, shown, and run by the app over its command-line socket (the listener on a real
workspace, as the app runs it). Each command is a process of its own; every `--json` answer is
checked against its published schema, and the run's effects are read back from the tools and
from what the model received."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer
from desktop.routines.model import Routine
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.routine_chat import (
    ANSWER,
    TASK,
    Ran,
    desk,
    deskhand,
    finished,
    interrupt,
    record,
    serving,
    started,
)
from tools.base import Risk

RUNNING = "Running in the chat “▶ Greet” (Ctrl+C stops it)…\n"


def tool_results(server: ScriptedModelServer, request: int) -> list[str]:
    """The text of every tool result the model received in request `request`, in order."""
    texts = []
    for message in server.message_requests[request]["messages"]:
        for block in message["content"]:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                texts.append("\n".join(part["text"] for part in block["content"]))
    return texts


def saved(workspace: Workspace, model_server: ScriptedModelServer) -> dict[str, Any]:
    """The recorded chat saved as "Greet" by the command, its typed "Ada" the parameter `who`."""

    async def go() -> dict[str, Any]:
        await record(workspace, model_server)
        await workspace.agent.close()
        made = await deskhand(workspace.paths.root, "save", "--name", "Greet", "--param", "who=Ada")
        assert (made.code, made.err) == (0, ""), made
        return json.loads((workspace.paths.routines / "Greet.json").read_text())

    return asyncio.run(go())


def test_a_finished_chat_saved_listed_and_shown_without_the_app(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    desk(workspace)
    root = workspace.paths.root

    async def go() -> None:
        chat = await record(workspace, model_server)
        await workspace.agent.close()
        made = await deskhand(root, "save", "--name", "Greet", "--param", "who=Ada", "--json")
        assert (made.code, made.err) == (0, "")
        routine = made.json
        assert routine["schema"] == "deskhand.routine/1" and "ok" not in routine
        assert (routine["name"], routine["task"], routine["answer"]) == ("Greet", TASK, True)
        assert routine["parameters"] == [{"name": "who", "default": "Ada"}]
        assert [(s["member"], s["words"], s["input"], s["effect"]) for s in routine["steps"]] == [
            ("field", "Field: type into Name", {"text": "{{who}}"}, ['~ textbox "Name": "" → "Ada"']),
            ("notebook", "Notebook: write 'met Ada'", {"text": "met Ada"}, []),
        ]  # fmt: skip
        # The file is that routine, signed by Deskhand; `show --json` prints it again.
        on_disk = json.loads((workspace.paths.routines / "Greet.json").read_text())
        assert on_disk.pop("signature") and on_disk == routine
        shown = await deskhand(root, "show", "Greet", "--json")
        assert (shown.code, shown.json) == (0, routine)

        listed = await deskhand(root, "list", "--json")
        [entry] = listed.json["routines"]
        assert (entry["name"], entry["kept"], entry["steps"], entry["problem"]) == (
            "Greet",
            True,
            2,
            "",
        )
        assert entry["parameters"] == [{"name": "who", "default": "Ada"}]
        text = await deskhand(root, "list")
        assert (text.code, text.out, text.err) == (0, "Greet — 2 steps; parameters who\n", "")
        page = await deskhand(root, "show", "Greet")
        assert page.out == (
            f"Greet: {TASK}\n"
            "Parameters: who (default “Ada”)\n"
            "Steps:\n"
            '  1. Field: type into Name  {"text": "{{who}}"}\n'
            '  2. Notebook: write \'met Ada\'  {"text": "met Ada"}\n'
            "Ends with Claude's answer (one request).\n"
        )
        # The chat by its title, in text.
        title = workspace.store.session(chat).title  # type: ignore[union-attr]
        again = await deskhand(root, "save", title, "--name", "Greet again")
        assert (again.code, again.err) == (0, "")
        assert again.out == (
            "Saved the routine “Greet again”: 2 steps.\n"
            "Run it with: deskhand routine run 'Greet again'\n"
        )

    asyncio.run(go())


def test_bad_input_not_found_and_refused_are_one_line_and_an_error_code(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    desk(workspace)
    root = workspace.paths.root

    async def go() -> None:
        nothing = await deskhand(root, "save", "--name", "Greet", "--json")
        assert (nothing.code, nothing.json["error"]["code"]) == (1, "not_found")
        assert nothing.err == (
            "deskhand routine save: There is no chat to save: finish a task first, then save it "
            "as a routine.\n"
        )
        unfinished = workspace.store.create_session().id
        workspace.conversations.show_prompt(unfinished, "Do something")  # never answered
        refused = await deskhand(root, "save", "--name", "Greet", "--json")
        assert (refused.code, refused.json["error"]["code"]) == (1, "refused")
        assert refused.json["error"]["message"] == (
            "This chat's task has not finished: save it as a routine once Claude has answered."
        )
        chat = await record(workspace, model_server)
        await workspace.agent.close()
        untyped = await deskhand(
            root, "save", str(chat), "--name", "Greet", "--param", "who=Grace", "--json"
        )
        assert (untyped.code, untyped.json["error"]["code"]) == (2, "bad_input")
        assert untyped.err == (
            "deskhand routine save: No step typed “Grace”, so it cannot become the parameter who.\n"
        )
        no_equals = await deskhand(root, "save", "--name", "Greet", "--param", "who", "--json")
        assert (no_equals.code, no_equals.json["error"]["message"]) == (
            2,
            "--param needs NAME=TEXT, not “who”.",
        )
        no_such = await deskhand(root, "show", "Nope", "--json")
        assert (no_such.code, no_such.json["command"], no_such.json["error"]["message"]) == (
            1,
            "routine show",
            "There is no routine named “Nope”. `deskhand routine list` names them.",
        )
        assert not workspace.paths.routines.exists() or not list(workspace.paths.routines.iterdir())
        # A file that does not parse is listed with why, and named when asked for.
        workspace.paths.routines.mkdir(exist_ok=True)
        (workspace.paths.routines / "Broken.json").write_text('{"schema": "deskhand.rout')
        listed = await deskhand(root, "list", "--json")
        why = (
            "The routine file “Broken.json” cannot be read (not JSON: line 1). Fix or remove it "
            "in the routines folder, or export the routine again."
        )
        assert listed.json["routines"] == [{"name": "Broken", "kept": False, "problem": why}]
        assert (await deskhand(root, "list")).out == f"Broken — cannot be read: {why}\n"
        broken = await deskhand(root, "show", "Broken", "--json")
        assert (broken.code, broken.json["error"]["code"]) == (2, "bad_input")
        assert broken.err == f"deskhand routine show: {why}\n"

    asyncio.run(go())


def test_a_run_replays_in_the_app_with_its_parameter_and_one_model_request(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    tools = desk(workspace)
    saved(workspace, model_server)
    root = workspace.paths.root
    recorded = len(model_server.message_requests)

    async def go() -> None:
        async with serving(workspace):
            model_server.enqueue(text_reply("Typed Grace."))
            ran = await deskhand(root, "run", "Greet", "--param", "who=Grace", "--json")
            assert (ran.code, ran.err) == (0, RUNNING)
            report = ran.json
            assert (report["schema"], report["ok"], report["status"]) == (
                "deskhand.routine.run/1",
                True,
                "done",
            )
            assert (report["replayed"], report["healed"], report["model_requests"]) == (2, 0, 1)
            assert report["answer"] == "Typed Grace." and report["update_offered"] is False
            assert [(s["status"], s["effect"]) for s in report["steps"]] == [
                ("replayed", ['~ textbox "Name": "Ada" → "Grace"']),
                ("replayed", []),
            ]
            assert tools.field.value == "Grace"
            assert tools.notebook.lines == ["met Ada", "met Ada"]
            # The one request of the run (its answer) carried the steps' exact results.
            assert len(model_server.message_requests) == recorded + 1
            assert tool_results(model_server, -1) == [
                'Typed.\nEffect:\n~ textbox "Name": "Ada" → "Grace"',
                "Wrote line 2.",
            ]
            run_chat = workspace.store.session(report["chat_id"])
            assert run_chat is not None and run_chat.title == "▶ Greet"
            [run] = workspace.routines.runs("Greet")  # its history says who asked
            assert (run.trigger, run.status, run.chat_id) == ("command", "done", report["chat_id"])

            model_server.enqueue(text_reply(ANSWER))
            text = await deskhand(root, "run", "Greet")
            assert (text.code, text.err) == (0, RUNNING)
            assert re.fullmatch(
                rf"Done in [0-9.]+ s: 2 replayed, 0 healed, 1 model request\.\n{ANSWER}\n", text.out
            ), text.out
            assert tools.field.value == "Ada"  # its default

        history = await deskhand(root, "runs", "Greet", "--json")
        runs = history.json["runs"]
        assert [(r["trigger"], r["status"], r["model_requests"]) for r in runs] == [
            ("command", "done", 1),
            ("command", "done", 1),
        ]
        assert runs[0]["chat_id"] == report["chat_id"]
        lines = (await deskhand(root, "runs", "Greet")).out.splitlines()
        assert len(lines) == 2
        for line in lines:
            assert re.fullmatch(
                r"\d{4}-\d\d-\d\d \d\d:\d\d  done     [0-9.]+ s, 1 model request  "
                r"\(by the command line\)",
                line,
            ), line

    asyncio.run(go())


def test_a_run_that_cannot_start_says_why_with_its_code(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    tools = desk(workspace)
    routine = saved(workspace, model_server)
    root = workspace.paths.root
    recorded = len(model_server.message_requests)

    async def go() -> None:
        async with serving(workspace):
            unknown = await deskhand(root, "run", "Greet", "--param", "whom=Lin", "--json")
            assert (unknown.code, unknown.json["error"]["code"]) == (2, "bad_input")
            assert unknown.err == (
                "deskhand routine run: The routine “Greet” has no parameter whom (its "
                "parameters: who).\n"
            )
            missing = await deskhand(root, "run", "Gret", "--json")
            assert (missing.code, missing.json["error"]["code"]) == (1, "not_found")
            # Changed outside Deskhand: not run until the person keeps it in the window.
            (workspace.paths.routines / "Greet.json").write_text(
                json.dumps({**routine, "task": "Type Ada somewhere else"})
            )
            outside = await deskhand(root, "run", "Greet", "--json")
            assert (outside.code, outside.json["error"]["code"]) == (1, "refused")
            assert outside.json["error"]["message"] == (
                "The routine “Greet” was changed or added outside Deskhand, and it runs only "
                "once you keep it: open Deskhand, choose it under Routines and press Keep after "
                "reading its steps."
            )
            listed = await deskhand(root, "list")
            assert (
                listed.out
                == "Greet — 2 steps; parameters who; not kept: changed outside Deskhand\n"
            )
        assert tools.field.value == "Ada" and tools.notebook.lines == ["met Ada"]  # nothing ran
        assert len(model_server.message_requests) == recorded

    asyncio.run(go())


def test_a_second_run_is_refused_and_ctrl_c_stops_the_first(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    tools = desk(workspace)
    saved(workspace, model_server)
    root = workspace.paths.root
    tools.notebook.delay = 60.0  # the second step takes its time: the run is still going
    tools.notebook.started.clear()  # set when the task was recorded

    async def go() -> None:
        async with serving(workspace):
            first = await started(root, "run", "Greet", "--param", "who=Lin", "--json")
            await asyncio.wait_for(tools.notebook.started.wait(), 60)
            second = await deskhand(root, "run", "Greet", "--json")
            assert (second.code, second.json["error"]["code"]) == (1, "already_running")
            assert second.err == (
                "deskhand routine run: The routine “Greet” is already running (in the chat "
                "“▶ Greet”).\n"
            )
            interrupt(first)
            stopped = await finished(first)
            assert stopped.code == 1
            report = stopped.json
            assert (report["ok"], report["status"], report["replayed"]) == (False, "stopped", 1)
            assert (
                report["error"] == "Stopped before the routine finished; the chat keeps what ran."
            )
            assert stopped.err == (
                f"{RUNNING}Stopping the routine…\n"
                "deskhand routine run: Stopped before the routine finished; the chat keeps what "
                "ran.\n"
            )
            assert workspace.routines.running() == {}
        assert tools.field.value == "Lin"
        assert tools.notebook.lines == ["met Ada"]  # the stopped step wrote nothing

    asyncio.run(go())


def test_run_help_names_its_options(tmp_path: Path) -> None:
    async def go() -> None:
        helped = await deskhand(tmp_path, "run", "--help")
        assert helped.code == 0
        for option in ("--param NAME=VALUE", "--update", "--json"):
            assert option in helped.out

    asyncio.run(go())


def test_a_healed_run_is_kept_with_update_and_the_next_run_needs_no_heal(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    tools = desk(workspace)
    saved(workspace, model_server)
    root = workspace.paths.root

    async def go() -> None:
        async with serving(workspace):
            tools.field.read_only = True  # the field no longer takes text: step 1 changes nothing
            recorded = len(model_server.message_requests)
            model_server.enqueue(
                tool_reply(ToolUse(name="notebook", input={"text": "Ada"})),  # the heal
                text_reply("The field is locked, so I wrote Ada in the notebook."),
                text_reply("Noted Ada."),  # the answer
            )
            healed = await deskhand(root, "run", "Greet", "--update")
            assert (healed.code, healed.err) == (0, RUNNING)
            assert re.fullmatch(
                r"Done in [0-9.]+ s: 1 replayed, 1 healed, 3 model requests\.\n"
                r"  step 1 healed: no textbox was seen to change, as one did before\n"
                r"The routine now has the healed steps\.\n"
                r"Noted Ada\.\n",
                healed.out,
            ), healed.out
            # The heal request carried the step's recorded effect and what it did now.
            heal = model_server.message_requests[recorded]["messages"][-1]["content"]
            [result] = [block for block in heal if block["type"] == "tool_result"]
            assert [part["text"] for part in result["content"]] == [
                "Typed.\nEffect: none: nothing on the page changed."
            ]
            prompt = "\n".join(block["text"] for block in heal if block["type"] == "text")
            assert 'Its recorded effect: ~ textbox "Name": "" → "Ada"' in prompt.splitlines()

            shown = await deskhand(root, "show", "Greet", "--json")
            steps = [(s["member"], s["input"]) for s in shown.json["steps"]]
            assert steps == [("notebook", {"text": "{{who}}"}), ("notebook", {"text": "met Ada"})]

            model_server.enqueue(text_reply("Noted Ada again."))
            before = len(model_server.message_requests)
            again = await deskhand(root, "run", "Greet", "--json")
            report = again.json
            assert (report["status"], report["replayed"], report["healed"]) == ("done", 2, 0)
            assert (
                report["model_requests"] == 1 and len(model_server.message_requests) == before + 1
            )
        assert tools.notebook.lines == ["met Ada", "Ada", "met Ada", "Ada", "met Ada"]

    asyncio.run(go())


def test_a_consequential_step_still_asks_in_the_window_and_the_command_says_so(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    tools = desk(workspace, notebook=Risk.CONSEQUENTIAL)
    held: list[ApprovalRequest] = []

    def person(request: ApprovalRequest) -> None:  # the window's sheet, answered by the test
        if not held and request.call.session_id == 1:
            request.answer(Answer(allow=True))  # the recorded chat: the person allowed it
        else:
            held.append(request)

    workspace.approvals.subscribe(person)
    saved(workspace, model_server)
    root = workspace.paths.root
    asks = "Deskhand asks you in its window: Notebook: write 'met Ada'\n"

    async def answered(who: str, allow: bool) -> Ran:
        running = await started(root, "run", "Greet", "--param", f"who={who}", "--json")
        assert running.stderr is not None
        lines = [(await running.stderr.readline()).decode() for _ in range(2)]
        assert lines == [RUNNING, asks]  # said while the sheet is open
        assert len(held) == 1 and held[0].call.summary == "Notebook: write 'met Ada'"
        held.pop().answer(Answer(allow=allow))
        return await finished(running)

    async def go() -> None:
        async with serving(workspace):
            model_server.enqueue(text_reply("Typed Lin and noted it."))
            allowed = await answered("Lin", allow=True)
            assert (allowed.code, allowed.json["status"], allowed.err) == (0, "done", "")
            assert tools.notebook.lines == ["met Ada", "met Ada"]
            refused = await answered("Grace", allow=False)
            assert refused.code == 1
            report = refused.json
            assert (report["status"], report["replayed"], report["model_requests"]) == (
                "failed", 1, 0,
            )  # fmt: skip
            assert report["steps"][-1]["status"] == "failed"
            assert report["error"].startswith("Step 2 (Notebook: write 'met Ada') was not allowed:")
            assert refused.err == f"deskhand routine run: {report['error']}\n"
        assert tools.field.value == "Grace"  # step 1 ran: only the step asked about did not
        assert tools.notebook.lines == ["met Ada", "met Ada"]  # the "no" wrote nothing

    asyncio.run(go())


def test_a_routine_changed_outside_runs_once_kept_on_the_windows_sheet(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    tools = desk(workspace)
    routine = saved(workspace, model_server)
    root = workspace.paths.root
    edited = {**routine, "task": "Type a name into the field"}
    edited.pop("signature")
    (workspace.paths.routines / "Greet.json").write_text(json.dumps(edited))
    shown: list[str] = []
    asks = (
        "Deskhand asks you in its window: Keep the routine “Greet”, changed or added outside "
        "Deskhand?\n"
    )

    async def go() -> None:
        answers: asyncio.Queue[bool] = asyncio.Queue()

        async def keep_sheet(asked: Routine) -> bool:  # the window's keep sheet
            shown.append(asked.task)
            return await answers.get()

        async def kept_if(keep: bool) -> Ran:
            running = await started(root, "run", "Greet", "--param", "who=Lin", "--json")
            assert running.stderr is not None
            assert (await running.stderr.readline()).decode() == asks  # while the sheet is up
            answers.put_nowait(keep)
            return await finished(running)

        workspace.routines.ask_keep = keep_sheet
        async with serving(workspace):
            refused = await kept_if(False)
            assert (refused.code, refused.json["error"]["code"]) == (1, "refused")
            assert tools.field.value == "Ada"  # nothing ran
            model_server.enqueue(text_reply("Typed Lin."))
            ran = await kept_if(True)
            assert (ran.code, ran.json["status"], ran.err) == (0, "done", RUNNING)
        assert shown == ["Type a name into the field"] * 2
        assert tools.field.value == "Lin"
        kept = json.loads((workspace.paths.routines / "Greet.json").read_text())
        assert kept.pop("signature") and kept == edited  # kept as it was shown

    asyncio.run(go())


def test_an_app_that_quits_mid_run_is_said_in_one_line(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    tools = desk(workspace)
    saved(workspace, model_server)
    root = workspace.paths.root
    tools.notebook.delay = 60.0
    tools.notebook.started.clear()  # set when the task was recorded

    async def go() -> None:
        async with serving(workspace) as listening:
            running = await started(root, "run", "Greet", "--param", "who=Lin", "--json")
            await asyncio.wait_for(tools.notebook.started.wait(), 60)
            await listening.close()  # the app quits: its socket goes first
            gone = await finished(running)
            workspace.routines.stop("Greet")
        assert (gone.code, gone.json["error"]["code"]) == (1, "failed")
        assert gone.json["error"]["message"] == (
            "Deskhand stopped before the routine's run ended; its chat “▶ Greet” keeps what ran, "
            "marked stopped."
        )

    asyncio.run(go())

"""`Routines`: everything the window, the command line and `deskhand mcp` do with routines.

Save a finished chat as a routine (the draft the save sheet shows, then the signed file),
list, show, keep (a file changed or added outside Deskhand), import, export and remove them,
and run one: in a new chat "▶ NAME", as that chat's turn, through the same pipeline as any
reply (`replay.py`). A run that healed offers its healed steps as an update (`update_for`,
`apply_update`; `run(..., update=True)` accepts it at once).
"""

from __future__ import annotations

import asyncio
import difflib
import json
from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from desktop.routines.book import Listed, RoutineBook, RoutineError, Stored
from desktop.routines.model import Routine, RunReport, Step, plan_input
from desktop.routines.record import Draft, draft_of, with_parameters
from desktop.routines.schedules.unattended import NOBODY_ANSWERED, Order, Unattended
from tools.data import Data

if TYPE_CHECKING:
    from desktop.chat.agent import Agent
    from desktop.chat.conversations import Conversations
    from desktop.routines.replay import Replay, RunState
    from desktop.system.store import RoutineRun, Store

RUN_TITLE = "▶ {name}"
SCHEDULED_TITLE = "▶ {name} · {slot}"
NOT_KEPT = (
    "The routine “{name}” was changed or added outside Deskhand, and it runs only once you keep "
    "it: open Deskhand, choose it under Routines and press Keep after reading its steps."
)
ALREADY_RUNNING = "The routine “{name}” is already running (in the chat “▶ {name}”)."
NO_CHAT = "There is no chat to save: finish a task first, then save it as a routine."

# Who started a run: the window, `deskhand routine run`, `deskhand mcp`, or a schedule.
Trigger = Literal["person", "command", "mcp", "schedule"]
# Asks the person (a sheet) whether to keep a routine Deskhand did not write; True: keep it.
KeepAsker = Callable[[Routine], Awaitable[bool]]
Listener = Callable[[], None]


class UpdateOffer(Data):
    """A healed run's steps, offered as the routine's update: the diff the person sees."""

    name: str
    chat_id: int
    diff: list[str]  # unified diff lines of the changed steps' words and inputs
    healed: int = 0  # how many of the routine's steps the run healed
    routine: Routine  # the routine as it would be saved


class Routines:
    """The routines of one data folder, and their runs."""

    def __init__(
        self,
        *,
        book: RoutineBook,
        store: Store,
        conversations: Conversations,
        agent: Callable[[], Awaitable[Agent]],
    ) -> None:
        self.book = book
        self.store = store
        self.conversations = conversations
        self._agent = agent
        self.ask_keep: KeepAsker | None = None  # the window's keep sheet, once it is up
        # Scheduled runs' held questions and notifications (the workspace sets it).
        self.unattended: Unattended | None = None
        self._running: dict[str, int] = {}  # routine name → its run's chat
        self._runs: dict[int, asyncio.Future[RunReport]] = {}
        self._updates: dict[int, UpdateOffer] = {}
        self._reports: dict[int, RunReport] = {}  # ended runs this session, by chat
        self._listeners: list[Listener] = []

    @cached_property
    def replay(self) -> Replay:
        """The runner, built on first run: it stands on the call pipeline, which loads after
        the window's first paint."""
        from desktop.routines.replay import Replay

        return Replay(store=self.store, conversations=self.conversations, agent=self._agent)

    # -- listening ------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` whenever the routines or their runs change."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def touched(self) -> None:
        """Something the routines' page shows changed elsewhere (a schedule, a recorded run)."""
        self._changed()

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    # -- the files --------------------------------------------------------------------------

    def entries(self) -> list[Listed]:
        return self.book.entries()

    def load(self, name: str) -> Stored:
        return self.book.load(name)

    def draft(self, session_id: int | None = None) -> Draft:
        """What saving chat `session_id` (None: the latest chat) would make."""
        if session_id is None:
            sessions = self.store.sessions()
            if not sessions:
                raise RoutineError("not_found", NO_CHAT)
            session_id = sessions[0].id
        session = self.store.session(session_id)
        if session is None:
            raise RoutineError("not_found", f"There is no chat {session_id}.")
        if self.conversations.is_running(session_id):
            return draft_of(session_id, session.title, []).model_copy(
                update={"refusal": "This chat is still working: save it once it has finished."}
            )
        return draft_of(session_id, session.title, self.store.messages(session_id))

    def save(
        self,
        draft: Draft,
        name: str,
        parameters: dict[str, str] | None = None,
        *,
        steps: list[Step] | None = None,
        answer: bool | None = None,
    ) -> Routine:
        """Save `draft` as the routine `name`; `parameters` maps each new parameter's name to
        the typed text it stands for; `steps` (a subset of the draft's, in order) when the
        person left some out. Raises RoutineError (`refused`, `bad_input`) saying why not."""
        if draft.refusal:
            raise RoutineError("refused", draft.refusal)
        self.book.path(name)  # the name must make a file name
        chosen = draft.steps if steps is None else steps
        typed = [entry for entry in draft.typed if draft.steps[entry.step] in chosen]
        typed = [
            entry.model_copy(update={"step": chosen.index(draft.steps[entry.step])})
            for entry in typed
        ]
        try:
            filled, params = with_parameters(chosen, typed, parameters or {})
        except ValueError as exc:
            raise RoutineError("bad_input", str(exc)) from None
        if not filled:
            raise RoutineError("bad_input", "A routine needs at least one step.")
        now = _now()
        routine = Routine(
            name=name,
            task=draft.task,
            parameters=params,
            plan=draft.plan,
            answer=draft.answer if answer is None else answer,
            steps=filled,
            created_at=now,
            updated_at=now,
            from_chat=draft.session_id,
        )
        self.book.save(routine)
        self._changed()
        return routine

    def keep(self, routine: Routine) -> Routine:
        """The person kept a routine shown on the keep sheet (changed outside, or imported)."""
        kept = self.book.keep(routine)
        self._changed()
        return kept

    def read_file(self, path: Path) -> Routine:
        return self.book.read_file(path)

    def export(self, name: str, destination: Path) -> Path:
        return self.book.export(name, destination)

    def remove(self, name: str) -> None:
        self.book.remove(name)
        self._changed()

    # -- runs ---------------------------------------------------------------------------------

    def running(self) -> dict[str, int]:
        """The routines running now, with their run's chat."""
        return dict(self._running)

    def values_for(self, routine: Routine, given: dict[str, str]) -> dict[str, str]:
        """Each parameter's value for a run: given, else its default. Raises RoutineError
        (`bad_input`) naming an unknown parameter, or one with no default left unset."""
        known = {parameter.name: parameter.default for parameter in routine.parameters}
        unknown = sorted(set(given) - set(known))
        if unknown:
            names = ", ".join(unknown)
            has = ", ".join(known) or "none"
            raise RoutineError(
                "bad_input",
                f"The routine “{routine.name}” has no parameter {names} (its parameters: {has}).",
            )
        values = {**known, **given}
        missing = [name for name, value in values.items() if not value]
        if missing:
            raise RoutineError(
                "bad_input", f"The routine “{routine.name}” needs a value for {missing[0]}."
            )
        return values

    async def start(
        self,
        name: str,
        given: dict[str, str] | None = None,
        *,
        trigger: Trigger = "person",
        order: Order | None = None,
    ) -> int:
        """Start a run of `name` in a new chat and return the chat's id at once; `finished`
        awaits its report. Raises RoutineError for an unknown, unkept or running routine, or
        a bad parameter. With `order` the run is unattended (a schedule's): its questions
        wait for the person (see schedules/unattended.py)."""
        stored = self.book.load(name)
        unattended = self.unattended if order is not None else None
        routine = stored.routine
        values = self.values_for(routine, given or {})
        if name in self._running:
            raise RoutineError("already_running", ALREADY_RUNNING.format(name=name))
        if not stored.kept:
            if order is not None:  # no keep sheet over the person's work: not run
                raise RoutineError("refused", NOT_KEPT.format(name=name))
            if self.ask_keep is None or not await self.ask_keep(routine):
                raise RoutineError("refused", NOT_KEPT.format(name=name))
            routine = self.keep(routine)
        if name in self._running:  # started while the sheet was up
            raise RoutineError("already_running", ALREADY_RUNNING.format(name=name))
        title = (
            RUN_TITLE.format(name=name)
            if order is None
            else SCHEDULED_TITLE.format(name=name, slot=order.slot)
        )
        session_id = self.store.create_session(title).id
        report = RunReport(ok=False, status="stopped", name=name, chat_id=session_id)
        from desktop.routines.replay import RunState

        state = RunState(report=report, task=_task_text(routine, values))
        future: asyncio.Future[RunReport] = asyncio.get_running_loop().create_future()
        self._running[name] = session_id
        self._runs[session_id] = future
        run_id = self.store.add_routine_run(name, trigger, "running", session_id)
        if unattended is not None and order is not None:
            unattended.began(session_id, name, plan_input(routine), order.approved_by)

        async def work(emit: Callable[..., None]) -> None:
            try:
                self.conversations.show_prompt(session_id, state.task)
                await self.replay.run(routine, values, session_id, emit, state)
            finally:
                report = state.report
                if unattended is not None and unattended.nobody_answered(session_id):
                    report.ok, report.status, report.error = False, "failed", NOBODY_ANSWERED
                self.store.end_routine_run(
                    run_id, report.status, report.seconds, report.model_requests, report.healed
                )
                self._finished(name, session_id, routine, state, values)
                if unattended is not None:
                    unattended.ended(session_id, title, report)

        self.conversations.run_work(session_id, work)
        self._changed()
        return session_id

    def _finished(
        self,
        name: str,
        session_id: int,
        routine: Routine,
        state: RunState,
        values: dict[str, str],
    ) -> None:
        self._running.pop(name, None)
        if state.healed and state.report.status == "done":
            self._updates[session_id] = _offer(routine, state, session_id, values)
        self._reports[session_id] = state.report
        future = self._runs.pop(session_id, None)
        if future is not None and not future.done():
            future.set_result(state.report)
        self._changed()

    async def finished(self, session_id: int) -> RunReport:
        """The report of the run in chat `session_id`, once it ends."""
        future = self._runs.get(session_id)
        if future is None and session_id in self._reports:
            return self._reports[session_id]
        if future is None:
            raise RoutineError("not_found", f"No routine is running in chat {session_id}.")
        return await asyncio.shield(future)

    async def run(
        self,
        name: str,
        given: dict[str, str] | None = None,
        *,
        update: bool = False,
        trigger: Trigger = "person",
    ) -> RunReport:
        """Run `name` to its end; with `update`, a run that healed updates the routine."""
        session_id = await self.start(name, given, trigger=trigger)
        report = await self.finished(session_id)
        if update and report.update_offered:
            self.apply_update(session_id)
        return report

    def runs(self, name: str) -> list[RoutineRun]:
        """The routine's runs, oldest first (its page, `deskhand routine runs`)."""
        return self.store.routine_runs(name)

    def report_of(self, chat_id: int) -> RunReport | None:
        """How the run in chat `chat_id` ended, if one ended there since the app started."""
        return self._reports.get(chat_id)

    def last_run(self, name: str) -> int | None:
        """The chat of the routine's running or latest run, if that chat is still there."""
        for run in reversed(self.runs(name)):
            if run.chat_id is not None and self.store.session(run.chat_id) is not None:
                return run.chat_id
        return None

    def stop(self, name: str) -> bool:
        session_id = self._running.get(name)
        return session_id is not None and self.conversations.stop(session_id)

    # -- updates -------------------------------------------------------------------------------

    def update_for(self, chat_id: int) -> UpdateOffer | None:
        """The update a healed run in chat `chat_id` offers, if it still applies."""
        return self._updates.get(chat_id)

    def apply_update(self, chat_id: int) -> Routine:
        """Write the healed steps into the routine (Update routine)."""
        offer = self._updates.pop(chat_id, None)
        if offer is None:
            raise RoutineError("not_found", "This run has no update to apply.")
        saved = self.book.save(offer.routine.model_copy(update={"updated_at": _now()}))
        self._changed()
        return saved


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _task_text(routine: Routine, values: dict[str, str]) -> str:
    """The task as this run asks it: each parameter's recorded text replaced by its value."""
    text = routine.task
    for parameter in routine.parameters:
        value = values.get(parameter.name, parameter.default)
        if parameter.default and value != parameter.default:
            text = text.replace(parameter.default, value)
    return text


def _offer(routine: Routine, state: RunState, chat_id: int, values: dict[str, str]) -> UpdateOffer:
    """The routine with each healed step replaced by what the model did instead."""
    steps: list[Step] = []
    for index, step in enumerate(routine.steps, start=1):
        replacement = state.healed.get(index)
        if replacement is None:
            steps.append(step)
            continue
        for new in replacement:
            steps.append(_with_placeholders(new, routine, step, values))
    updated = routine.model_copy(update={"steps": steps})
    before = [_step_line(step) for step in routine.steps]
    after = [_step_line(step) for step in steps]
    diff = [
        line.rstrip("\n")
        for line in difflib.unified_diff(before, after, "recorded", "healed", lineterm="", n=1)
    ]
    return UpdateOffer(
        name=routine.name, chat_id=chat_id, diff=diff, routine=updated, healed=len(state.healed)
    )


def _with_placeholders(new: Step, routine: Routine, old: Step, values: dict[str, str]) -> Step:
    """A healed step keeps the parameters the step it replaces used: the text this run gave
    each one (not always its default) becomes its placeholder again."""
    used = old.placeholders()
    text = json.dumps(new.input, ensure_ascii=False)
    for parameter in routine.parameters:
        value = values.get(parameter.name) or parameter.default
        if parameter.name in used and value:
            text = text.replace(
                json.dumps(value, ensure_ascii=False)[1:-1], "{{" + parameter.name + "}}"
            )
    return new.model_copy(update={"input": json.loads(text)})


def _step_line(step: Step) -> str:
    target = step.target
    aim = f" [{target.role} “{target.name}”]" if target is not None and target.known else ""
    return f"{step.words}{aim} {json.dumps(step.input, ensure_ascii=False, sort_keys=True)}"

"""The running app's end of `deskhand ui`: a local socket that takes one screen action per connection.

Only the person's own processes get in: the socket sits in a folder of the data dir that only
their user can open, is itself mode 0600, the peer's user id is checked on every connection, and
each request must carry this run's token (`protocol.py`: the token file is 0600 too). An
action then takes the same path as Claude's: the `screen` tool's source describes it, a Never
rule refuses it, the gate decides, asks in the window when it must (the command is told it is
waiting), and audits it. A command that gives up (its timeout, Ctrl+C) stops the action.

Calls from the command line are the person's own, under the chat id `UI_SESSION`: their
snapshots are kept apart from every chat's, and they need no "first look" question.

`deskhand mcp` asks here too (an `ask` request): the window shows its approval sheet for a call
an MCP client makes, says which client asks, and sends back the person's answer.

A `routine` request runs a routine in the app (`Routines`), in its own chat, through the same
pipeline, plan sheet and gate as every chat's calls; the command waits for the report with no
time limit, and closing its end stops the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import socket
import struct
import sys
from pathlib import Path

from desktop.calls.permissions import NO_APPROVER, Answer, RuleScope
from desktop.command.actions import UI_SESSION, run_action, why_unavailable
from desktop.command.code_signature import trusted_peer
from desktop.command.protocol import (
    MAX_LINE,
    AskRequest,
    Event,
    Reply,
    Request,
    Result,
    RoutineRequest,
    ScheduleRequest,
    ServerInfo,
    folder,
    info_path,
    new_token,
    parse_request,
    read_info,
    socket_path,
    write_private,
)
from desktop.command.running import Running
from desktop.routines.book import RoutineError
from desktop.system.settings.permissions import Rule

log = logging.getLogger(__name__)

__all__ = ["UI_SESSION", "UiServer", "peer_uid"]


REQUEST_LIMIT = 10.0  # seconds a client has to send its request line
ASKING_POLL = 0.2  # seconds between looks at whether a routine's run waits for the person
KEEP = "Keep the routine “{name}”, changed or added outside Deskhand?"
NOT_SIGNED_ALIKE = (
    "Refused: this program is not signed like Deskhand. Use the deskhand command of the same "
    "Deskhand app."
)
NEEDS_WINDOW = "This action needs your approval, and Deskhand's window is not open to ask you."


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end of a Unix socket, or None if unknown."""
    try:
        if hasattr(socket, "SO_PEERCRED"):  # Linux: struct ucred {pid, uid, gid}
            raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            return int(struct.unpack("3i", raw)[1])
        if sys.platform == "darwin":  # LOCAL_PEERCRED: struct xucred {version, uid, …}
            raw = sock.getsockopt(0, 0x001, struct.calcsize("2I") + 2 + 16 * 4)
            return int(struct.unpack_from("2I", raw)[1])
    except OSError:
        return None
    return None


class UiServer:
    def __init__(self, workspace: Running) -> None:
        self.workspace = workspace
        self._server: asyncio.Server | None = None
        self._socket: Path | None = None
        self._token = new_token()
        self._running: set[asyncio.Task[None]] = set()

    @property
    def serving(self) -> bool:
        return self._server is not None

    async def start(self) -> None:
        """Listen, unless another Deskhand on this data dir already does."""
        root = self.workspace.paths.root
        private = folder(root)
        private.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(private, 0o700)
        if await _other_app_answers(root):
            log.warning("another Deskhand serves the command line for %s", root)
            return
        path = socket_path(root)
        path.unlink(missing_ok=True)  # left by a run that crashed
        self._server = await asyncio.start_unix_server(self._accept, path=str(path), limit=MAX_LINE)
        os.chmod(path, 0o600)
        self._socket = path
        info = ServerInfo(socket=str(path), token=self._token, pid=os.getpid())
        write_private(info_path(root), info.to_json())
        # The person asks from their own terminal: no "may Claude look" question for it.
        self.workspace.toolbox.screen.saw(UI_SESSION)

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for task in list(self._running):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 5)
        root = self.workspace.paths.root
        written = await asyncio.to_thread(read_info, root)
        if written is not None and written.pid == os.getpid():
            info_path(root).unlink(missing_ok=True)
        if self._socket is not None:
            self._socket.unlink(missing_ok=True)
            if self._socket.parent != folder(self.workspace.paths.root):
                with contextlib.suppress(OSError):
                    self._socket.parent.rmdir()  # the private folder of a too-long path

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass  # the command went away
        finally:
            if task is not None:
                self._running.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is None or peer_uid(sock) != os.getuid():
            log.warning("refused a command-line connection from another user")
            return
        if not await trusted_peer(sock):
            log.warning("refused a command-line connection from a program not signed like Deskhand")
            refused = Result(ok=False, error=NOT_SIGNED_ALIKE, code="refused")
            await _send(writer, Reply(result=refused))
            return
        line = await asyncio.wait_for(reader.readline(), REQUEST_LIMIT)
        try:
            request = parse_request(line)
        except ValueError:
            not_understood = Result(
                ok=False, error="The request was not understood.", code="bad_input"
            )
            await _send(writer, Reply(result=not_understood))
            return
        if not hmac.compare_digest(request.token.encode(), self._token.encode()):
            wrong = Result(ok=False, error="Wrong token.", code="refused")
            await _send(writer, Reply(result=wrong))
            return
        if isinstance(request, AskRequest):
            answer = await self._ask(request, reader, writer)
            if answer is not None:
                await _send(writer, Reply(answer=answer))
            return
        if isinstance(request, ScheduleRequest):
            await _send(writer, Reply(result=await self._schedule(request, writer)))
            return
        if isinstance(request, RoutineRequest):
            await self._routine(request, reader, writer)
            return
        result = await self._run(request, reader, writer)
        if result is not None:
            await _send(writer, Reply(result=result))

    async def _run(
        self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Result | None:
        """The action through the pipeline; None when the command gave up first."""
        ws = self.workspace

        async def notify(event: str, summary: str) -> None:
            kind = "asking" if event == "asking" else "answered"
            await _send(writer, Reply(event=Event(event=kind, summary=summary)))

        return await run_action(
            request,
            ws.toolbox.registry,
            ws.gate,
            ws.paths.attachments,
            needs_approval=NEEDS_WINDOW,
            notify=notify,
            hung_up=lambda: reader.read(1),  # the command closes to give up
            unavailable=lambda: why_unavailable(
                enabled=ws.settings.screen.enabled,
                screen=ws.toolbox.screen.status,
                elements=ws.toolbox.screen.elements.status,
            ),
        )

    async def _ask(
        self, request: AskRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Answer | None:
        """Another Deskhand process (`deskhand mcp`) asks the person about a call: the window's
        sheet shows it, and only the person's answer goes back. The asker audits the call; this
        side saves an "Always allow" (the settings file has one writer). None when the asker went
        away first (the sheet is closed)."""
        ws = self.workspace
        call = request.call
        refused = ws.gate.refusal(call, audit=False)  # a Never rule: no one is asked
        if refused is not None:
            return Answer(allow=False, by="rule", reason=refused.reason)
        if not ws.approvals.has_viewer:  # no window to show the sheet: the asker falls back
            return Answer(allow=False, by="mode", reason=NO_APPROVER)
        await _send(writer, Reply(event=Event(event="asking", summary=call.summary)))
        asking = asyncio.ensure_future(ws.approvals.ask(call, asker=request.asker()))
        hung_up = asyncio.ensure_future(reader.read(1))
        try:
            await asyncio.wait({asking, hung_up}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not asking.done():
                asking.cancel()  # closes the sheet
                with contextlib.suppress(BaseException):
                    await asking
            hung_up.cancel()
        if asking.cancelled():
            return None
        answer = asking.result()
        if answer.allow and answer.always:
            ws.live.set_rule(RuleScope.of(call).key, Rule.ALLOW)
        return Answer(allow=answer.allow, always=answer.always, reason=answer.reason, by="person")

    async def _schedule(self, request: ScheduleRequest, writer: asyncio.StreamWriter) -> Result:
        """`deskhand routine schedule`: set or take off a schedule, the person approving a
        new one on the window's plan sheet."""
        from desktop.command.routine_schedule import set_in_app

        async def asking(summary: str) -> None:
            await _send(writer, Reply(event=Event(event="asking", summary=summary)))

        ok, data, code, message = await set_in_app(
            self.workspace.scheduler, request.name, request.schedule, request.missed, asking
        )
        return Result(ok=ok, data=data, code=code, error=message)

    async def _routine(
        self, request: RoutineRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Run a routine to its end and answer with its report. The command closing its end
        (Ctrl+C, `deskhand mcp`'s client cancelling) stops the run; the report, status
        `stopped`, still goes back to a command that only stopped writing."""
        routines = self.workspace.routines
        try:
            if not routines.load(request.name).kept and routines.ask_keep is not None:
                keep = Event(event="asking", summary=KEEP.format(name=request.name))
                await _send(writer, Reply(event=keep))  # the window's keep sheet comes first
            chat_id = await routines.start(request.name, request.params, trigger=request.by)
        except RoutineError as error:
            await _send(
                writer, Reply(result=Result(ok=False, error=error.message, code=error.code))
            )
            return
        # Written without awaiting: nothing may run between the start and awaiting its end, or
        # a quick run could end before its report is asked for.
        started = Event(event="started", summary=f"▶ {request.name}", chat_id=chat_id)
        writer.write(Reply(event=started).model_dump_json(exclude_none=True).encode() + b"\n")

        def hung_up(reading: asyncio.Future[bytes]) -> None:
            if reading.cancelled():
                return
            reading.exception()  # a reset connection is a hang-up too
            if routines.running().get(request.name) == chat_id:
                routines.stop(request.name)

        reading = asyncio.ensure_future(reader.read(1))
        reading.add_done_callback(hung_up)
        telling = asyncio.ensure_future(self._tell_asking(chat_id, writer))
        try:
            report = await routines.finished(chat_id)
        finally:
            reading.cancel()
            telling.cancel()
        if request.update and report.update_offered:
            with contextlib.suppress(RoutineError):  # taken since by the window's Update routine
                routines.apply_update(chat_id)
        await _send(writer, Reply(report=report.document()))

    async def _tell_asking(self, chat_id: int, writer: asyncio.StreamWriter) -> None:
        """Tell the command each time the run waits for the person in the window (its plan,
        a consequential step), so a terminal does not seem to hang. The queue is looked at
        a few times a second: a viewer of its own would count as someone who can answer."""
        told: list[object] = []
        while True:
            for request in self.workspace.approvals.pending:
                if request.call.session_id == chat_id and request not in told:
                    told.append(request)
                    asking = Event(event="asking", summary=request.call.summary)
                    await _send(writer, Reply(event=asking))
            await asyncio.sleep(ASKING_POLL)


async def _send(writer: asyncio.StreamWriter, reply: Reply) -> None:
    writer.write(reply.model_dump_json(exclude_none=True).encode() + b"\n")
    await writer.drain()


async def _other_app_answers(root: Path) -> bool:
    """Whether another Deskhand on this data dir is still listening (not this process)."""
    other = await asyncio.to_thread(read_info, root)
    if other is None or other.pid == os.getpid():
        return False
    try:
        _, writer = await asyncio.wait_for(asyncio.open_unix_connection(other.socket), 2)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return True

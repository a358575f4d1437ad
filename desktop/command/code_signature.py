"""Who may talk to Deskhand over its command-line socket, beyond "the same user".

Everywhere, the socket is the person's own (folder 0700, socket 0600, the peer's user id and this
run's token checked). On a Mac, a signed Deskhand also asks that the process at the other end
carry a valid code signature from the same team (its Developer ID team id): another program of
the same user cannot then pose as `deskhand mcp` or `deskhand ui`, nor as the window answering
them. An unsigned build (a development checkout, `python -m desktop`) has no team to compare
with, so it accepts any process of the same user, and `deskhand doctor` says so.

The logic (reading `codesign`'s output, the requirement, the verdict) is plain functions. The
Mac-only part is small and marked: the peer's pid from the socket (`LOCAL_PEERPID`) and two
`codesign` runs, one for this app at start and one per connection.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import socket
import struct
import subprocess
import sys
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = [
    "peer_requirement",
    "peer_signature_line",
    "team_of",
    "trusted_peer",
    "verdict",
]

TEAM_ID = re.compile(r"[A-Z0-9]{10}")  # Apple's team ids: ten upper-case letters and digits
CODESIGN = "/usr/bin/codesign"
CODESIGN_LIMIT = 10.0  # seconds
SOL_LOCAL, LOCAL_PEERPID = 0, 0x002  # <sys/un.h>


def team_of(display: str) -> str | None:
    """The team id in `codesign --display --verbose=2`'s output (it writes to stderr), or None
    when the code is unsigned, ad-hoc signed, or Apple's own ("TeamIdentifier=not set")."""
    for line in display.splitlines():
        key, _, value = line.strip().partition("=")
        if key == "TeamIdentifier" and TEAM_ID.fullmatch(value.strip()):
            return value.strip()
    return None


def peer_requirement(team: str) -> str:
    """The code requirement a peer must satisfy: signed through Apple's Developer ID chain (or
    an Apple-issued certificate) by this team. Only a well-formed team id is ever put in it."""
    if not TEAM_ID.fullmatch(team):
        raise ValueError("not a team id")
    return f'anchor apple generic and certificate leaf[subject.OU] = "{team}"'


def verdict(own_team: str | None, peer_verified: bool | None) -> bool:
    """Whether to talk to a same-user peer: an unsigned Deskhand accepts it; a signed one only
    when the peer's signature was checked and holds (`None`: it could not be checked)."""
    if own_team is None:
        return True
    return peer_verified is True


def peer_signature_line(own_team: str | None, system: str = sys.platform) -> str:
    """`deskhand doctor`'s line about who may use the command-line socket."""
    if not system.startswith("darwin"):
        return "Only your own user's processes (the socket's owner and user id are checked)."
    if own_team is None:
        return (
            "Unsigned build: any process of your user with this run's token is accepted "
            "(a signed Deskhand also checks the peer's code signature)."
        )
    return f"Signed by team {own_team}: only processes signed by the same team are accepted."


# --- macOS only --------------------------------------------------------------------------------


def _bundle() -> Path | None:
    """This app's code on disk when it runs from a built bundle (the frozen executable)."""
    if not getattr(sys, "frozen", False):
        return None  # a development run: the interpreter's signature is not Deskhand's
    return Path(sys.executable)


class SignatureUnreadable(Exception):
    """This app's own code signature could not be read (codesign failed or timed out)."""


@functools.cache
def own_team() -> str | None:
    """This Deskhand's team id: only a built, signed app has one. Blocks (runs codesign)."""
    bundle = _bundle()
    if sys.platform != "darwin" or bundle is None:
        return None
    try:
        done = subprocess.run(
            [CODESIGN, "--display", "--verbose=2", str(bundle)],
            capture_output=True,
            text=True,
            timeout=CODESIGN_LIMIT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        # Not "unsigned": a signed app that cannot read its signature trusts no one (and an
        # exception is not cached, so the next connection tries again).
        raise SignatureUnreadable from exc
    return team_of(done.stderr)


def _peer_pid(sock: socket.socket) -> int | None:  # macOS only
    try:
        raw = sock.getsockopt(SOL_LOCAL, LOCAL_PEERPID, struct.calcsize("i"))
    except OSError:
        return None
    return int(struct.unpack("i", raw)[0])


async def _verified(pid: int, team: str) -> bool | None:  # macOS only
    """Whether the running process `pid` has a valid signature from `team` (None: unknown)."""
    try:
        process = await asyncio.create_subprocess_exec(
            CODESIGN,
            "--verify",
            "-R=" + peer_requirement(team),
            str(pid),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return None
    try:
        code = await asyncio.wait_for(process.wait(), CODESIGN_LIMIT)
    except TimeoutError:
        process.kill()
        return None
    return code == 0


async def trusted_peer(sock: socket.socket) -> bool:
    """Whether the (same-user) process at the other end of `sock` may talk to this one."""
    if sys.platform != "darwin":
        return True
    try:
        team = await asyncio.to_thread(own_team)
    except SignatureUnreadable:
        log.warning("refused a peer: this app's own code signature could not be read")
        return False
    if team is None:
        return verdict(None, None)
    pid = _peer_pid(sock)
    return verdict(team, await _verified(pid, team) if pid is not None else None)

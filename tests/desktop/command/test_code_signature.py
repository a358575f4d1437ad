"""Who may talk over the command-line socket on a Mac: codesign's output read, the requirement a
peer must meet, and the verdict (pure, run everywhere); the real codesign only on a Mac."""

from __future__ import annotations

import asyncio
import socket
import sys

import pytest

from desktop.command.code_signature import (
    peer_requirement,
    peer_signature_line,
    team_of,
    trusted_peer,
    verdict,
)

SIGNED = """Executable=/Applications/Deskhand.app/Contents/MacOS/Deskhand
Identifier=app.deskhand
Format=app bundle with Mach-O thin (arm64)
CodeDirectory v=20500 size=1234 flags=0x10000(runtime) hashes=28+7 location=embedded
Signature size=8980
Authority=Developer ID Application: Example Ltd (AB12CD34EF)
Authority=Developer ID Certification Authority
Authority=Apple Root CA
Timestamp=1 Jan 2026 at 10:00:00
Info.plist entries=22
TeamIdentifier=AB12CD34EF
Runtime Version=14.0.0
Sealed Resources version=2 rules=13 files=420
Internal requirements count=1 size=200
"""
APPLE = "Executable=/usr/bin/login\nIdentifier=com.apple.login\nTeamIdentifier=not set\n"
AD_HOC = "Executable=/tmp/x\nIdentifier=x\nSignature=adhoc\nTeamIdentifier=not set\n"


def test_the_team_id_is_read_from_codesigns_output() -> None:
    assert team_of(SIGNED) == "AB12CD34EF"
    assert team_of(APPLE) is None and team_of(AD_HOC) is None
    assert team_of("code object is not signed at all\n") is None
    assert team_of("TeamIdentifier=ab12cd34ef\n") is None  # not a team id's shape
    assert team_of('TeamIdentifier=AB12CD34EF" or true\n') is None


def test_only_a_well_formed_team_goes_into_the_requirement() -> None:
    assert peer_requirement("AB12CD34EF") == (
        'anchor apple generic and certificate leaf[subject.OU] = "AB12CD34EF"'
    )
    for bad in ('AB12CD34EF" or true', "", "ab12cd34ef", "AB12CD34EF0"):
        with pytest.raises(ValueError):
            peer_requirement(bad)


def test_a_signed_deskhand_talks_only_to_a_verified_peer() -> None:
    assert verdict("AB12CD34EF", True) is True
    assert verdict("AB12CD34EF", False) is False  # another team, or unsigned
    assert verdict("AB12CD34EF", None) is False  # could not be checked: no
    assert verdict(None, None) is True  # unsigned build: same user is enough
    assert verdict(None, False) is True


def test_doctor_says_who_may_connect() -> None:
    assert peer_signature_line(None, "linux").startswith("Only your own user's processes")
    assert peer_signature_line(None, "darwin").startswith("Unsigned build: any process of your")
    assert peer_signature_line("AB12CD34EF", "darwin") == (
        "Signed by team AB12CD34EF: only processes signed by the same team are accepted."
    )


@pytest.mark.skipif(sys.platform == "darwin", reason="the Mac checks the signature")
def test_elsewhere_a_same_user_peer_is_trusted() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert asyncio.run(trusted_peer(left)) is True


@pytest.mark.macos
@pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS and codesign")
def test_on_a_mac_codesign_reads_a_system_program() -> None:
    import subprocess

    done = subprocess.run(
        ["/usr/bin/codesign", "--display", "--verbose=2", "/usr/bin/login"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Identifier=com.apple.login" in done.stderr
    assert team_of(done.stderr) is None  # Apple's own code carries no team id


@pytest.mark.macos
@pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS and codesign")
def test_on_a_mac_an_unsigned_run_accepts_its_own_user() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert asyncio.run(trusted_peer(left)) is True  # `python -m desktop` is not signed

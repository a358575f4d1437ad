"""Scheduled routines' fixtures: a real session bus with a notification service on it."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests.support.notification_server import NotificationService


@pytest.fixture
def notifications(monkeypatch: pytest.MonkeyPatch) -> Iterator[NotificationService]:
    """A private session bus (dbus-daemon) with the notification service stand-in on it."""
    if not shutil.which("dbus-daemon"):
        pytest.skip("needs dbus-daemon (Debian: dbus-daemon)")
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    service = NotificationService(address)
    try:
        yield service
    finally:
        service.close()
        daemon.terminate()
        daemon.wait(5)

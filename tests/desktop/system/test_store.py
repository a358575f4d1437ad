"""The SQLite store: nothing committed is lost, broken files are moved aside, search works."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.system.store import SCHEMA_VERSION, Store
from tests.support.model_server import Hang, ScriptedModelServer, text_reply

ROOT = Path(__file__).resolve().parents[3]


def test_a_killed_process_loses_only_the_reply_being_streamed(
    data_dir: Path, api_env: ScriptedModelServer
) -> None:
    api_env.enqueue(text_reply("First answer."), Hang(text="Second answer, half"))
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.support.streaming_child", str(data_dir)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("streaming"), f"child said {line!r}"
        session_id = int(line.split()[1])
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    store = Store.open(data_dir / "deskhand.db")
    assert store.notice is None
    messages = store.messages(session_id)
    assert [(m.role, m.text) for m in messages] == [
        ("user", "First question"),
        ("assistant", "First answer."),
        ("user", "Second question"),
    ]
    store.close()


def test_a_corrupt_database_is_moved_aside_with_a_message(tmp_path: Path) -> None:
    db = tmp_path / "deskhand.db"
    db.write_bytes(b"this is not a database" * 100)
    store = Store.open(db)
    assert store.notice and "moved to" in store.notice
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("deskhand.db.corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not a database")
    assert store.sessions() == []
    store.create_session("works again")
    store.close()


def test_a_newer_schema_is_moved_aside_not_emptied(tmp_path: Path) -> None:
    db = tmp_path / "deskhand.db"
    old = Store.open(db)
    old.create_session("from the future")
    old.close()
    with sqlite3.connect(db) as raw:
        raw.execute(f"PRAGMA user_version={SCHEMA_VERSION + 5}")
    store = Store.open(db)
    assert store.notice and "newer version" in store.notice
    assert store.sessions() == []
    aside = next(
        p
        for p in tmp_path.iterdir()
        if p.name.startswith("deskhand.db.newer-") and not p.name.endswith(("-wal", "-shm"))
    )
    with sqlite3.connect(aside) as raw:
        assert raw.execute("SELECT title FROM sessions").fetchone()[0] == "from the future"
    store.close()


def test_wal_mode_and_search_by_title_and_text(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "d.db")
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    trip = store.create_session()
    store.add_message(trip.id, "user", [{"type": "text", "text": "Plan a trip to Lisbon"}])
    store.add_message(
        trip.id, "assistant", [{"type": "text", "text": "Day one: the Alfama district."}]
    )
    other = store.create_session("Groceries")
    assert store.session(trip.id).title == "Plan a trip to Lisbon"  # titled from the first message
    assert [s.id for s in store.sessions("alfama")] == [trip.id]  # body text, any case
    assert [s.id for s in store.sessions("grocer")] == [other.id]  # title
    assert store.sessions("100%") == []  # LIKE wildcards are literal
    store.rename_session(trip.id, "Lisbon")
    assert store.session(trip.id).title == "Lisbon"
    store.delete_session(trip.id)
    assert store.messages(trip.id) == [] and [s.id for s in store.sessions()] == [other.id]
    store.close()


@pytest.mark.parametrize("bad", ["", "   "])
def test_blank_rename_keeps_a_title(tmp_path: Path, bad: str) -> None:
    store = Store.open(tmp_path / "d.db")
    s = store.create_session("Keep")
    store.rename_session(s.id, bad)
    assert store.session(s.id).title == "New chat"
    store.close()


def test_an_audit_log_from_before_reasons_opens_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    with sqlite3.connect(path) as raw:  # the audit table as it was before denials kept a reason
        raw.execute(
            "CREATE TABLE audit (id INTEGER PRIMARY KEY, at REAL NOT NULL, session_id INTEGER,"
            " tool TEXT NOT NULL, action TEXT NOT NULL, summary TEXT NOT NULL,"
            " input_digest TEXT NOT NULL, decision TEXT NOT NULL, decided_by TEXT NOT NULL,"
            " outcome TEXT, duration_ms INTEGER)"
        )
        raw.execute(
            "INSERT INTO audit (at, tool, action, summary, input_digest, decision, decided_by)"
            " VALUES (1.0, 'mail', 'send', 'Send a mail', 'abc', 'denied', 'person')"
        )
        raw.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    store = Store.open(path)
    try:
        assert store.notice is None
        [old] = store.audit()
        assert (old.summary, old.reason) == ("Send a mail", "")
        store.add_audit(old.model_copy(update={"id": None, "reason": "not to my boss"}))
        assert [entry.reason for entry in store.audit("boss")] == ["not to my boss"]
    finally:
        store.close()

"""The audit keeps what each call really did (`effect`, `changes`): an audit log from before
those columns opens, keeps its rows as they were, and gains them; Settings → Audit's filter
finds a call by what it did, and the CSV carries both."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

from desktop.calls.audit_export import COLUMNS, effect_text, write_csv
from desktop.calls.gate import audit_lines
from desktop.system.store import SCHEMA_VERSION, Store
from tools.outcome import Outcome

BEFORE_EFFECTS = (  # the audit table as it was before it kept what calls really did
    "CREATE TABLE audit (id INTEGER PRIMARY KEY, at REAL NOT NULL, session_id INTEGER,"
    " tool TEXT NOT NULL, action TEXT NOT NULL, summary TEXT NOT NULL,"
    " input_digest TEXT NOT NULL, decision TEXT NOT NULL, decided_by TEXT NOT NULL,"
    " outcome TEXT, duration_ms INTEGER, reason TEXT NOT NULL DEFAULT '')"
)


def test_an_audit_log_from_before_effects_gains_them_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    with sqlite3.connect(path) as raw:
        raw.execute(BEFORE_EFFECTS)
        raw.execute(
            "INSERT INTO audit (at, tool, action, summary, input_digest, decision, decided_by,"
            " outcome, duration_ms) VALUES (1.0, 'browser', 'type', 'Type AB', 'abc', 'allowed',"
            " 'mode', 'ok', 12)"
        )
        raw.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    store = Store.open(path)
    try:
        assert store.notice is None
        [old] = store.audit()
        assert (old.summary, old.outcome, old.effect, old.changes) == ("Type AB", "ok", "", "")
        assert effect_text(old) == ""  # nothing said of what an old call did
        typed = Outcome(
            kind="differs",
            changes=['~ textbox "Name": "" → "AB"'],
            note='The field holds "AB", not the text typed.',
        )
        new_id = store.add_audit(old.model_copy(update={"id": None, "at": 2.0}))
        store.finish_audit(new_id, "ok", 30, typed.kind, audit_lines(typed))
        newest, _ = store.audit()
        assert (newest.effect, newest.changes) == (
            "differs",
            '~ textbox "Name": "" → "AB"\nThe field holds "AB", not the text typed.',
        )
        assert effect_text(newest) == 'Not as asked: textbox "Name" now holds "AB" (+1)'
        assert [entry.id for entry in store.audit("differs")] == [new_id]
        assert [entry.id for entry in store.audit("not the text typed")] == [new_id]

        exported = tmp_path / "audit.csv"
        assert write_csv(store.audit(), exported) == 2
        with exported.open(encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert list(rows[0]) == COLUMNS
        assert [(row["effect"], row["changes"]) for row in rows] == [
            ("differs", newest.changes),
            ("", ""),
        ]
    finally:
        store.close()
    with sqlite3.connect(path) as raw:  # the file itself gained the columns
        columns = [row[1] for row in raw.execute("PRAGMA table_info(audit)")]
    assert columns[-2:] == ["effect", "changes"]


def test_the_audit_keeps_the_effect_within_the_sections_bounds() -> None:
    many = Outcome(kind="done", changes=[f'+ row "Item {n}"' for n in range(40)])
    kept = audit_lines(many).split("\n")
    assert len(kept) == 19 and kept[-1] == "… and 22 more"
    assert audit_lines(Outcome(kind="no_effect")) == ""
    assert audit_lines(None) == ""

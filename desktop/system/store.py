"""SQLite store (WAL): sessions, messages (API content blocks as JSON), how turns ended
(failed, stopped), attachments, audit log.

Every `add_message` commits at once, so a crash loses at most the reply being streamed.
A database that cannot be read, or that a newer Deskhand wrote, is moved aside with a
notice for the person, never silently emptied.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from desktop.system.message_text import CONTINUE_KEY, attached_names, typed_text
from desktop.system.usage import Usage
from tools.data import Data

SCHEMA_VERSION = 2
DEFAULT_TITLE = "New chat"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content TEXT NOT NULL,
    search_text TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'complete',
    model TEXT,
    usage TEXT,
    created_at REAL NOT NULL,
    superseded_by INTEGER,
    stop_reason TEXT
);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages(session_id, id);
CREATE TABLE IF NOT EXISTS attachments (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    message_id INTEGER REFERENCES messages(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    mime TEXT NOT NULL,
    width INTEGER,
    height INTEGER,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    session_id INTEGER,
    tool TEXT NOT NULL,
    action TEXT NOT NULL,
    summary TEXT NOT NULL,
    input_digest TEXT NOT NULL,
    decision TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    outcome TEXT,
    duration_ms INTEGER,
    reason TEXT NOT NULL DEFAULT '',
    effect TEXT NOT NULL DEFAULT '',
    changes TEXT NOT NULL DEFAULT ''
);
-- How a turn ended when the thread said so beyond its messages (an error card, "Stopped"):
-- the event as JSON, after the message that was newest then. A table of its own, so an
-- older Deskhand still opens the file, and a kind it does not know is skipped.
CREATE TABLE IF NOT EXISTS turn_ends (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    after_message INTEGER REFERENCES messages(id) ON DELETE CASCADE,
    event TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS turn_ends_by_session ON turn_ends(session_id, id);
-- Each run of a routine: who started it, how it went, and its chat.
CREATE TABLE IF NOT EXISTS routine_runs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    trigger TEXT NOT NULL,
    status TEXT NOT NULL,
    started_at REAL NOT NULL,
    seconds REAL NOT NULL DEFAULT 0,
    model_requests INTEGER NOT NULL DEFAULT 0,
    chat_id INTEGER,
    healed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS routine_runs_by_name ON routine_runs(name, id);
"""
# Columns added since a table was first created: (table, column, definition).

MessageStatus = Literal["complete", "stopped", "failed"]


class Session(Data):
    id: int
    title: str
    created_at: float
    updated_at: float


class StoredMessage(Data):
    id: int
    session_id: int
    role: Literal["user", "assistant"]
    content: list[dict[str, Any]]
    status: MessageStatus
    model: str | None = None
    usage: Usage | None = None
    created_at: float
    superseded_by: int | None = None  # set when Edit or Regenerate replaced it
    stop_reason: str | None = None

    @property
    def text(self) -> str:
        """What the person typed (or the model wrote): no attached file's text."""
        return typed_text(self.content)


class RoutineRun(Data):
    """One run of a routine, as its page and `deskhand routine runs` list it."""

    id: int
    name: str
    trigger: str  # "person", "command", "mcp", "schedule"
    status: str  # "running", "done", "failed", "stopped", "waiting", "missed", "skipped"
    started_at: float
    seconds: float = 0.0
    model_requests: int = 0
    chat_id: int | None = None
    healed: int = 0


class StoredTurnEnd(Data):
    """How a turn ended (its error card, or that the person stopped it, as the chat's event
    in JSON), after message `after_message` of its chat."""

    after_message: int | None
    event_json: str


def _plain_text(content: list[dict[str, Any]]) -> str:
    parts: list[str] = []
    for block in content:
        if block.get(CONTINUE_KEY):
            continue  # words Deskhand sent for the person, not theirs to search
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            if isinstance(inner, list):
                parts.append(_plain_text(inner))
            elif isinstance(inner, str):
                parts.append(inner)
    return "\n".join(parts)


def _stored(row: sqlite3.Row) -> StoredMessage:
    return StoredMessage(
        id=row["id"],
        session_id=row["session_id"],
        role=row["role"],
        content=json.loads(row["content"]),
        status=row["status"],
        model=row["model"],
        usage=Usage.model_validate_json(row["usage"]) if row["usage"] else None,
        created_at=row["created_at"],
        superseded_by=row["superseded_by"],
        stop_reason=row["stop_reason"],
    )


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class Store:
    """One SQLite file. Open with `Store.open(path)`; read `notice` for anything the person should know."""

    def __init__(self, connection: sqlite3.Connection, path: Path, notice: str | None) -> None:
        self._db = connection
        self.path = path
        self.notice = notice

    @classmethod
    def open(cls, path: Path) -> Store:
        path.parent.mkdir(parents=True, exist_ok=True)
        notice = None
        try:
            db = cls._connect(path)
        except _Unusable as problem:
            aside = path.with_name(f"{path.name}.{problem.reason}-{time.strftime('%Y%m%d-%H%M%S')}")
            for suffix in ("", "-wal", "-shm"):
                part = Path(f"{path}{suffix}")
                if part.exists():
                    part.replace(Path(f"{aside}{suffix}"))
            notice = (
                f"{problem.message} It was moved to {aside} and a new, empty history was started."
            )
            db = cls._connect(path)
        return cls(db, path, notice)

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise _Unusable(
                    "newer",
                    "Your conversation history was written by a newer version of Deskhand.",
                )
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise _Unusable("corrupt", "Your conversation history was damaged.")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(_SCHEMA)
            _migrate(db)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            db.close()
            raise _Unusable("corrupt", "Your conversation history could not be read.") from exc
        except _Unusable:
            db.close()
            raise
        db.row_factory = sqlite3.Row
        return db

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # sessions

    def create_session(self, title: str = DEFAULT_TITLE) -> Session:
        now = time.time()
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO sessions (title, created_at, updated_at) VALUES (?, ?, ?)",
                (title, now, now),
            )
        return Session(id=cursor.lastrowid or 0, title=title, created_at=now, updated_at=now)

    def session(self, session_id: int) -> Session | None:
        row = self._db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return Session(**dict(row)) if row else None

    def sessions(self, query: str = "") -> list[Session]:
        """Newest first; `query` matches titles and message text, case-insensitively."""
        if not query.strip():
            rows = self._db.execute("SELECT * FROM sessions ORDER BY updated_at DESC, id DESC")
        else:
            pattern = f"%{_escape_like(query.strip())}%"
            rows = self._db.execute(
                "SELECT * FROM sessions s WHERE s.title LIKE ?1 ESCAPE '\\' OR EXISTS ("
                " SELECT 1 FROM messages m WHERE m.session_id = s.id"
                " AND m.search_text LIKE ?1 ESCAPE '\\')"
                " ORDER BY updated_at DESC, id DESC",
                (pattern,),
            )
        return [Session(**dict(row)) for row in rows]

    def rename_session(self, session_id: int, title: str) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE sessions SET title = ? WHERE id = ?",
                (title.strip() or DEFAULT_TITLE, session_id),
            )

    def delete_session(self, session_id: int) -> list[Path]:
        """Deletes the session with its messages; returns its attachment files for the caller to remove."""
        with self._transaction() as db:
            files = [
                Path(r[0])
                for r in db.execute(
                    "SELECT path FROM attachments WHERE session_id = ?", (session_id,)
                )
            ]
            db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        return files

    # messages

    def add_message(
        self,
        session_id: int,
        role: Literal["user", "assistant"],
        content: list[dict[str, Any]],
        *,
        status: MessageStatus = "complete",
        model: str | None = None,
        usage: Usage | None = None,
        stop_reason: str | None = None,
    ) -> int:
        """Append a message and commit it before returning."""
        with self._transaction() as db:
            return self._insert(db, session_id, role, content, status, model, usage, stop_reason)

    def replace_from(self, session_id: int, message_id: int, content: list[dict[str, Any]]) -> int:
        """A new version of the person's message `message_id`: it and every later message are
        kept, marked as replaced by the new one, and no longer part of the conversation."""
        with self._transaction() as db:
            new_id = self._insert(db, session_id, "user", content, "complete", None, None, None)
            db.execute(
                "UPDATE messages SET superseded_by = ? WHERE session_id = ? AND id >= ?"
                " AND id < ? AND superseded_by IS NULL",
                (new_id, session_id, message_id, new_id),
            )
        return new_id

    def relink(self, session_id: int, superseded_by: Mapping[int, int | None]) -> None:
        """Set which version replaced each of these messages (None: it is current), all at
        once: another version became the current one (see desktop/chat/versions.py)."""
        with self._transaction() as db:
            db.executemany(
                "UPDATE messages SET superseded_by = ? WHERE id = ? AND session_id = ?",
                [(points_at, mid, session_id) for mid, points_at in superseded_by.items()],
            )

    def _insert(
        self,
        db: sqlite3.Connection,
        session_id: int,
        role: Literal["user", "assistant"],
        content: list[dict[str, Any]],
        status: MessageStatus,
        model: str | None,
        usage: Usage | None,
        stop_reason: str | None,
    ) -> int:
        now = time.time()
        cursor = db.execute(
            "INSERT INTO messages (session_id, role, content, search_text, status, model, usage,"
            " created_at, stop_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id,
                role,
                json.dumps(content, ensure_ascii=False),
                _plain_text(content),
                status,
                model,
                usage.model_dump_json() if usage else None,
                now,
                stop_reason,
            ),
        )
        db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
        if role == "user":
            self._title_from_first_message(db, session_id, content)
        return cursor.lastrowid or 0

    @staticmethod
    def _title_from_first_message(
        db: sqlite3.Connection, session_id: int, content: list[dict[str, Any]]
    ) -> None:
        attached = attached_names(content)
        text = typed_text(content) or (attached[0] if attached else "")
        title = " ".join(text.split())
        if not title:
            return
        if len(title) > 48:
            title = title[:47].rstrip() + "…"
        db.execute(
            "UPDATE sessions SET title = ? WHERE id = ? AND title = ?",
            (title, session_id, DEFAULT_TITLE),
        )

    def messages(self, session_id: int, *, replaced: bool = False) -> list[StoredMessage]:
        """The conversation, oldest first; with `replaced`, also the versions Edit or
        Regenerate replaced (kept for the person, never sent to the model)."""
        rows = self._db.execute(
            "SELECT * FROM messages WHERE session_id = ?"
            + ("" if replaced else " AND superseded_by IS NULL")
            + " ORDER BY id",
            (session_id,),
        ).fetchall()
        return [_stored(row) for row in rows]

    def message(self, message_id: int) -> StoredMessage | None:
        row = self._db.execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone()
        return _stored(row) if row else None

    def add_turn_end(self, session_id: int, event_json: str) -> int:
        """Keep how a turn ended (the chat's event, as JSON), after the chat's newest message,
        so a reopened chat shows it where it was shown live."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO turn_ends (session_id, after_message, event, created_at) VALUES"
                " (?, (SELECT MAX(id) FROM messages WHERE session_id = ?), ?, ?)",
                (session_id, session_id, event_json, time.time()),
            )
            return cursor.lastrowid or 0

    def add_routine_run(
        self, name: str, trigger: str, status: str, chat_id: int | None = None
    ) -> int:
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO routine_runs (name, trigger, status, started_at, chat_id)"
                " VALUES (?, ?, ?, ?, ?)",
                (name, trigger, status, time.time(), chat_id),
            )
            return cursor.lastrowid or 0

    def end_routine_run(
        self, run_id: int, status: str, seconds: float, model_requests: int, healed: int
    ) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE routine_runs SET status = ?, seconds = ?, model_requests = ?, healed = ?"
                " WHERE id = ?",
                (status, seconds, model_requests, healed, run_id),
            )

    def routine_runs(self, name: str) -> list[RoutineRun]:
        """The routine's runs, oldest first."""
        rows = self._db.execute(
            "SELECT * FROM routine_runs WHERE name = ? ORDER BY id", (name,)
        ).fetchall()
        return [RoutineRun(**dict(row)) for row in rows]

    def turn_ends(self, session_id: int) -> list[StoredTurnEnd]:
        """How the chat's turns ended, where the thread said so, oldest first."""
        rows = self._db.execute(
            "SELECT after_message, event FROM turn_ends WHERE session_id = ? ORDER BY id",
            (session_id,),
        ).fetchall()
        return [
            StoredTurnEnd(after_message=row["after_message"], event_json=row["event"])
            for row in rows
        ]

    def last_usage(self, session_id: int) -> tuple[str | None, Usage | None]:
        row = self._db.execute(
            "SELECT model, usage FROM messages WHERE session_id = ? AND usage IS NOT NULL"
            " AND superseded_by IS NULL"
            " ORDER BY id DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        if not row:
            return None, None
        return row["model"], Usage.model_validate_json(row["usage"])

    # attachments

    def add_attachment(
        self,
        session_id: int,
        path: Path,
        mime: str,
        width: int | None,
        height: int | None,
        message_id: int | None = None,
    ) -> int:
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO attachments (session_id, message_id, path, mime, width, height, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, message_id, str(path), mime, width, height, time.time()),
            )
        return cursor.lastrowid or 0

    # audit log

    def add_audit(self, entry: AuditEntry) -> int:
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO audit (at, session_id, tool, action, summary, input_digest, decision,"
                " decided_by, outcome, duration_ms, reason, effect, changes)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    entry.at,
                    entry.session_id,
                    entry.tool,
                    entry.action,
                    entry.summary,
                    entry.input_digest,
                    entry.decision,
                    entry.decided_by,
                    entry.outcome,
                    entry.duration_ms,
                    entry.reason,
                    entry.effect,
                    entry.changes,
                ),
            )
        return cursor.lastrowid or 0

    def finish_audit(
        self, audit_id: int, outcome: str, duration_ms: int, effect: str = "", changes: str = ""
    ) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE audit SET outcome = ?, duration_ms = ?, effect = ?, changes = ?"
                " WHERE id = ?",
                (outcome, duration_ms, effect, changes, audit_id),
            )

    def audit(self, text: str = "", limit: int = 5000) -> list[AuditEntry]:
        """Newest first; `text` filters on tool, action, summary, decision, outcome, reason and
        what the call really did (effect, changes)."""
        pattern = f"%{_escape_like(text.strip())}%"
        rows = self._db.execute(
            "SELECT * FROM audit WHERE (?1 = '%%' OR tool LIKE ?1 ESCAPE '\\' OR action LIKE ?1 ESCAPE '\\'"
            " OR summary LIKE ?1 ESCAPE '\\' OR decision LIKE ?1 ESCAPE '\\' OR outcome LIKE ?1 ESCAPE '\\'"
            " OR reason LIKE ?1 ESCAPE '\\' OR effect LIKE ?1 ESCAPE '\\'"
            " OR changes LIKE ?1 ESCAPE '\\')"
            " ORDER BY id DESC LIMIT ?2",
            (pattern, limit),
        )
        return [AuditEntry(**dict(row)) for row in rows]


class AuditEntry(Data):
    """One decision about a tool call and, once it ran, its outcome."""

    id: int | None = None
    at: float
    session_id: int | None
    tool: str
    action: str
    summary: str
    input_digest: str
    decision: str  # allowed / denied
    decided_by: str  # rule / mode / person / stop
    outcome: str | None = None  # ok / error / not run
    duration_ms: int | None = None
    reason: str = ""  # why it was denied: the person's words, or the rule's or mode's
    # What the call really did, as its source saw it (tools/outcome.py): the kind (done,
    # no_effect, differs, refused, failed, unconfirmed; "" for a read, or a row from before),
    # and its `Effect:` lines and note, one a line.
    effect: str = ""
    changes: str = ""


# Columns added after the first release, added to older files as they are opened.
# Columns added since a table was first made: (table, column, definition).
_ADDED_COLUMNS = (
    (
        "messages",
        "superseded_by",
        "INTEGER",
    ),  # the message that replaced this one (Edit, Regenerate)
    ("messages", "stop_reason", "TEXT"),  # why the model stopped (an assistant message)
    ("audit", "reason", "TEXT NOT NULL DEFAULT ''"),  # the person's reason for a denial
    ("audit", "effect", "TEXT NOT NULL DEFAULT ''"),  # what the call really did: its kind
    ("audit", "changes", "TEXT NOT NULL DEFAULT ''"),  # and its Effect lines
)


def _migrate(db: sqlite3.Connection) -> None:
    """A history from before a column existed gets it (empty)."""
    for table, column, definition in _ADDED_COLUMNS:
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if column not in present:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")


class _Unusable(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def format_time(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=UTC).astimezone().strftime("%Y-%m-%d %H:%M")

"""`deskhand connector`: remote connectors (MCP servers) that sign in, from a terminal.

- `connector add NAME --url URL [--scope S]… [--client-id ID]`: sign in through the default
  browser (`$BROWSER` is honoured, as Python's `webbrowser` does), then add it, approved, as
  Settings → Connectors → Add does. What the sign-in will ask (the server, the authorization
  server's host, the scopes) is printed before the browser opens. A client secret, when the
  server needs one, comes from `$DESKHAND_CLIENT_SECRET` (never the command line, which other
  users can read). `--timeout` bounds the wait for the browser (300 s by default).
- `connector sign-in NAME`: the same for a connector already there ("Sign in again").
- `connector list`: every connector with its sign-in state (`deskhand.connector.list/1`).
- `connector tools NAME`: its tools, listed now (`deskhand.connector.tools/1`).
- `connector sign-out NAME`: tokens revoked where the server offers it, and forgotten.
- `connector remove NAME`: signed out, and taken out of mcp.json.

No answer holds a token: a row says whether it is signed in and until when, nothing more.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from desktop.command import answers
from desktop.command.options import shared_options

if TYPE_CHECKING:
    from pathlib import Path

    from desktop.calls.sources.mcp.remote import ConnectorRow, SignInSummary
    from desktop.calls.sources.mcp.source import McpSource

SECRET_ENV = "DESKHAND_CLIENT_SECRET"
# A sign-in's codes (tools/mcp/oauth/errors.py) as the command line's (answers.py).
CODES = {
    "bad_url": "bad_input",
    "abandoned": "timeout",
    "declined": "refused",
    "not_confirmed": "refused",
    "no_browser": "unavailable",
    "sign_in_needed": "needs_sign_in",
}


def add_verbs(connector: argparse.ArgumentParser) -> None:
    shared = [shared_options()]
    verbs = connector.add_subparsers(dest="connector_command", required=True)
    add = verbs.add_parser("add", help="sign in to a remote MCP server and add it", parents=shared)
    add.add_argument("name")
    add.add_argument("--url", required=True, help="the server's Streamable HTTP URL")
    add.add_argument(
        "--scope", action="append", default=[], metavar="S", help="a scope to ask for (repeat)"
    )
    add.add_argument(
        "--client-id",
        default=None,
        help=f"for a server without dynamic registration (secret: ${SECRET_ENV})",
    )
    sign_in = verbs.add_parser("sign-in", help="sign a connector in (again)", parents=shared)
    sign_in.add_argument("name")
    sign_in.add_argument("--client-id", default=None)
    verbs.add_parser("list", help="the connectors and their sign-in state", parents=shared)
    for verb, summary in (
        ("tools", "a connector's tools, listed now"),
        ("sign-out", "revoke and forget a connector's tokens"),
        ("remove", "sign out and remove a connector"),
    ):
        verbs.add_parser(verb, help=summary, parents=shared).add_argument("name")


def _source(args: argparse.Namespace) -> McpSource:
    from desktop.calls.own_places.places import protect
    from desktop.calls.sources.mcp.source import McpSource
    from desktop.system.paths import DataPaths

    paths = DataPaths.for_data_dir(args.data_dir)
    paths.ensure()
    protect(paths)
    _log_to_file(paths.logs / "deskhand-connector.log")
    return McpSource(
        paths.mcp_config, logs_dir=paths.logs, cache_path=paths.cache / "mcp-tools.json"
    )


def _log_to_file(path: Path) -> None:
    """Logs go to a file: the terminal gets the answer and the sign-in's words, not the SDK's
    tracebacks (which never hold a token either)."""
    import logging
    import logging.handlers

    handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=2)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)


def _when(expires_at: float | None) -> str | None:
    if expires_at is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expires_at))


def row_json(row: ConnectorRow) -> dict[str, Any]:
    return {
        "name": row.name,
        "transport": row.transport,
        "url": row.url,
        "status": row.status,
        "signed_in": row.signed_in,
        "expires_at": _when(row.expires_at),
        "tools": row.tools,
    }


def row_text(row: ConnectorRow) -> str:
    tools = "tools not listed yet" if row.tools is None else f"{row.tools} tools"
    return f"{row.name}  {row.url or 'local command'}  {row.words}  ({tools})"


def run(args: argparse.Namespace) -> int:
    import asyncio

    from desktop.calls.sources.mcp.remote import ConnectorProblem
    from tools.mcp.oauth.errors import SignInProblem

    verb = args.connector_command
    command = f"connector {verb}"
    try:
        source = _source(args)
        return asyncio.run(_run(args, source))
    except SignInProblem as exc:
        return _fail(args, command, CODES.get(exc.code, exc.code), exc.message)
    except ConnectorProblem as exc:
        return _fail(args, command, exc.code, exc.message)
    except OSError as exc:
        return _fail(args, command, "failed", f"Deskhand cannot use its data dir: {exc.strerror}")


def _fail(args: argparse.Namespace, command: str, code: str, message: str) -> int:
    if args.json:
        answers.emit(answers.error(command, code, message))
    print(message, file=sys.stderr)
    return answers.exit_code(code)


async def _summary(summary: SignInSummary) -> bool:
    """The command line's sheet: what the sign-in asks, printed before the browser opens (the
    person asked for it by typing the command)."""
    scopes = ", ".join(summary.scopes) or "(the server's default)"
    print(
        f"Signing in to {summary.server}\n  authorization server: {summary.auth_host}\n"
        f"  scopes: {scopes}\nOpening your browser to finish there…",
        file=sys.stderr,
        flush=True,
    )
    return True


async def _run(args: argparse.Namespace, source: McpSource) -> int:
    import asyncio

    from desktop.calls.sources.mcp import remote

    verb = args.connector_command
    if verb in ("add", "sign-in"):
        secret = os.environ.get(SECRET_ENV) or None
        if verb == "add":
            row = await remote.add(
                source,
                args.name,
                args.url,
                confirm=_summary,
                scopes=args.scope,
                within=args.timeout,
                client_id=args.client_id,
                client_secret=secret if args.client_id else None,
            )
        else:
            row = await remote.sign_in(
                source,
                args.name,
                confirm=_summary,
                within=args.timeout,
                client_id=args.client_id,
                client_secret=secret if args.client_id else None,
            )
        name = "connector.add" if verb == "add" else "connector.sign-in"
        if args.json:
            answers.emit(answers.answer(name, {"connector": row_json(row)}))
        else:
            done = "Added" if verb == "add" else "Signed in"
            print(f"{done}: {row_text(row)}")
        return 0
    if verb == "list":
        rows = await asyncio.to_thread(remote.rows, source)
        if args.json:
            answers.emit(
                answers.answer("connector.list", {"connectors": [row_json(r) for r in rows]})
            )
        else:
            print("\n".join(row_text(r) for r in rows) or "No connectors.")
        return 0
    if verb == "tools":
        found = await remote.tools(source, args.name)
        if args.json:
            listed = [
                {
                    "name": t.name,
                    "title": t.title,
                    "description": t.description,
                    "read_only": bool(t.annotations and t.annotations.read_only_hint),
                    "input_schema": t.input_schema,
                }
                for t in found
            ]
            answers.emit(answers.answer("connector.tools", {"name": args.name, "tools": listed}))
        else:
            width = max((len(t.name) for t in found), default=0)
            lines = [
                f"{t.name.ljust(width)}  {(t.description or '').splitlines()[0] if t.description else ''}"
                for t in found
            ]
            print("\n".join(lines) or f"{args.name} offers no tools.")
        return 0
    revoked = await (remote.sign_out if verb == "sign-out" else remote.remove)(source, args.name)
    if args.json:
        answers.emit(answers.answer(f"connector.{verb}", {"name": args.name, "revoked": revoked}))
    else:
        did = "Signed out of" if verb == "sign-out" else "Removed"
        told = " (the server revoked its tokens)" if revoked else ""
        print(f"{did} {args.name}{told}.")
    return 0

"""A child process for crash tests: answers one turn, then streams a second until it is killed.

Run as `python -m tests.support.streaming_child DATA_DIR`; key and base URL come from the
environment. It prints `streaming <session id>` once the second reply has begun to arrive.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from desktop.chat.events import AgentEvent, TextDelta
from desktop.workspace import Workspace
from tests.support.turns import send


async def main(data_dir: Path) -> None:
    workspace = Workspace.open(data_dir)
    session = workspace.store.create_session()
    await send(workspace.conversations, session.id, "First question")
    announced = False

    def emit(event: AgentEvent) -> None:
        nonlocal announced
        if isinstance(event, TextDelta) and not announced:
            announced = True
            print(f"streaming {session.id}", flush=True)

    await send(workspace.conversations, session.id, "Second question", emit)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))

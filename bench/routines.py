"""Figures: the documentation task recorded, then replayed as a routine, healed, and updated.

The task is the 11-step search of a documentation site (`tests/support/plan_sites.py`: the plan,
then 10 browser steps on local pages named docs.example), run through the real agent, the real
browser (Chromium) and the scripted model, which takes `--think` seconds (1.5 by default, about
a real model's turn) before each reply. Every question is answered yes at once. It prints:

- the recorded run: its wall time and model requests;
- the replay: its wall time, model requests (0 for the steps, plus 1 for the answer) and the
  ratio of the two wall times (the target: at most 0.20);
- the replay after the first result's link was renamed: requests (target: at most 3), healed steps;
- the run after Update routine: requests (target: back to 1, the answer).

    .venv/bin/python bench/routines.py [--think 1.5] [--runs 3]

Each figure is the median of `--runs` replays. It always exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from desktop.workspace import Workspace  # noqa: E402
from tests.support.model_server import ScriptedModelServer, text_reply  # noqa: E402
from tests.support.plan_sites import SETTINGS, documentation_task, plan_sites  # noqa: E402
from tests.support.routine_task import (  # noqa: E402
    ANSWER,
    HEAL,
    RENAMED,
    approve_all,
    record,
    replay,
    thinking,
)

NAME = "Docs search"


async def figures(
    workspace: Workspace, model_server: ScriptedModelServer, think: float, runs: int
) -> None:
    approve_all(workspace)
    with plan_sites() as sites:
        replies = thinking(documentation_task(sites, with_plan=True), think)
        requests = len(model_server.message_requests)
        _chat, recorded = await record(workspace, sites, model_server, replies)
        recorded_requests = len(model_server.message_requests) - requests
        routine = workspace.routines.save(workspace.routines.draft(), NAME)
        print(f"recorded run      {recorded:7.2f} s   {recorded_requests:2d} model requests")
        print(
            f"routine           {len(routine.steps)} steps (plan: {', '.join(routine.plan.domains)})"
        )

        seconds: list[float] = []
        asked: list[int] = []
        for _ in range(runs):
            model_server.enqueue(*thinking([text_reply(ANSWER)], think))
            report = await replay(workspace, sites, NAME)
            if report.status != "done":
                print(f"replay failed: {report.error}")
                return
            seconds.append(report.seconds)
            asked.append(report.model_requests)
        replayed = statistics.median(seconds)
        print(
            f"replay            {replayed:7.2f} s   {statistics.median(asked):2.0f} model requests"
            f"   ({min(seconds):.2f}-{max(seconds):.2f} s over {runs} runs)"
        )
        print(f"replay / recorded {replayed / recorded:7.2f}   (target: at most 0.20)")

        sites.docs.edits.update(RENAMED)
        model_server.enqueue(*thinking([*HEAL, text_reply(ANSWER)], think))
        healed = await replay(workspace, sites, NAME)
        print(
            f"after a rename    {healed.seconds:7.2f} s   {healed.model_requests:2d} model requests"
            f"   healed {healed.healed} step(s), status {healed.status} (target: at most 3)"
        )
        if healed.chat_id is not None and workspace.routines.update_for(healed.chat_id):
            workspace.routines.apply_update(healed.chat_id)
        model_server.enqueue(*thinking([text_reply(ANSWER)], think))
        updated = await replay(workspace, sites, NAME)
        print(
            f"after the update  {updated.seconds:7.2f} s   {updated.model_requests:2d} model requests"
            f"   healed {updated.healed} (target: 1 request, the answer)"
        )
    await workspace.agent.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--think", type=float, default=1.5, help="the model's seconds per turn")
    parser.add_argument("--runs", type=int, default=3, help="replays to take the median of")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, ScriptedModelServer() as model_server:
        data = Path(folder) / "data"
        data.mkdir()
        (data / "settings.json").write_text(json.dumps(SETTINGS))
        os.environ["ANTHROPIC_API_KEY"] = "sk-bench"
        os.environ["ANTHROPIC_BASE_URL"] = model_server.base_url
        workspace = Workspace.open(data)
        try:
            asyncio.run(figures(workspace, model_server, args.think, args.runs))
        finally:
            workspace.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

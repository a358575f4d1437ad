"""Figures: how many approval sheets the documentation task opens, per mode, with and without a plan.

The task is the 11-step search of a documentation site (the plan first, then 10 browser steps:
open, look, click the search box, type, Return, read, follow a result, read, scroll, look),
run through the real agent, the real browser (Chromium on local pages named docs.example)
and the scripted model, with every question answered yes. It prints one line per mode:

    .venv/bin/python bench/plan_sheets.py

It always exits 0.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from desktop.system.settings.permissions import MODE_TITLES, Mode  # noqa: E402
from desktop.workspace import Workspace  # noqa: E402
from tests.support.model_server import ScriptedModelServer  # noqa: E402
from tests.support.plan_sites import SETTINGS, documentation_task, plan_sites, run_task  # noqa: E402


def sheets(mode: Mode, *, with_plan: bool) -> int:
    with tempfile.TemporaryDirectory() as folder, ScriptedModelServer() as model_server:
        data = Path(folder) / "data"
        data.mkdir()
        settings = {**SETTINGS, "permissions": {"mode": mode.value}}
        (data / "settings.json").write_text(json.dumps(settings))
        os.environ["ANTHROPIC_API_KEY"] = "sk-bench"
        os.environ["ANTHROPIC_BASE_URL"] = model_server.base_url
        workspace = Workspace.open(data)
        try:
            with plan_sites() as sites:
                replies = documentation_task(sites, with_plan=with_plan)
                approver = asyncio.run(run_task(workspace, sites, model_server, replies))
        finally:
            workspace.store.close()
        return len(approver.asked)


def main() -> int:
    print("Sheets for the documentation task (11 steps with the plan, 10 without)")
    print(f"{'mode':<18}{'without a plan':>16}{'with a plan':>14}")
    for mode in Mode:
        without, planned = sheets(mode, with_plan=False), sheets(mode, with_plan=True)
        print(f"{MODE_TITLES[mode]:<18}{without:>16}{planned:>14}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

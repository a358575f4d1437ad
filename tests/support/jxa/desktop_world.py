"""World builders for the `apps` and `tabs` tools in the JXA stand-in (a simulation).

Screens are given in Cocoa coordinates (origin at the bottom left of the main screen, y up),
as NSScreen reports them; browsers as lists of windows of (title, url) tabs; apps as System
Events processes with a front window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from tests.support.jxa.world import World

T = TypeVar("T")
Tab = tuple[str, str]

# Main 1440x900 (menu bar 25, Dock 70); left 1920x1080 with its top level with main's top;
# right 2560x1440 standing 200 points higher than main's top.
MAIN = {
    "name": "Built-in Retina Display",
    "frame": [0, 0, 1440, 900],
    "visible": [0, 70, 1440, 805],
}
LEFT = {
    "name": "DELL U2415",
    "frame": [-1920, -180, 1920, 1080],
    "visible": [-1920, -180, 1920, 1055],
}
RIGHT = {
    "name": "LG UltraFine",
    "frame": [1440, -340, 2560, 1440],
    "visible": [1440, -340, 2560, 1415],
}


def process(
    name: str,
    bundle: str,
    *,
    frame: Sequence[int] | None = (100, 100, 900, 700),
    frontmost: bool = False,
    visible: bool = True,
) -> dict[str, Any]:
    """A System Events application process; `frame` is its front window [l, t, r, b]."""
    windows = []
    if frame is not None:
        left, top, right, bottom = frame
        windows.append(
            {
                "name": f"{name} window",
                "position": [left, top],
                "size": [right - left, bottom - top],
            }
        )
    return {
        "name": name,
        "bundleIdentifier": bundle,
        "frontmost": frontmost,
        "visible": visible,
        "backgroundOnly": False,
        "windows": windows,
    }


def safari(
    windows: Sequence[Sequence[Tab]],
    *,
    current: Sequence[int] | None = None,
    pages: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Safari with `windows` of (title, url) tabs; `current[i]` is window i's 0-based current tab;
    `pages` maps a URL to its page record (see pages.js)."""
    shaped = []
    for w, tabs in enumerate(windows):
        now = current[w] if current else 0
        shaped.append(
            {
                "name": tabs[now][0] if tabs else "",
                "tabs": [
                    {
                        "name": title,
                        "url": url,
                        "visible": t == now,
                        **({"page": pages[url]} if pages and url in pages else {}),
                    }
                    for t, (title, url) in enumerate(tabs)
                ],
                "currentTab": {"$ref": ["windows", w, "tabs", now]},
            }
        )
    return {"running": True, "windows": shaped}


def chrome(
    windows: Sequence[Sequence[Tab]],
    *,
    active: Sequence[int] | None = None,
    pages: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Google Chrome; `active[i]` is window i's 1-based active tab index."""
    shaped = []
    next_id = 1
    for w, tabs in enumerate(windows):
        shaped_tabs = []
        for title, url in tabs:
            tab: dict[str, Any] = {"id": next_id, "title": title, "url": url}
            if pages and url in pages:
                tab["page"] = pages[url]
            shaped_tabs.append(tab)
            next_id += 1
        shaped.append(
            {"id": 1000 + w, "tabs": shaped_tabs, "activeTabIndex": active[w] if active else 1}
        )
    return {"running": True, "windows": shaped}


def desktop(
    *,
    screens: Sequence[dict[str, Any]] = (MAIN,),
    processes: Sequence[dict[str, Any]] = (),
    apps: dict[str, dict[str, Any]] | None = None,
    installed: Sequence[str] = (),
    bundles: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A world: screens, foreground processes, app object models, and /Applications."""
    world_apps: dict[str, Any] = {"System Events": {"applicationProcesses": list(processes)}}
    world_apps.update(apps or {})
    return {
        "screens": list(screens),
        "apps": world_apps,
        "installed": list(installed),
        "bundles": dict(bundles or {}),
        "folders": {"/Applications": [f"{name}.app" for name in installed] + [".DS_Store"],
                    "/System/Applications": ["Safari.app", "Notes.app"]},
    }  # fmt: skip


@dataclass
class Runner:
    """One event loop for a test module, running the tools' coroutines."""

    loop: asyncio.AbstractEventLoop
    world: World

    def run(self, coro: Awaitable[T]) -> T:
        return self.loop.run_until_complete(coro)

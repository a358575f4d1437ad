"""A Finder (and a little Mail) world for the app tools in the JXA stand-in (a simulation):
a report on the Desktop, the reference steps that reach it, and what is on the Desktop after.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tests.support.jxa.world import World

MODIFIED = datetime(2024, 5, 3, 9, 30).astimezone()
DESKTOP_REPORT = [
    {"elements": "folders", "name": "Desktop"},
    {"elements": "files", "name": "report.pdf"},
]


def finder_world() -> dict[str, Any]:
    report = {"name": "report.pdf", "id": "file-1", "modificationDate": MODIFIED, "comment": ""}
    notes = {"name": "notes.txt", "id": "file-2", "modificationDate": MODIFIED, "comment": ""}
    return {
        "bundles": {"com.apple.finder": "Finder", "com.apple.mail": "Mail"},
        "commands": {
            "Finder": {"move": None, "open": None, "reveal": None, "make": None},
            "Mail": {"checkForNewMail": None},
        },
        "apps": {
            "Finder": {
                "running": True,
                "name": "Finder",
                "folders": [
                    {"name": "Desktop", "id": "folder-1", "files": [report, notes]},
                    {"name": "Archive", "id": "folder-2", "files": []},
                ],
                "desktop": {"name": "Desktop", "files": [{"name": "a.txt", "id": "file-3"}]},
                "trash": {"name": "Trash", "files": []},
                "windows": [{"name": "Desktop", "id": 7}, {"name": "Downloads", "id": 8}],
            },
            "Mail": {
                "running": True,
                "outgoingMessages": [{"subject": "Hello", "id": 41}],
                "sent": [],
            },
        },
    }


def files_on_desktop(world: World) -> list[str]:
    return [f["name"] for f in world.app("Finder")["folders"][0]["files"]]

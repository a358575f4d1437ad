"""Every scriptable Mac app, from its own scripting dictionary (`.sdef`).

Discovery finds the apps, the parser reads their dictionaries safely, the cache keeps them,
and three tools (`apps_list`, `app_dictionary`, `app_command`) let the model look up and run
any command, always through the constant script `tools/mac/osa/scripts/sdef/call.js`, which
reads back what a changing command left behind (`readback.py` says it in `Effect:` lines).

Each name loads its module when first used: reading one dictionary (`deskhand apps
dictionary FILE`) needs the parser, not the tools or the catalog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.lazy import lazy_names

if TYPE_CHECKING:
    from tools.mac.sdef.app_tools import AppCommandTool, AppDictionaryTool, AppsListTool
    from tools.mac.sdef.catalog import AppCatalog
    from tools.mac.sdef.parse import parse_sdef, parse_sdef_file

_HOMES = {
    "AppCatalog": "catalog",
    "AppCommandTool": "app_tools",
    "AppDictionaryTool": "app_tools",
    "AppsListTool": "app_tools",
    "parse_sdef": "parse",
    "parse_sdef_file": "parse",
}

__all__ = [
    "AppCatalog",
    "AppCommandTool",
    "AppDictionaryTool",
    "AppsListTool",
    "parse_sdef",
    "parse_sdef_file",
]


__getattr__ = lazy_names(__name__, _HOMES)

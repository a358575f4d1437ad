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

import lazy_loader

if TYPE_CHECKING:
    from tools.mac.sdef.app_tools import AppCommandTool, AppDictionaryTool, AppsListTool
    from tools.mac.sdef.catalog import AppCatalog
    from tools.mac.sdef.parse import parse_sdef, parse_sdef_file


__all__ = [
    "AppCatalog",
    "AppCommandTool",
    "AppDictionaryTool",
    "AppsListTool",
    "parse_sdef",
    "parse_sdef_file",
]

# The names of `__all__`, each imported from its module when first used.
__getattr__, __dir__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "catalog": ["AppCatalog"],
        "app_tools": ["AppCommandTool", "AppDictionaryTool", "AppsListTool"],
        "parse": ["parse_sdef", "parse_sdef_file"],
    },
)[:2]

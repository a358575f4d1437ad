"""Every scriptable Mac app, from its own scripting dictionary (`.sdef`).

Discovery finds the apps, the parser reads their dictionaries safely, the cache keeps them,
and three tools (`apps_list`, `app_dictionary`, `app_command`) let the model look up and run
any command, always through the constant script `tools/mac/osa/scripts/sdef/call.js`.
"""

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

"""The `tabs` tool: Claude works with the tabs of the person's own Safari or Chrome.

`tool` holds the table of actions and `TabsTool`; `inputs` each action's fields; `answers` how
each answer reads to the model and the fixed phrases of what went wrong; `addresses` web
addresses made whole. The scripts are `tools/mac/osa/scripts/tabs/`, with their shared prelude.
"""

from tools.mac.tabs.addresses import domain_of, normalize_url
from tools.mac.tabs.inputs import BROWSER_APPS, TabRef, TabsInput
from tools.mac.tabs.tool import ACTIONS, TabsTool, list_tabs, running_browsers

__all__ = [
    "ACTIONS",
    "BROWSER_APPS",
    "TabRef",
    "TabsInput",
    "TabsTool",
    "domain_of",
    "list_tabs",
    "normalize_url",
    "running_browsers",
]

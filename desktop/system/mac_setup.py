"""The Mac tools as Settings sees them: whether they can run here, and where macOS keeps the
Automation permission.

The ui layer never imports `tools` (an import contract in pyproject.toml holds it to that);
what it needs of the Mac tools comes through here.
"""

from tools.mac.macos import AUTOMATION_SETTINGS_URL, macos_status

__all__ = ["AUTOMATION_SETTINGS_URL", "macos_status"]

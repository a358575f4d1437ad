"""Deskhand's application: the chat, the call pipeline, MCP, the command line and the system
around them. No Qt here, but in the composition root (`__main__.py`, `app.py`)."""

from __future__ import annotations

import os
import sys
import types
from importlib.machinery import ModuleSpec
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader  # not at run time: it loads importlib.resources

# No third-party pydantic plugin runs inside Deskhand: one installed beside it would see every
# setting and tool value it validates. (Looking for plugins also scans every installed
# package's metadata when the first model is built, before the window can show.)
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


class _NoPluginLoader:
    """With every plugin disabled, pydantic's plugin loader answers "none" without looking; it
    still loads `importlib.metadata` to be able to look (~7 ms before the window can show).
    While all plugins are disabled, pydantic gets this loader instead, which gives that same
    answer when pydantic first asks (a person who sets the variable otherwise gets pydantic's
    own). tests/desktop/test_no_plugins.py holds pydantic to asking it for nothing else."""

    NAME = "pydantic.plugin._loader"

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if name != self.NAME or os.environ.get("PYDANTIC_DISABLE_PLUGINS") != "__all__":
            return None
        return ModuleSpec(name, cast("Loader", self))  # a loader by its two methods

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the usual module object

    def exec_module(self, module: types.ModuleType) -> None:
        module.get_plugins = lambda: ()  # type: ignore[attr-defined]


sys.meta_path.insert(0, _NoPluginLoader())


def _metadata_version() -> str | None:
    """The `Version:` of deskhand's installed metadata, read from its `.dist-info` folder where
    `importlib.metadata` would find it first (along `sys.path`). `importlib.metadata` itself
    loads the email and zip packages to do that, which is most of `deskhand --version`'s time;
    None when there is no such folder (an egg or a zip: `importlib.metadata` then looks)."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("deskhand-") and name.endswith(".dist-info"):
                try:
                    with open(os.path.join(entry, name, "METADATA"), encoding="utf-8") as file:
                        for line in file:
                            if line.startswith("Version:"):
                                return line.removeprefix("Version:").strip()
                            if not line.strip():
                                break  # the headers end at the first blank line
                except OSError:
                    pass
                return None
    return None


def __getattr__(name: str) -> Any:
    """`__version__`, read from the installed package's metadata when first asked for."""
    if name != "__version__":
        raise AttributeError(f"module 'desktop' has no attribute {name!r}")
    found = _metadata_version()
    if found is None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("deskhand")
        except PackageNotFoundError:  # running from a source tree that was never installed
            found = "0.0.0+source"
    globals()["__version__"] = found  # the next lookup is an ordinary one
    return found

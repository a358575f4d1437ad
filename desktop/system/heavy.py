"""The one place the slow modules are imported: the call pipeline, the model's SDK, Playwright, the
browser and screen tools, the keychain, and (when a connector is configured) the MCP client.

Together they take more than a second to import, so the window shows without them; the app asks
for them right after its first paint and they load here, on a thread of their own, while the
person reads the window.

Python imports each module under a lock of its own. Two threads importing the same package at
once (this loader, and the window's thread answering a message sent meanwhile) can each hold a
lock the other needs, and one of them fails with `_DeadlockError`. So these modules are first
imported here and nowhere else: whoever needs them awaits `ready()` (or, with no event loop at
hand, calls `wait()`) before its own `import` line, which then costs nothing. One thread does
all the loading, one module after another, so two loads never run side by side either.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import queue
import sys
import threading
from concurrent.futures import Future

log = logging.getLogger(__name__)

# The call pipeline: the toolbox and its sources, the gate, the call runner and the agent (and
# the words of its cards). The workspace builds them on first use (desktop/workspace.py); they
# load first after the paint.
PIPELINE = (
    "desktop.calls.toolbox",
    "desktop.chat.tool_calls",
    "desktop.calls.gate",
    "desktop.chat.agent",
    "desktop.calls.card_text",
    "desktop.calls.sources.plan.proposal",
)
# Routines and their schedules (desktop/routines/): the workspace builds them on first use, and
# the window adds its routines (the sidebar's section, the pages, the tray) once they are in.
ROUTINES = ("desktop.routines.service", "desktop.routines.schedules.scheduler")
# What the window needs once it shows a reply or an image: the Markdown parser and Pillow. They
# load after what a turn needs to send its request (the reply comes after it); the window also
# imports them itself, on first use, from inside a function (holding no import lock, so meeting
# this load there can only wait for it).
WINDOW = ("markdown_it", "markdown_it.renderer", "PIL.Image")
# What a turn needs: the SDK and its toolsets, the browser tool (Playwright) and the screen tool.
TOOLS = (
    "anthropic",
    "anthropic.lib.tools",
    "anthropic.tools.browser",
    "anthropic.tools.computer",
    "httpx2",
    "tools.browser.pool",
    "desktop.calls.sources.screen.source",
)
# What a connector needs: the MCP SDK's client and its transports.
MCP = ("mcp_types", "tools.mcp.connection", "tools.mcp.oauth.flow")
# The keychain: keyring and the backends it looks through to find this machine's. Except on a
# Mac, the macOS one is left to that search, on the thread that reads the key (`KeyStore.aget`):
# elsewhere importing it runs a compiler to look for a library, and there those 50 ms pass beside
# the SDK's load instead of before it. (It needs nothing that loads here.)
KEYCHAIN = (
    "keyring",
    "keyring.backends.chainer",
    "keyring.backends.kwallet",
    "keyring.backends.libsecret",
    *(("keyring.backends.macOS",) if sys.platform == "darwin" else ()),
    "keyring.backends.SecretService",
    "keyring.backends.Windows",
)
# The `deskhand ui` socket: not slow to import, but not needed for the window to show either.
COMMANDS = ("desktop.command.listener",)
# Scheduled routines' next times (desktop/routines/schedules/times.py): the scheduler starts
# once everything before it is in.
SCHEDULES = ("dateutil.rrule", "croniter")

_lock = threading.Lock()  # guards the two below
_imports: dict[str, Future[None]] = {}  # one per module ever asked for
_loader: threading.Thread | None = None
_queue: queue.SimpleQueue[str] = queue.SimpleQueue()


def start(modules: tuple[str, ...] = TOOLS) -> list[Future[None]]:
    """Queue `modules` for loading in the background (each once); their futures, in order."""
    global _loader
    with _lock:
        for name in modules:
            if name not in _imports:
                done: Future[None] = Future()
                # Running from the start: a waiter that is cancelled (Stop, quitting) must not
                # cancel the load for everyone else.
                done.set_running_or_notify_cancel()
                _imports[name] = done
                _queue.put(name)
        if _loader is None:
            _loader = threading.Thread(target=_load, name="deskhand-import", daemon=True)
            _loader.start()
        return [_imports[name] for name in modules]


async def ready(modules: tuple[str, ...] = TOOLS) -> None:
    """Wait, without holding up the event loop, until `modules` are imported."""
    pending = [done for done in start(modules) if not done.done()]
    if pending:
        await asyncio.gather(*(asyncio.wrap_future(done) for done in pending))


def loaded(modules: tuple[str, ...] = TOOLS) -> bool:
    """Whether `modules` are in already (a widget that needs them can open at once)."""
    with _lock:
        return all(name in _imports and _imports[name].done() for name in modules)


def wait(modules: tuple[str, ...] = TOOLS) -> None:
    """`ready` for code with no loop to await on: blocks this thread until they are in.

    Never call it while a module is being imported (from a module's top level): the loader may
    need that module, and would wait for this thread while this thread waits for it.
    """
    if threading.current_thread() is _loader:
        return  # asked from inside a load: the import statement that follows does the work
    for done in start(modules):
        done.result()


def _load() -> None:
    """The loader thread: imports what was asked for, one module after another, for good."""
    while True:
        name = _queue.get()
        # While it loads, the collector stays off: a full collection, triggered by the many
        # objects an import makes, would hold the interpreter (and so the window) 100+ ms.
        collecting = gc.isenabled()
        gc.disable()
        try:
            while True:
                _import(name)
                try:
                    name = _queue.get_nowait()
                except queue.Empty:
                    break
        finally:
            # What was loaded lives as long as the app: no later collection walks it again.
            gc.freeze()
            if collecting:
                gc.enable()


def _import(name: str) -> None:
    with _lock:
        done = _imports[name]
    try:
        importlib.import_module(name)
    except ImportError:  # the tool that needs it says so when it is used
        log.warning("could not load %s", name, exc_info=True)
    except BaseException as exc:  # a broken install: whoever waits sees it
        done.set_exception(exc)
        return
    done.set_result(None)

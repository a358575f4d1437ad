"""Benchmark: how much the model reads about a page, and how fast, next to Playwright MCP.

On three pages shipped in `bench/pages/` (a long article, a complex checkout form, a
2,000-row orders table), it measures, in one run and on the same Chromium:

- ours: `read_page` with `filter: "interactive"` and `get_page_text`, through the toolset's
  `tool_result` exactly as the app calls it, with a confirm that describes each call on the
  live page as the app's gate does (characters = everything the model reads, the
  browser_state block included);
- Playwright MCP: `browser_snapshot` over MCP stdio (npm `@playwright/mcp`, installed
  into `bench/.mcp/` on first run).

Timed calls alternate between the two drivers, each starting `SETTLE` seconds after the last
answer so that neither browser's leftover work lands in the other's time. What startup loaded
is frozen out of the garbage collector's sight first, as the app does once its window is up.

Targets: our interactive observation at most half of MCP's characters for the same
interactive elements, and no slower (the median of the paired ratios at most 1.00, or its 95%
interval reaching below 1.00: no difference the runs can tell from noise); the driver's
overhead for a click by ref plus its state report under 100 ms (median, local page).

    .venv/bin/python bench/browser_observe.py [--runs 31] [--clicks 30] [--no-mcp]

It always exits 0 and prints the figures; a missing piece (no npm, no network for the
install) skips that column with a note rather than failing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import itertools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from anthropic.tools.browser import BetaConfirmContext  # noqa: E402
from anthropic.types.beta import BetaToolUseBlock  # noqa: E402

from desktop.app import freeze_startup_objects  # noqa: E402
from tools.browser import BrowserPool, PlaywrightBrowser, UrlPolicy, find_browser  # noqa: E402
from tools.browser.config import BrowserConfig  # noqa: E402
from tools.browser.launch import launch_args  # noqa: E402
from tools.browser.page.observe import is_interactive, render_page  # noqa: E402
from tools.browser.page.snapshot import parse_snapshot  # noqa: E402

PAGES = Path(__file__).resolve().parent / "pages"
MCP_DIR = Path(__file__).resolve().parent / ".mcp"
MCP_PACKAGE = "@playwright/mcp@0.0.83"
MCP_CLI = MCP_DIR / "node_modules" / "@playwright" / "mcp" / "cli.js"
SETTLE = 0.25  # seconds between timed calls

BENCH_PAGES = [
    ("article", "article.html"),
    ("form", "form.html"),
    ("table (2,000 rows)", "table.html"),
]


# --- the pages ----------------------------------------------------------------------------------


@contextlib.contextmanager
def serve_pages() -> Iterator[str]:
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(PAGES)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# --- ours -----------------------------------------------------------------------------------------


class Ours:
    """The Deskhand driver, called through `tool_result` as the app does."""

    def __init__(self, browser: PlaywrightBrowser) -> None:
        self.browser = browser
        self._ids = itertools.count(1)

    async def call(self, member: str, **input: Any) -> tuple[dict[str, Any], float]:
        use = BetaToolUseBlock(
            type="tool_use",
            id=f"toolu_{next(self._ids)}",
            name=member,
            input=input,
            toolset_name="browser",
        )
        started = time.perf_counter()
        block = dict(await self.browser.tool_result(use))
        elapsed = time.perf_counter() - started
        if block.get("is_error"):
            raise RuntimeError(f"{member} failed: {block['content']}")
        return block, elapsed

    @staticmethod
    def size(block: dict[str, Any]) -> int:
        """Characters the model reads: text blocks plus the browser_state block as JSON."""
        total = 0
        for part in block["content"]:
            if part["type"] == "text":
                total += len(part["text"])
            elif part["type"] == "browser_state":
                total += len(json.dumps(part, ensure_ascii=False))
        return total

    @staticmethod
    def text(block: dict[str, Any]) -> str:
        return "\n".join(p["text"] for p in block["content"] if p["type"] == "text")

    async def uncapped_interactive(self) -> tuple[int, int]:
        """(characters, elements) of the interactive view without the 50,000-character cap."""
        session = self.browser._session
        tab = await session.tab(None)
        root, secret = await self.browser._snapshot(tab)
        text = render_page(
            root, ref_of=self.browser._ref_of(tab), secret=secret, filter="interactive", cap=10**9
        )
        return len(text), len(text.splitlines())


# --- Playwright MCP over stdio -----------------------------------------------------------------------


def ensure_mcp() -> tuple[Path | None, str]:
    """The MCP server's cli.js, installing it into bench/.mcp when missing; or None and why."""
    if MCP_CLI.exists():
        return MCP_CLI, ""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return None, "node/npm not found"
    MCP_DIR.mkdir(parents=True, exist_ok=True)
    print(f"Installing {MCP_PACKAGE} into {MCP_DIR.relative_to(ROOT)} ...", flush=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(MCP_DIR), MCP_PACKAGE, "--no-audit", "--no-fund"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not MCP_CLI.exists():
        return None, "npm install failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]
    return MCP_CLI, ""


class McpClient:
    """A minimal MCP client: newline-delimited JSON-RPC 2.0 over the server's stdin/stdout."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._ids = itertools.count(1)

    @classmethod
    async def start(cls, cli: Path, config: dict[str, Any]) -> McpClient:
        config_file = Path(tempfile.mkdtemp()) / "mcp-config.json"
        config_file.write_text(json.dumps(config))
        process = await asyncio.create_subprocess_exec(
            "node",
            str(cli),
            "--config",
            str(config_file),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=64 * 1024 * 1024,  # one snapshot of the table page is several megabytes of JSON
        )
        client = cls(process)
        await client.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "deskhand-bench", "version": "1"},
            },
        )
        await client.notify("notifications/initialized")
        return client

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        await self.process.stdin.drain()

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self._send(
            {"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})}
        )

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self._ids)
        await self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        assert self.process.stdout is not None
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), 120)
            if not line:
                raise RuntimeError("the MCP server exited")
            message = json.loads(line)
            if message.get("id") == request_id:
                if "error" in message:
                    raise RuntimeError(f"MCP error: {message['error']}")
                return dict(message["result"])

    async def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, float]:
        started = time.perf_counter()
        result = await self.request("tools/call", {"name": tool, "arguments": arguments})
        elapsed = time.perf_counter() - started
        text = "\n".join(
            p.get("text", "") for p in result.get("content", []) if p.get("type") == "text"
        )
        return text, elapsed

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.request("tools/call", {"name": "browser_close", "arguments": {}})
        if self.process.returncode is None:
            self.process.terminate()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.process.wait(), 10)


def mcp_interactive_count(snapshot_text: str) -> int:
    """Interactive elements in an MCP snapshot, by the same rule our interactive view uses."""
    yaml = snapshot_text
    if "```yaml" in yaml:
        yaml = yaml.split("```yaml", 1)[1].split("```", 1)[0]
    return sum(
        1 for node in parse_snapshot(yaml).walk() if is_interactive(node) and node.role != "iframe"
    )


# --- the run ----------------------------------------------------------------------------------------


@dataclass
class Row:
    page: str
    read_chars: int = 0
    read_ms: float = 0.0
    read_elements: int = 0
    uncapped_chars: int = 0
    text_chars: int = 0
    text_ms: float = 0.0
    mcp_chars: int | None = None
    mcp_ms: float | None = None
    mcp_elements: int | None = None
    time_ratio: float | None = None  # median of the paired runs' ours / MCP
    time_interval: tuple[float, float] | None = None  # its 95% bootstrap interval
    failure: str = ""


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def bootstrap_interval(ratios: list[float], draws: int = 4000) -> tuple[float, float]:
    """The 95% interval of the median ratio, from resampling the paired runs (fixed seed).

    Single calls swing by 10-15% on a two-core machine, more than the difference measured;
    the interval says whether a ratio near 1 is a difference at all."""
    pick = random.Random(12)
    medians = sorted(statistics.median(pick.choices(ratios, k=len(ratios))) for _ in range(draws))
    return medians[int(draws * 0.025)], medians[int(draws * 0.975) - 1]


def time_verdict(ratio: float, interval: tuple[float, float]) -> str:
    """No slower: faster, or no difference the runs can tell apart from noise."""
    low, high = interval
    if high <= 1.0 or ratio <= 1.0:
        return "PASS ≤ 1.00"
    if low <= 1.0:
        return "PASS: within noise of 1.00"
    return "MISS ≤ 1.00"


async def start_mcp(cli: Path, chromium: dict[str, Any]) -> McpClient:
    """Playwright MCP on the same Chromium, with the same launch flags and viewport as ours."""
    launch: dict[str, Any] = {"headless": True, "args": launch_args(BrowserConfig(headless=True))}
    if chromium.get("executable_path"):
        launch["executablePath"] = chromium["executable_path"]
    if chromium.get("channel"):
        launch["channel"] = chromium["channel"]
    return await McpClient.start(
        cli,
        {
            "browser": {
                "browserName": "chromium",
                "isolated": True,
                "launchOptions": launch,
                "contextOptions": {"viewport": {"width": 1280, "height": 800}},
            },
            # its log and snapshot files go to a scratch folder, not the working directory
            "outputDir": tempfile.mkdtemp(prefix="deskhand-mcp-"),
        },
    )


async def measure_pages(ours: Ours, mcp: McpClient | None, base: str, runs: int) -> list[Row]:
    """Each page in turn; within a page the two drivers take turns going first, so a busy
    machine slows both alike, and the time ratio is the median of the paired runs."""
    rows = []
    for label, path in BENCH_PAGES:
        row = Row(label)
        url = f"{base}/{path}"
        try:
            await ours.call("navigate", url=url)
            await ours.call("read_page", filter="interactive")  # warm-up
            if mcp is not None:
                await mcp.call("browser_navigate", {"url": url})
                await mcp.call("browser_snapshot", {})  # warm-up
            reads, texts, theirs = [], [], []
            snapshot = ""
            for run in range(runs):
                for who in ("ours", "mcp") if run % 2 == 0 else ("mcp", "ours"):
                    # Each timed call starts once the other browser's work has settled: on two
                    # cores, what one Chromium still does after answering slows the next call.
                    await asyncio.sleep(SETTLE)
                    if who == "ours":
                        block, elapsed = await ours.call("read_page", filter="interactive")
                        reads.append(elapsed)
                        row.read_chars = ours.size(block)
                        row.read_elements = len(ours.text(block).splitlines())
                    elif mcp is not None:
                        snapshot, elapsed = await mcp.call("browser_snapshot", {})
                        theirs.append(elapsed)
                block, elapsed = await ours.call("get_page_text")
                texts.append(elapsed)
                row.text_chars = ours.size(block)
            row.read_ms, row.text_ms = median_ms(reads), median_ms(texts)
            row.uncapped_chars, elements = await ours.uncapped_interactive()
            if row.uncapped_chars > row.read_chars:
                row.read_elements = elements
            if mcp is not None:
                row.mcp_chars, row.mcp_ms = len(snapshot), median_ms(theirs)
                row.mcp_elements = mcp_interactive_count(snapshot)
                ratios = [a / b for a, b in zip(reads, theirs, strict=True)]
                row.time_ratio = statistics.median(ratios)
                row.time_interval = bootstrap_interval(ratios)
        except (RuntimeError, TimeoutError) as exc:
            row.failure = str(exc)[:200]
        rows.append(row)
    return rows


async def measure_click(ours: Ours, base: str, clicks: int) -> tuple[float, float]:
    await ours.call("navigate", url=f"{base}/form.html")
    block, _ = await ours.call("find", query="save draft button")
    ref = next(
        t
        for t in ours.text(block).replace("[", " ").replace("]", " ").split()
        if t.startswith("ref_")
    )
    await ours.call("left_click", target={"type": "ref", "ref": ref})  # warm-up
    times = []
    for _ in range(clicks):
        _block, elapsed = await ours.call("left_click", target={"type": "ref", "ref": ref})
        times.append(elapsed)
    times.sort()
    return median_ms(times), times[int(len(times) * 0.9) - 1] * 1000


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def report(rows: list[Row], click: tuple[float, float], mcp_note: str) -> None:
    print()
    print("What the model reads (median of runs; chars include the browser_state block)")
    header = (
        f"{'page':<20} {'ours read_page(interactive)':>30} {'ours get_page_text':>22} "
        f"{'Playwright MCP browser_snapshot':>32}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        if row.failure:
            print(f"{row.page:<20} failed: {row.failure}")
            continue
        ours_read = f"{row.read_chars:>8,} ch {row.read_ms:>7.1f} ms"
        ours_text = f"{row.text_chars:>7,} ch {row.text_ms:>6.1f} ms"
        if row.mcp_chars is not None and row.mcp_ms is not None:
            theirs = f"{row.mcp_chars:>9,} ch {row.mcp_ms:>7.1f} ms"
        else:
            theirs = "n/a"
        print(f"{row.page:<20} {ours_read:>30} {ours_text:>22} {theirs:>32}")
    print()
    print(
        "Interactive elements and ratios (ours / MCP; time = median of paired runs, "
        "with its 95% bootstrap interval)"
    )
    for row in rows:
        if row.failure:
            continue
        capped = (
            f"; capped at 50,000: uncapped {row.uncapped_chars:,} ch"
            if row.uncapped_chars > row.read_chars
            else ""
        )
        line = f"  {row.page:<20} ours {row.read_elements:>5} elements{capped}"
        if (
            row.mcp_chars
            and row.time_ratio is not None
            and row.time_interval is not None
            and row.mcp_elements is not None
        ):
            same = max(row.read_chars, row.uncapped_chars)
            char_ratio = same / row.mcp_chars
            low, high = row.time_interval
            line += (
                f" | MCP {row.mcp_elements:>5} elements | chars {char_ratio:.2f} "
                f"[{verdict(char_ratio <= 0.5)} ≤ 0.50] | time {row.time_ratio:.2f} "
                f"(95%: {low:.2f}–{high:.2f}) [{time_verdict(row.time_ratio, row.time_interval)}]"
            )
        print(line)
    if mcp_note:
        print(f"  Playwright MCP skipped: {mcp_note}")
    median, p90 = click
    print()
    print(
        f"Click by ref + state report: median {median:.1f} ms, p90 {p90:.1f} ms "
        f"[{verdict(median < 100)} < 100 ms]"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--clicks", type=int, default=30)
    parser.add_argument("--no-mcp", action="store_true", help="skip the Playwright MCP column")
    args = parser.parse_args()

    choice = find_browser(os.environ.get("DESKHAND_BROWSER"))
    if choice is None:
        print("No Chromium-family browser found; nothing to measure.")
        return
    chromium: dict[str, Any] = (
        {"executable_path": choice.path} if choice.path else {"channel": choice.channel}
    )
    print(f"Browser: {choice.source} {choice.path or choice.channel}")

    mcp: McpClient | None = None
    note = "--no-mcp given" if args.no_mcp else ""
    if not args.no_mcp:
        cli, note = ensure_mcp()
        if cli is not None:
            try:
                mcp = await start_mcp(cli, chromium)
            except Exception as exc:  # the comparison is optional; our figures still print
                note = f"could not start it: {type(exc).__name__}: {exc}"

    # As the app does once its window is up, before anything starts a browser: what startup
    # loaded stays out of the collector's full passes (each would otherwise add ~70 ms to a call).
    freeze_startup_objects()
    with serve_pages() as base:
        described: list[PlaywrightBrowser] = []

        async def confirm(context: BetaConfirmContext) -> bool:
            # What the app's gate does before every call: judge it on the live page.
            await described[0].judge(context)
            return True

        pool = BrowserPool(
            BrowserConfig(
                headless=True,
                url_policy=UrlPolicy(allow_hosts=("127.0.0.1",)),
                downloads_dir=Path(tempfile.mkdtemp()),
                **chromium,
            )
        )
        browser = pool.for_session(1, confirm=confirm)
        described.append(browser)
        ours = Ours(browser)
        try:
            rows = await measure_pages(ours, mcp, base, args.runs)
            if mcp is not None:
                await mcp.close()
            try:
                click = await measure_click(ours, base, args.clicks)
            except (RuntimeError, TimeoutError) as exc:
                print(f"Click measurement failed: {exc}")
                click = (float("nan"), float("nan"))
        finally:
            await pool.close()
    report(rows, click, note)


if __name__ == "__main__":
    asyncio.run(main())

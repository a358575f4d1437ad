"""What one acting member really did to the page: looked at before, looked at again after.

`Watch.before(session, tab)` arms the settle watcher and reads the page's whole aria snapshot
(its focused field too, the one `type` will type into); after the member, `watch.outcome(...)`
waits for the page to settle, reads it again and builds the `Outcome`:

- `→` lines for what the browser reports beyond the page: a navigation of the tab, a new tab
  (with its title), a native dialog, a download;
- the page's own changes (`changes.diff`), unless another document loaded (then only `→`);
- after `type` / `form_input`, the field's value read back: `The field holds "AB", not the
  text typed.` (`differs`) when it is not what was typed; a password field is never read out.

A snapshot costs the page's own time (a quarter of a second for a page of 1,000 elements on a
busy machine), so the last tree read of a page is kept, and read again only when the page's
watcher saw something that may have changed it (a mutation, a field's input, the focus moving;
a page with frames or shadow roots, which it cannot see into, is always read again, and so is
the page after the pointer moved). A click that changes nothing costs no snapshot at all.

`done` when something changed, `no_effect` when nothing did. A page too big to compare at a
reasonable cost (over `MAX_ELEMENTS` elements) is `unconfirmed`, and says so; so is a page
that could not be watched or read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from tools.browser.effect.passwords import is_password
from tools.browser.outcome import settle as settling
from tools.browser.outcome.changes import HIDDEN, diff, field_value, quoted, render, value_refs
from tools.browser.page.snapshot import AriaNode, parse_snapshot, release
from tools.browser.session import BrowserSession
from tools.browser.tab import Tab
from tools.outcome import Outcome

log = logging.getLogger(__name__)

__all__ = ["HIDDEN", "TYPED_DIFFERS", "Typed", "Watch"]

# A page with more elements is not compared: its snapshot alone takes a second or more (a
# 2,000-row table: 22,000 elements, seconds per snapshot), twice per action.
MAX_ELEMENTS = 5_000
MAX_SNAPSHOT = 1_000_000  # characters of snapshot text, for a page that grew past it meanwhile
SNAPSHOT_TIMEOUT_MS = 5_000
TITLE_WAIT_MS = 1_500  # for a new tab's title
TYPED_DIFFERS = "The field holds {value}, not the text typed."
TOO_BIG = "Not confirmed: the page is too large to compare before and after."
TEXT_FIELDS = frozenset({"textbox", "searchbox", "spinbutton"})  # where a typed value is compared
UNREADABLE = "Not confirmed: the page could not be read before and after the action."


@dataclass(frozen=True)
class Typed:
    """What a typing member put in a field: the text, and whether it replaced the field's content
    (`form_input`, which names the field: `pw_ref`) or went in at the caret (`type`: into the
    field that had the focus before)."""

    text: str
    replaces: bool
    pw_ref: str | None = None


# The last tree read of each page, with its document's token: while the watcher sees nothing
# change (`Armed.dirty`, `Settled.dirty`), it is the page's tree still, and is not read again.
_trees: WeakKeyDictionary[Page, tuple[str, AriaNode]] = WeakKeyDictionary()


def _cached(page: Page, token: str) -> AriaNode | None:
    kept = _trees.get(page)
    return kept[1] if kept is not None and kept[0] == token else None


def _keep(page: Page, token: str | None, tree: AriaNode | None) -> None:
    """Keep `tree` as the page's last read (None: forget it), freeing the one it replaces."""
    old = _trees.pop(page, None)
    if old is not None and old[1] is not tree:
        release(old[1])
    if token is not None and tree is not None:
        _trees[page] = (token, tree)


async def _snapshot(tab: Tab) -> tuple[AriaNode | None, bool]:
    """(the page's tree, whether it was too big to compare); (None, False) if unreadable."""
    try:
        text = await tab.page.aria_snapshot(mode="ai", timeout=SNAPSHOT_TIMEOUT_MS)
    except PlaywrightError:
        return None, False
    if len(text) > MAX_SNAPSHOT:
        return None, True
    return parse_snapshot(text), False


class Watch:
    """One acting call's look at its tab before the action, and the outcome after it."""

    def __init__(
        self,
        session: BrowserSession,
        tab: Tab | None,
        *,
        token: str | None,
        tree: AriaNode | None,
        too_big: bool,
    ) -> None:
        self._session = session
        self._tab = tab
        self._token = token
        self._tree = tree
        self._too_big = too_big
        self._url = tab.page.url if tab is not None else None
        self._generation = tab.refs.main_generation if tab is not None else -1
        self._changes = len(session.changes)
        self._tabs = set(session.tabs)

    @classmethod
    async def before(cls, session: BrowserSession, tab: Tab | None, *, read: bool = True) -> Watch:
        """Arm the settle watcher, then read the page unless it is too big to compare, or
        not `read` (a navigation: the page it leaves is not compared with the next one)."""
        if tab is None or tab.page.is_closed():
            return cls(session, None, token=None, tree=None, too_big=False)
        armed = await settling.arm(tab.page)
        if armed is None:
            return cls(session, tab, token=None, tree=None, too_big=False)
        if armed.elements > MAX_ELEMENTS:
            _keep(tab.page, None, None)
            return cls(session, tab, token=armed.token, tree=None, too_big=True)
        tree = None if armed.dirty else _cached(tab.page, armed.token)
        too_big = False
        if tree is None and read:
            tree, too_big = await _snapshot(tab)
            _keep(tab.page, armed.token, tree)
        return cls(session, tab, token=armed.token, tree=tree, too_big=too_big)

    @property
    def focused_ref(self) -> str | None:
        """The field that had the keyboard focus before the action (where `type` types)."""
        if self._tree is None:
            return None
        return next((n.pw_ref for n in self._tree.walk() if n.focused and n.pw_ref), None)

    async def outcome(
        self,
        tab: Tab,
        *,
        ref_of: Callable[[AriaNode], str],
        typed: Typed | None = None,
        pointer: bool = False,
    ) -> Outcome:
        """The outcome of the action that just ran on `tab` (its page settled first). `pointer`:
        the pointer moved (what is under it may show through CSS alone: the page is read)."""
        page = tab.page
        same_tab = self._tab is tab
        settled = None if page.is_closed() else await settling.settle(page)
        token = settled.token if settled is not None else None
        lines = await self._browser_lines(tab, same_tab)
        if page.is_closed() or not same_tab:
            return Outcome(kind="done", changes=lines)  # "closed", or where a new tab went
        another_document = tab.refs.main_generation != self._generation or (
            None not in (token, self._token) and token != self._token
        )
        if another_document:
            return Outcome(kind="done", changes=lines)  # what it shows is read by looking
        if self._token is None or token is None:
            return Outcome(kind="unconfirmed", changes=lines, note=UNREADABLE)
        if self._too_big:
            return Outcome(kind="unconfirmed", changes=lines, note=TOO_BIG)
        if self._tree is None and lines:
            return Outcome(kind="done", changes=lines)  # a navigation within the page
        if self._tree is None:
            return Outcome(kind="unconfirmed", changes=lines, note=UNREADABLE)
        after = self._tree  # nothing seen to change: the tree is as it was
        if pointer or settled is None or settled.dirty:
            read, too_big = await _snapshot(tab)
            if read is None:
                _keep(page, None, None)
                note = TOO_BIG if too_big else UNREADABLE
                return Outcome(kind="unconfirmed", changes=lines, note=note)
            after = read
        try:
            changes = diff(self._tree, after) if after is not self._tree else []
            fields = [ref for ref in value_refs(changes) if ref is not None]
            field = _typed_field(after, typed, self.focused_ref)
            if field is not None and field.pw_ref is not None:
                fields.append(field.pw_ref)
            secret = await _passwords(tab, fields) if fields else set()
            lines.extend(render(change, secret=secret, ref_of=ref_of) for change in changes)
            note = _typed_note(field, typed, secret)
        finally:
            _keep(page, token, after)  # the page's tree from now on (the one before is freed)
        if note:
            return Outcome(kind="differs", changes=lines, note=note)
        return Outcome(kind="done" if lines else "no_effect", changes=lines)

    async def _browser_lines(self, tab: Tab, same_tab: bool) -> list[str]:
        """`→` lines: the tab went elsewhere, tabs opened, dialogs, downloads."""
        lines: list[str] = []
        page = tab.page
        if page.is_closed():
            lines.append(f"→ tab {tab.tab_id} closed")
        elif not same_tab or page.url != self._url or tab.refs.main_generation != self._generation:
            lines.append(f"→ navigated to {_one_line(page.url)}")
        for change in self._session.changes[self._changes :]:
            if not isinstance(change, dict):
                kind = getattr(change, "type", "")
                if kind == "dialog_dismissed":
                    lines.append(f"→ dialog {quoted(getattr(change, 'message', ''))}")
                continue
            if change.get("type") == "tab_opened":
                lines.append(await self._new_tab_line(str(change.get("tab_id"))))
            elif change.get("type") == "download_started":
                name = self._session.download_names.get(str(change.get("download_id")), "")
                lines.append(f"→ download {_one_line(name) or 'started'}")
        return lines

    async def _new_tab_line(self, tab_id: str) -> str:
        tab = self._session.tabs.get(tab_id)
        if tab is None or tab_id in self._tabs:
            return f"→ new tab {tab_id}"
        with contextlib.suppress(PlaywrightError):
            await tab.page.wait_for_load_state("domcontentloaded", timeout=TITLE_WAIT_MS)
        await tab.refresh_title()
        return f"→ new tab {tab_id}: {quoted(tab.title)}" if tab.title else f"→ new tab {tab_id}"


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def _typed_field(after: AriaNode, typed: Typed | None, focused: str | None) -> AriaNode | None:
    """The field typed into, as it is now."""
    if typed is None:
        return None
    wanted = typed.pw_ref if typed.replaces else focused
    if wanted is None:
        return None
    return next((node for node in after.walk() if node.pw_ref == wanted), None)


async def _passwords(tab: Tab, refs: list[str]) -> set[str]:
    """Which of these fields (Playwright refs in the last snapshot) are password fields; one
    that cannot be checked counts as one."""

    async def secret(ref: str) -> bool:
        try:
            return await is_password(tab.page.locator(f"aria-ref={ref}"))
        except PlaywrightError:
            return True

    unique = list(dict.fromkeys(refs))
    verdicts = await asyncio.gather(*(secret(ref) for ref in unique))
    return {ref for ref, hidden in zip(unique, verdicts, strict=True) if hidden}


def _typed_note(field: AriaNode | None, typed: Typed | None, secret: set[str]) -> str:
    """`The field holds "AB", not the text typed.` when the field does not hold what was typed
    (nothing to say of a field that went away, or of text with line breaks typed into a
    one-line field: Return did something else there)."""
    if field is None or typed is None or field.pw_ref is None:
        return ""
    if field.pw_ref in secret:
        return ""  # a password field's value is never read out, nor compared
    if field.role not in TEXT_FIELDS or any(mark in typed.text for mark in "\r\n"):
        return ""
    value, text = field_value(field), typed.text

    def clean(text: str) -> str:
        return " ".join(text.replace("\r\n", "\n").split())

    held, wanted = clean(value), clean(text)
    if (held == wanted) if typed.replaces else (wanted in held):
        return ""
    return TYPED_DIFFERS.format(value=json.dumps(held[:200], ensure_ascii=False))

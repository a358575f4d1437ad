"""Acting on a ref's element once Playwright's actionability checks pass, and saying which failed.

A click, hover, scroll or fill on an element named by a ref goes through Playwright, which
waits until the element is attached, visible, stable, enabled (and editable, for a fill) and is
the one that would receive the pointer; its hit-target check also stops the events of a click
that would land on something else, so a covered element is never clicked through its cover.
It waits within the call's own time budget (`Budget`: Settings → Browser's action timeout,
counted from the start of the member), not a fixed few seconds: on a busy machine the checks
take longer, they do not fail.

When the budget runs out, `act` looks at the element once more, page-side (`WHY_NOT`), and
raises `NotActionable` with the check that failed: detached, hidden, not enabled, not
editable, still moving, or covered by the element that would receive the pointer, named by its
role and accessible name (`dialog "Cookies"`). That description runs in the page's world: a
page can only mislead the wording of its own refusal, never make Playwright act elsewhere.
Nothing in it reads a field's value (a password field's included).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from playwright.async_api import ElementHandle, Locator
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

__all__ = [
    "Budget",
    "Check",
    "Element",
    "NotActionable",
    "Way",
    "act",
    "connected",
    "cover_words",
    "why_not",
]

# A ref's element: looked up by its ref, or already held (the toolset takes hold of it when the
# call starts, before anything reads the page again: see `BrowserToolset._pin`).
Element = Locator | ElementHandle

Way = Literal["click", "hover", "scroll", "fill", "check", "select"]
Check = Literal["ok", "detached", "hidden", "disabled", "readonly", "moving", "covered"]
FLOOR = 2.0  # seconds an action gets even when the budget is spent (its checks just passed)
LOOK_LIMIT = 3.0  # seconds the last look at the element may take
NAME_LIMIT = 80  # characters of a covering element's name

# why_not(element, way) -> {check, cover?: {role, name, tag}}: the first of Playwright's checks
# that fails now, in its order. `way` says which checks apply (a hover needs no enabled element).
WHY_NOT = r"""
async (el, way) => {
  if (!el || !el.isConnected) return { check: 'detached' };
  const up = (node) => node.parentElement
    || (node.parentNode && node.parentNode.nodeType === 11 ? node.parentNode.host : null);
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  const shown = el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : true;
  if (!shown || style.visibility !== 'visible' || box.width <= 0 || box.height <= 0) {
    return { check: 'hidden' };
  }
  if (way !== 'hover' && way !== 'scroll') {
    const control = el.closest('button, input, select, textarea, option, optgroup') || el;
    let ariaDisabled = false;
    for (let at = el; at; at = up(at)) {
      if (at.nodeType === 1 && at.getAttribute('aria-disabled') === 'true') ariaDisabled = true;
    }
    if (control.matches(':disabled') || ariaDisabled) return { check: 'disabled' };
  }
  if (way === 'fill') {
    const field = el.matches('input, textarea') ? el : null;
    if ((field && field.readOnly) || (!field && !el.isContentEditable
        && el.getAttribute('aria-readonly') === 'true')) return { check: 'readonly' };
  }
  // Stable: the same box over two frames (a hidden tab has no frames: a timer stands in).
  const frame = () => new Promise((done) => {
    requestAnimationFrame(() => done());
    setTimeout(done, 100);
  });
  await frame();
  const first = el.getBoundingClientRect();
  await frame();
  const second = el.getBoundingClientRect();
  if (['x', 'y', 'width', 'height'].some((side) => first[side] !== second[side])) {
    return { check: 'moving' };
  }
  if (way === 'scroll' || way === 'select') return { check: 'ok' };
  const x = second.left + second.width / 2;
  const y = second.top + second.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return { check: 'ok' };
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  for (let at = hit; at; at = up(at)) if (at === el) return { check: 'ok' };
  if (!hit) return { check: 'ok' };
  // The cover, named the way a person would: the dialog, banner or control it belongs to.
  const clean = (text) => String(text || '').replace(/\s+/g, ' ').trim().slice(0, __NAME__);
  const CONTAINERS = ['dialog', 'alertdialog', 'alert', 'banner', 'navigation', 'menu',
    'menubar', 'tooltip', 'status', 'region', 'complementary', 'contentinfo', 'form', 'search',
    'toolbar', 'listbox', 'tablist', 'tabpanel', 'grid', 'tree', 'button', 'link', 'checkbox',
    'radio', 'switch', 'tab', 'menuitem', 'option', 'textbox', 'combobox', 'img'];
  const implicit = (e) => {
    const tag = e.localName;
    if (tag === 'dialog') return 'dialog';
    if ((tag === 'a' || tag === 'area') && e.hasAttribute('href')) return 'link';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'input') {
      const type = String(e.getAttribute('type') || 'text').toLowerCase();
      if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox' || type === 'radio') return type;
      return 'textbox';
    }
    if (tag === 'textarea') return 'textbox';
    if (tag === 'select') return 'combobox';
    if (tag === 'img') return 'img';
    if (tag === 'nav') return 'navigation';
    if (tag === 'header') return 'banner';
    if (tag === 'footer') return 'contentinfo';
    if (tag === 'aside') return 'complementary';
    if (tag === 'form') return 'form';
    if (/^h[1-6]$/.test(tag)) return 'heading';
    if (tag === 'p') return 'paragraph';
    return 'generic';
  };
  const roleOf = (e) => clean(e.getAttribute('role')).split(' ')[0].toLowerCase() || implicit(e);
  const byIds = (e, ids) => ids.split(/\s+/).map((id) => {
    const root = e.getRootNode();
    const found = root.getElementById ? root.getElementById(id) : null;
    return found ? found.textContent : '';
  }).join(' ');
  const nameOf = (e, role) => {
    const labelledBy = e.getAttribute('aria-labelledby');
    let name = labelledBy ? clean(byIds(e, labelledBy)) : '';
    if (!name) name = clean(e.getAttribute('aria-label'));
    if (!name && e.labels && e.labels.length) {
      name = clean([...e.labels].map((label) => label.textContent).join(' '));
    }
    if (!name && e.localName === 'img') name = clean(e.getAttribute('alt'));
    if (!name && e.localName === 'input') {
      const type = String(e.getAttribute('type') || '').toLowerCase();
      // A button's value is its label; no other field's value is ever read.
      if (['button', 'submit', 'reset'].includes(type)) name = clean(e.value);
    }
    const texty = ['button', 'link', 'tab', 'menuitem', 'option', 'checkbox', 'radio',
      'heading', 'paragraph', 'generic', 'alert', 'status', 'tooltip'];
    if (!name && texty.includes(role) && e.localName !== 'textarea') {
      const text = String(e.textContent || '').replace(/\s+/g, ' ').trim();
      if (text.length <= __NAME__) name = text;
    }
    if (!name) name = clean(e.getAttribute('title'));
    return name;
  };
  let cover = hit;
  for (let at = hit, depth = 0; at && at.nodeType === 1 && depth < 12; at = up(at), depth += 1) {
    if (CONTAINERS.includes(roleOf(at)) && at !== document.body) { cover = at; break; }
  }
  const role = roleOf(cover);
  return { check: 'covered', cover: { role, name: nameOf(cover, role), tag: cover.localName } };
}
""".replace("__NAME__", str(NAME_LIMIT))


@dataclass(frozen=True)
class Budget:
    """The time one call may spend waiting for its target: from the member's start."""

    deadline: float

    @classmethod
    def start(cls, seconds: float) -> Budget:
        return cls(asyncio.get_running_loop().time() + seconds)

    def timeout_ms(self) -> float:
        """What is left of it for one Playwright action, never less than FLOOR."""
        left = self.deadline - asyncio.get_running_loop().time()
        return max(left, FLOOR) * 1000


class NotActionable(Exception):
    """The element could not be acted on within the budget; `check` says why (`cover`: the
    element that would receive the pointer, as `role "name"`)."""

    def __init__(self, check: Check, cover: str = "") -> None:
        super().__init__(check)
        self.check = check
        self.cover = cover


async def act(
    element: Element, way: Way, action: Callable[[float], Awaitable[Any]], budget: Budget
) -> None:
    """`action(timeout_ms)`: one Playwright action on `element`, given what is left of `budget`;
    raises `NotActionable` with the failed check when it timed out, or when the element it
    held left the page (a held element is not waited for: it never comes back)."""
    try:
        await action(budget.timeout_ms())
    except PlaywrightTimeoutError:
        check, cover = await why_not(element, way)
        raise NotActionable(check, cover) from None
    except PlaywrightError:
        if isinstance(element, ElementHandle) and not await connected(element):
            raise NotActionable("detached") from None
        raise


async def connected(element: Element) -> bool:
    """Whether the element is still in its page (False also when that cannot be told)."""
    try:
        if isinstance(element, Locator):
            return await asyncio.wait_for(element.count(), LOOK_LIMIT) == 1
        found = await asyncio.wait_for(element.evaluate("e => e.isConnected"), LOOK_LIMIT)
    except (PlaywrightError, TimeoutError):
        return False
    return found is True


async def why_not(element: Element, way: Way) -> tuple[Check, str]:
    """The check the element fails now, and what covers it (for `covered`)."""
    try:
        if isinstance(element, Locator):
            if await asyncio.wait_for(element.count(), LOOK_LIMIT) == 0:
                return "detached", ""
            looking = element.evaluate(WHY_NOT, way, timeout=LOOK_LIMIT * 1000)
        else:
            looking = element.evaluate(WHY_NOT, way)
        found = await asyncio.wait_for(looking, LOOK_LIMIT * 2)
    except (PlaywrightError, TimeoutError):
        return "ok", ""  # the page would not say: no reason beyond the time
    if not isinstance(found, dict):
        return "ok", ""
    check = found.get("check")
    if check not in ("detached", "hidden", "disabled", "readonly", "moving", "covered"):
        return "ok", ""
    cover = ""
    if check == "covered":
        with contextlib.suppress(AttributeError, TypeError):
            cover = cover_words(found.get("cover") or {})
    return check, cover


def cover_words(cover: dict[str, Any]) -> str:
    """A covering element as the model reads it: `dialog "Cookies"`, or `generic <div>` when
    it has no name. The name is page text: bounded, one line, quotes kept distinct."""
    role = _word(str(cover.get("role") or "generic"))
    name = " ".join(str(cover.get("name") or "").split())[:NAME_LIMIT].replace('"', "'")
    if name:
        return f'{role} "{name}"'
    tag = _word(str(cover.get("tag") or "element"))
    return f"{role} <{tag}>"


def _word(text: str) -> str:
    """A role or tag: letters, digits and dashes only (it is page data)."""
    kept = "".join(char for char in text if char.isalnum() or char == "-")[:30]
    return kept or "element"

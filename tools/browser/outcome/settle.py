"""Waiting for a page to settle after an action, so that a late effect is still seen.

Before an action, `arm(page)` starts watching the page's main document and each of its frames'
(installed once per document, in the document's own world, since only there can it see its
timers and requests): the DOM's mutations, the timers, animation frames and requests (`fetch`,
XHR) started from then on, and in a frame, its document being left for another. After it,
`settle(page)` resolves when the page and every frame in it are settled:

- nothing the action set going is pending: no timer due within the bound, no request in
  flight, no animation frame asked for outside a frame (an animation loop does not count), no
  frame on its way to another document (a link followed in it: it is settled once the next
  document's content is parsed);
- and, once anything happened after the action returned (a timer fired, a request ended, the
  DOM changed), the DOM and the network have been quiet for `QUIET` (150 ms);
- or `BOUND` (1.5 s) has passed since the action: what comes later is not this action's (a
  link that turned into a download or an empty answer, on a page with frames, holds the wait
  that long: its frames were told they would be left, and never were).

A page whose action did all its work at once (a checkbox ticked, a line shown by the click's
own handler) and set nothing going is settled at the next task: nothing can still come. That is
what keeps a click on a settled page cheap (bench/browser_effects.py measures it). A click in a
frame is a click in that frame's document: its timers and requests are that document's own, and
only its watcher sees them.

The watcher also says whether the page's tree may have changed since it was last read (`dirty`):
a mutation, a field's input or change, the focus moving; always, on a page with frames or shadow
roots, whose insides the main document's watcher cannot see.

A page may see this watcher and tamper with it: the worst it can do is misreport itself (end
the wait early, hold it to the bound, hide a change of its own from the report), which a page
can as well do by showing what it likes. What it returns is only counted, never run or shown.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

__all__ = ["BOUND", "QUIET", "Armed", "Settled", "arm", "settle"]

QUIET = 0.150  # seconds of DOM and network quiet after the last thing that happened
BOUND = 1.5  # seconds after the action, at most
FRAME_ARM = 1.0  # seconds for a frame to take its watcher; one too busy is only waited for to load

# arm() -> [this document's token (the same until another document loads), its element count,
# whether its tree may have changed since the last arm or settle].
ARM = r"""
() => {
  const KEY = Symbol.for('deskhand.settle');
  let w = window[KEY];
  if (!w) {
    const now = () => performance.now();
    w = {
      token: Math.random().toString(36).slice(2), later: window.setTimeout.bind(window),
      armed: Infinity, gen: 0, last: 0, mutated: 0, lively: false,
      timers: new Map(), requests: 0, frames: 0, inFrame: false, lineage: null, leaving: false,
    };
    // Work counts as the action's when it starts after the action began, outside the page's
    // own older work: a timer set by a timer inherits whose it is (a polling loop stays the page's).
    const ours = () => (w.lineage === null ? now() >= w.armed : w.lineage);
    const touched = () => { w.last = now(); w.lively = true; };
    const setTimeout0 = window.setTimeout, clearTimeout0 = window.clearTimeout;
    window.setTimeout = function (fn, delay, ...rest) {
      if (typeof fn !== 'function') return setTimeout0.call(this, fn, delay, ...rest);
      const timer = { made: now(), due: now() + (Number(delay) || 0), ours: ours(), gen: w.gen };
      let id = 0;
      const run = function (...args) {
        w.timers.delete(id);
        if (timer.ours && timer.gen === w.gen) touched();
        const was = w.lineage; w.lineage = timer.ours && timer.gen === w.gen;
        try { return fn.apply(this, args); } finally { w.lineage = was; }
      };
      id = setTimeout0.call(this, run, delay, ...rest);
      if (timer.ours) w.timers.set(id, timer);
      return id;
    };
    window.clearTimeout = function (id) { w.timers.delete(id); return clearTimeout0.call(this, id); };
    const frame0 = window.requestAnimationFrame;
    if (frame0) {
      window.requestAnimationFrame = function (fn) {
        const counted = !w.inFrame && ours();
        const gen = w.gen;
        if (counted) w.frames += 1;
        return frame0.call(this, (t) => {
          if (counted && gen === w.gen) w.frames -= 1;
          const was = w.inFrame; w.inFrame = true;
          try { return fn(t); } finally { w.inFrame = was; }
        });
      };
    }
    const started = () => {
      if (!ours()) return () => {};
      const gen = w.gen;
      w.requests += 1;
      return () => { if (gen === w.gen) { w.requests -= 1; touched(); } };
    };
    const fetch0 = window.fetch;
    if (fetch0) {
      window.fetch = function (...args) {
        const done = started();
        const promise = fetch0.apply(this, args);
        promise.then(done, done);
        return promise;
      };
    }
    const send0 = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...args) {
      this.addEventListener('loadend', started(), { once: true });
      return send0.apply(this, args);
    };
    new MutationObserver(() => { w.last = now(); w.mutated = now(); w.dirty = true; })
      .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    // What changes the tree without a mutation: a field's value or state, the focus.
    for (const type of ['input', 'change', 'focusin', 'focusout', 'toggle', 'reset']) {
      window.addEventListener(type, () => { w.dirty = true; }, true);
    }
    // A frame's document about to be replaced (a link followed in it, its form sent, its parent
    // setting its address): pending until the next one is there. The main document's own
    // navigation is the tab's to wait for (tab.py), which also knows when it turned into a
    // download or an empty answer.
    if (window !== window.top) {
      window.addEventListener('beforeunload', () => { if (now() >= w.armed) w.leaving = true; });
    }
    // A shadow root's mutations are out of the observer's sight: such a page is always read.
    const attach0 = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (...args) { w.shadows = true; return attach0.apply(this, args); };
    w.dirty = true;
    w.shadows = [...document.querySelectorAll('*')].some((e) => e.shadowRoot);
    Object.defineProperty(window, KEY, { value: w });
  }
  // Whether the tree may differ from the last one read (reading it again makes it clean).
  const dirty = w.dirty || w.shadows || window.frames.length > 0;
  w.dirty = false;
  w.gen += 1;
  w.armed = performance.now();
  w.lively = false;
  w.last = 0;
  w.mutated = 0;
  w.requests = 0;
  w.frames = 0;
  w.leaving = false;
  w.timers.clear();
  return [w.token, document.getElementsByTagName('*').length, dirty];
}
"""

# settle([quiet ms, bound ms]) -> [token, settled, dirty]: waits in the page, not over the wire.
SETTLE = r"""
([quiet, bound]) => new Promise((resolve) => {
  const w = window[Symbol.for('deskhand.settle')];
  if (!w) { resolve(['', true, true]); return; }
  const now = () => performance.now();
  const started = now();
  let checks = 0;
  const check = () => {
    const t = now();
    const answer = (settled) => {
      const dirty = w.dirty || w.shadows || window.frames.length > 0;
      w.dirty = false;
      resolve([w.token, settled, dirty]);
    };
    if (t - started >= bound) { answer(false); return; }
    let pending = w.requests > 0 || w.frames > 0 || w.leaving;
    for (const timer of w.timers.values()) {
      if (timer.gen === w.gen && timer.due <= started + bound) { pending = true; break; }
    }
    const lively = w.lively || w.mutated >= started;
    checks += 1;
    // One turn of the task queue first: work the action posted as a message has run by then
    // (a 0 ms timer is counted as pending anyway).
    if (!pending && checks > 1 && (!lively || t - w.last >= quiet)) {
      answer(true);
      return;
    }
    const wait = checks <= 1 ? 0 : pending ? 10 : quiet - (t - w.last);
    w.later(check, Math.max(0, Math.min(wait, bound - (t - started))));
  };
  check();
})
"""


@dataclass(frozen=True)
class Armed:
    """The page as the watcher found it: its document's token, how many elements it has, and
    whether its tree may differ from the last one read (False: no mutation, no field changed,
    the focus did not move, and it has no frames or shadow roots the watcher cannot see into)."""

    token: str
    elements: int
    dirty: bool


@dataclass(frozen=True)
class Settled:
    """The page after the action: its document's token, and whether its tree may have changed."""

    token: str
    dirty: bool


async def arm(page: Page) -> Armed | None:
    """Start watching the page, and each of its frames, for what the coming action sets going
    (None: the page could not be watched, e.g. no document yet)."""
    main = page.main_frame
    answer, *_ = await asyncio.gather(
        _evaluate(main, ARM, None),
        *(
            _evaluate(frame, ARM, None, limit=FRAME_ARM)
            for frame in page.frames
            if frame is not main
        ),
    )
    if not isinstance(answer, list) or len(answer) != 3:
        return None
    token, elements, dirty = answer
    if not isinstance(token, str) or not isinstance(elements, int):
        return None
    return Armed(token, elements, dirty is not False)


async def settle(page: Page, *, quiet: float = QUIET, bound: float = BOUND) -> Settled | None:
    """Wait until the page and its frames settled (see the module's docstring), at most `bound`
    seconds after the call (None: another document loaded, or the page could not be asked)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + bound
    main = page.main_frame
    answer, *_ = await asyncio.gather(
        _settled(main, quiet, bound, deadline),
        *(_settled(frame, quiet, bound, deadline) for frame in page.frames if frame is not main),
    )
    if not isinstance(answer, list) or len(answer) != 3 or not isinstance(answer[0], str):
        return None
    return Settled(answer[0], answer[2] is not False) if answer[0] else None


async def _settled(frame: Frame, quiet: float, bound: float, deadline: float) -> object:
    """One frame's SETTLE answer once its document settled; None when it could not be asked
    (its document was replaced: then once the next one's content is parsed, what the action
    did is there)."""
    answer = await _evaluate(frame, SETTLE, [quiet * 1000, bound * 1000], limit=bound + 0.5)
    unwatched = not isinstance(answer, list) or not answer or answer[0] == ""
    if answer is None or (unwatched and frame.parent_frame is not None):
        # Another document, or a frame not watched (added or replaced meanwhile): wait for its
        # content.
        remaining = deadline - asyncio.get_running_loop().time()
        with contextlib.suppress(PlaywrightError):
            await frame.wait_for_load_state("domcontentloaded", timeout=max(0.05, remaining) * 1000)
    return answer


async def _evaluate(frame: Frame, script: str, arg: object, *, limit: float | None = None) -> Any:
    """`script` run in `frame`'s document (None: it could not be, or not within `limit`)."""
    try:
        return await asyncio.wait_for(frame.evaluate(script, arg), limit)
    except (PlaywrightError, TimeoutError):
        return None

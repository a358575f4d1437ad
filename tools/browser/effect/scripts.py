"""The page-side halves of effect resolution: constant JavaScript, given values only as arguments.

`FACTS` describes what acting on an element really touches, `NEAR` where it sits (the nearest
heading above it, or the landmark it is in: what a routine tells two same-named elements apart
by); `TAB_STEP` predicts where one Tab press moves the focus; `FRAME_BOX` and `SCROLL` map a point into a frame's own document.
They run in an isolated world the driver creates over CDP (page scripts cannot redefine what
they call there), or, for elements named by a ref, through Playwright's `evaluate`. Each takes
the element as `this` (a CDP `callFunctionOn`) or as its first argument (Playwright), so both
routes run the very same code.
"""

from __future__ import annotations

__all__ = [
    "FACTS",
    "FACTS_CALL",
    "FACTS_EVALUATE",
    "FRAME_BOX",
    "NEAR",
    "NEAR_EVALUATE",
    "SCROLL",
    "TAB_STEP",
]

# near(element) -> where it sits, in words: the nearest heading before it in document order
# ('heading "Install"'), unless a landmark it sits in comes first ('navigation "Docs"'); "" when
# neither. Shadow roots are left through their hosts; a frame's element is described in its
# frame's document.
NEAR = r"""
function near(el) {
  const HEADING = 'h1, h2, h3, h4, h5, h6, [role=heading]';
  const IMPLICIT = { nav: 'navigation', main: 'main', aside: 'complementary', header: 'banner',
    footer: 'contentinfo', form: 'form', section: 'region', search: 'search' };
  const EXPLICIT = ['navigation', 'main', 'complementary', 'banner', 'contentinfo', 'form',
    'region', 'search'];
  const clean = (text) => String(text || '').replace(/\s+/g, ' ').trim().slice(0, 120);
  const nameOf = (e) => {
    const ids = e.getAttribute('aria-labelledby');
    if (ids) {
      const root = e.getRootNode();
      const text = ids.split(/\s+/).map((id) => {
        const found = root.getElementById ? root.getElementById(id) : null;
        return found ? found.textContent : '';
      }).join(' ');
      if (clean(text)) return clean(text);
    }
    return clean(e.getAttribute('aria-label'));
  };
  const shown = (e) => e.getAttribute('aria-hidden') !== 'true'
    && (typeof e.checkVisibility !== 'function' || e.checkVisibility());
  const say = (role, name) => (name ? role + ' "' + name + '"' : role);
  const heading = (h) => say('heading', nameOf(h) || clean(h.textContent));
  const landmark = (e) => {
    const explicit = clean(e.getAttribute('role')).split(' ')[0].toLowerCase();
    if (explicit) return EXPLICIT.includes(explicit) ? explicit : '';
    const role = IMPLICIT[e.localName] || '';
    // A form or section is a landmark only when named; a header or footer only at page level.
    if ((role === 'form' || role === 'region') && !nameOf(e)) return '';
    if ((role === 'banner' || role === 'contentinfo')
        && e.parentElement && e.parentElement.closest('article, aside, main, nav, section')) return '';
    return role;
  };
  // The last shown heading before `at` among a root's headings (in document order): found by
  // halving, so a long page costs one native query, not a walk through its elements.
  const headingBefore = (root, at) => {
    const all = root.querySelectorAll(HEADING);
    let low = 0;
    let high = all.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (all[middle].compareDocumentPosition(at) & Node.DOCUMENT_POSITION_FOLLOWING) low = middle + 1;
      else high = middle;
    }
    for (let i = low - 1; i >= Math.max(0, low - 200); i -= 1) if (shown(all[i])) return all[i];
    return null;
  };
  // Each tree from the element's own out to the page: a shadow root's, then its host's.
  for (let at = el && el.nodeType === 1 ? el : null; at; ) {
    let mark = null;
    for (let up = at.parentElement; up && !mark; up = up.parentElement) {
      if (up.matches(HEADING)) return heading(up);
      if (landmark(up)) mark = up;
    }
    const root = at.getRootNode();
    const found = root.querySelectorAll ? headingBefore(root, at) : null;
    if (found && (!mark || mark.contains(found))) return heading(found);
    if (mark) return say(landmark(mark), nameOf(mark));
    at = root.nodeType === 11 ? root.host : null;
  }
  return '';
}
"""

# facts(element, mode) -> what acting on `element` affects. mode is one of
# "click" (a pointer click there), "fill" (form_input: Playwright follows a label to its control),
# "enter" / "space" (that key pressed while `element` has the focus), "type" (text typed there).
FACTS = r"""
function facts(el, mode) {
  const ACTIVE = 'a[href], area[href], button, input, select, textarea, summary, label, option, '
    + '[role=button], [role=link], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], '
    + '[role=tab], [role=checkbox], [role=switch], [role=radio], [role=option], [role=treeitem], '
    + '[onclick], [contenteditable=""], [contenteditable="true"], [contenteditable="plaintext-only"]';
  const ACTIVATES = 'a[href], area[href], button, summary, option, '
    + 'input[type=submit i], input[type=image i], input[type=button i], input[type=reset i], '
    + 'input[type=checkbox i], input[type=radio i], '
    + '[role=button], [role=link], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], '
    + '[role=tab], [role=checkbox], [role=switch], [role=radio], [role=option], [role=treeitem], '
    + '[onclick]';
  const BUTTON_TYPES = ['submit', 'image', 'button', 'reset'];
  const NOT_TEXT = BUTTON_TYPES.concat(['checkbox', 'radio', 'range', 'color', 'file', 'hidden']);
  const clean = (text, limit) => String(text || '').replace(/\s+/g, ' ').trim().slice(0, limit || 200);
  const up = (node) => {
    if (node.parentElement) return node.parentElement;
    const parent = node.parentNode;
    return parent && parent.nodeType === 11 ? parent.host : null;
  };
  const closest = (node, selector) => {
    for (let at = node; at; at = up(at)) if (at.nodeType === 1 && at.matches(selector)) return at;
    return null;
  };
  const kind = (e) => (e.localName === 'input' ? String(e.getAttribute('type') || 'text').toLowerCase() : '');
  const isPassword = (e) => !!e && e.nodeType === 1 && e.localName === 'input'
    && (kind(e) === 'password' || String(e.type).toLowerCase() === 'password'
        || /(^|\s)(current|new)-password(\s|$)/i.test(e.getAttribute('autocomplete') || ''));
  const isTextField = (e) => (e.localName === 'input' && !NOT_TEXT.includes(kind(e)))
    || e.localName === 'textarea' || !!e.isContentEditable;
  const labelOf = (e) => (e.localName === 'label' ? e : closest(e, 'label'));
  const control = (label) => (label ? label.control : null);

  let target = el && el.nodeType === 1 ? el : (el && el.parentElement) || null;
  if (!target) return null;
  let act = target;
  let implicit = false;
  if (mode === 'click') {
    act = closest(target, ACTIVE) || target;
    if (act.localName === 'label' && act.control) act = act.control;
  } else if (mode === 'fill') {
    if (!target.matches('input, textarea, select') && !target.isContentEditable) {
      act = control(labelOf(target)) || target;
    }
  } else if (mode === 'enter') {
    if (target.localName === 'input' && !BUTTON_TYPES.includes(kind(target)) && target.form) {
      // Enter in a form's field submits the form, as its default button would.
      const form = target.form;
      act = [...form.elements].find((e) => e.type === 'submit' || e.type === 'image') || form;
      implicit = true;
    }
  }

  const tag = act.localName;
  const type = kind(act) || (tag === 'button' ? String(act.type || 'submit').toLowerCase() : '');
  const byIds = (ids) => ids.split(/\s+/).map((id) => {
    const root = act.getRootNode();
    const found = root.getElementById ? root.getElementById(id) : null;
    return found ? found.textContent : '';
  }).join(' ');
  const pictures = [...act.querySelectorAll('img[alt], [aria-label]')].slice(0, 5)
    .map((e) => e.getAttribute('alt') || e.getAttribute('aria-label'));
  const text = tag === 'form' ? '' : clean([act.textContent, ...pictures].join(' '));
  let name = '';
  const labelledBy = act.getAttribute('aria-labelledby');
  if (labelledBy) name = clean(byIds(labelledBy));
  if (!name) name = clean(act.getAttribute('aria-label'));
  if (!name && tag === 'input' && BUTTON_TYPES.includes(type)) {
    name = clean(act.value || act.getAttribute('alt') || (type === 'submit' ? 'Submit' : ''));
  }
  if (!name && act.labels && act.labels.length) {
    name = clean([...act.labels].map((l) => l.textContent).join(' '));
  }
  if (!name && tag === 'img') name = clean(act.getAttribute('alt'));
  const isControl = act !== target || !!closest(target, ACTIVE);
  // Text is a name for a control, or for a short plain element; not for a whole section.
  if (!name && tag !== 'form' && !isTextField(act) && tag !== 'select'
      && (isControl || text.length <= 80)) name = clean(text, 120);
  if (!name) name = clean(act.getAttribute('title') || act.getAttribute('placeholder') || act.getAttribute('name'));

  const explicitRole = clean(act.getAttribute('role')).split(' ')[0].toLowerCase();
  const implicitRole = () => {
    if ((tag === 'a' || tag === 'area') && act.hasAttribute('href')) return 'link';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'input') {
      if (BUTTON_TYPES.includes(type)) return 'button';
      if (type === 'checkbox' || type === 'radio') return type;
      if (type === 'range') return 'slider';
      if (type === 'number') return 'spinbutton';
      if (type === 'search') return 'searchbox';
      return 'textbox';
    }
    if (tag === 'textarea' || act.isContentEditable) return 'textbox';
    if (tag === 'select') return act.multiple || act.size > 1 ? 'listbox' : 'combobox';
    if (tag === 'option') return 'option';
    if (tag === 'img') return 'img';
    if (tag === 'form') return 'form';
    return 'generic';
  };
  const form = tag === 'form' ? act : act.form || null;
  // A field named "action" shadows form.action: read the form's own property instead.
  const formAction = (f) => Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, 'action').get.call(f);
  const isSubmit = !!form && (implicit || tag === 'form'
    || (tag === 'button' && type === 'submit') || (tag === 'input' && (type === 'submit' || type === 'image')));
  const submitter = isSubmit && tag !== 'form' ? act : null;
  const method = isSubmit
    ? String((submitter && submitter.getAttribute('formmethod')) || form.getAttribute('method') || 'get').toLowerCase()
    : null;
  const action = isSubmit
    ? String(submitter && submitter.hasAttribute('formaction') ? submitter.formAction : formAction(form))
    : null;
  const forwards = mode === 'click' || mode === 'fill' ? control(labelOf(target)) : null;
  return {
    tag,
    role: explicitRole || implicitRole(),
    name,
    words: clean([text, act.getAttribute('title'),
      tag === 'input' && BUTTON_TYPES.includes(type) ? act.value : ''].join(' ')),
    input_type: type,
    href: (tag === 'a' || tag === 'area') && act.hasAttribute('href') ? String(act.href) : null,
    form_method: method,
    form_action: action,
    submits: isSubmit,
    editable: isTextField(act),
    password: isPassword(act) || isPassword(target) || isPassword(forwards),
    activates: implicit || act.matches(ACTIVATES),
    interactive: isControl,
    same: act === target,
    frame_url: String(act.ownerDocument.location.href),
    near: near(act),
  };
}
"""

FACTS_CALL = "function(mode) {\n" + NEAR + FACTS + "\nreturn facts(this, mode);\n}"
FACTS_EVALUATE = "(el, mode) => {\n" + NEAR + FACTS + "\nreturn facts(el, mode);\n}"
NEAR_EVALUATE = "(el) => {\n" + NEAR + "\nreturn near(el);\n}"

# One Tab (direction 1) or Shift+Tab (-1) from `this` (the focused element, or the document's
# body): the element that would get the focus, or null when that cannot be told here (focus would
# leave the page or enter a frame). Sequential focus order: positive tabindex first, then tree
# order, open shadow trees in place of their host (and closed ones on the focused element's path).
TAB_STEP = r"""
function(direction) {
  const start = this;
  const doc = start.ownerDocument || start;
  const known = new Map();
  for (let node = start; node; ) {
    const root = node.getRootNode();
    if (root.nodeType !== 11) break;
    known.set(root.host, root);
    node = root.host;
  }
  const tabIndexOf = (e) => {
    if (e.hasAttribute('tabindex')) {
      const value = parseInt(e.getAttribute('tabindex'), 10);
      if (!Number.isNaN(value)) return value;
    }
    const tag = e.localName;
    if ((tag === 'a' || tag === 'area') && e.hasAttribute('href')) return 0;
    if (['button', 'select', 'textarea', 'iframe'].includes(tag)) return 0;
    if (tag === 'input') return String(e.getAttribute('type') || '').toLowerCase() === 'hidden' ? -1 : 0;
    if (tag === 'summary') return e.parentElement && e.parentElement.localName === 'details'
      && e.parentElement.querySelector(':scope > summary') === e ? 0 : -1;
    if ((tag === 'audio' || tag === 'video') && e.hasAttribute('controls')) return 0;
    if (e.isContentEditable && !(e.parentElement && e.parentElement.isContentEditable)) return 0;
    return -1;
  };
  const shown = (e) => (e.checkVisibility ? e.checkVisibility({ visibilityProperty: true })
    : e.getClientRects().length > 0);
  const radios = new Map();
  const items = [];
  const visit = (e) => {
    const index = tabIndexOf(e);
    if (index >= 0 && !e.matches(':disabled') && !e.closest('[inert]') && shown(e)) {
      if (e.localName === 'input' && e.type === 'radio' && e.name) {
        const key = (e.form ? 'f' : 'd') + e.name;
        if (!radios.has(key)) radios.set(key, []);
        radios.get(key).push(e);
      }
      items.push({ e, index });
    }
    const shadow = e.shadowRoot || known.get(e);
    if (shadow) walk(shadow);
    walk(e);
  };
  const walk = (root) => {
    for (let child = root.firstElementChild; child; child = child.nextElementSibling) visit(child);
  };
  walk(doc);
  // Of a radio group only the checked button (else the first) takes part in the Tab order.
  const skipped = new Set();
  for (const group of radios.values()) {
    const keep = group.find((r) => r.checked) || (direction > 0 ? group[0] : group[group.length - 1]);
    for (const r of group) if (r !== keep && r !== start) skipped.add(r);
  }
  const usable = items.filter((item) => !skipped.has(item.e));
  const order = [
    ...usable.filter((item) => item.index > 0).sort((a, b) => a.index - b.index),
    ...usable.filter((item) => item.index === 0),
  ].map((item) => item.e);
  let at = order.indexOf(start);
  if (at < 0) {
    if (start === doc || start === doc.body || start === doc.documentElement) {
      at = direction > 0 ? -1 : order.length;
    } else {
      const after = order.findIndex((e) => start.compareDocumentPosition(e) & 4);
      at = after < 0 ? order.length : after - (direction > 0 ? 1 : 0);
    }
  }
  const next = order[at + direction];
  if (!next || next.localName === 'iframe') return null;
  return next;
}
"""

# Where a frame element's document starts, in the viewport of the document holding it.
FRAME_BOX = r"""
function() {
  const box = this.getBoundingClientRect();
  const style = getComputedStyle(this);
  const pad = (side) => parseFloat(style['padding' + side] || '0');
  const left = box.left + this.clientLeft + pad('Left');
  const top = box.top + this.clientTop + pad('Top');
  return [left, top, this.clientWidth - pad('Left') - pad('Right'),
    this.clientHeight - pad('Top') - pad('Bottom')];
}
"""

SCROLL = "[window.scrollX, window.scrollY]"

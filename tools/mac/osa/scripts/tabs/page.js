// Reads or acts on the page in one tab of Safari or Google Chrome.
// Input: {"browser": "safari" | "chrome", "index": global 1-based index or null for the front
//         window's current tab, "expect_url": url or null, "op": "info" | "text" | "links" |
//         "click" | "fill" | "run_js", "args": {...} for the page function, "code": text for
//         run_js only, "settle_ms": how long to watch a click's page for a late change}.
// Output: {"title", "url", "result": what the page function returned (JSON text) or null,
//         for a click also "after": {"url", "title", "changed": whether the page's text
//         changed, "watched_ms"}} or {"problem": "not_running" | "no_window" | "no_such_tab" | "changed" |
//         "js_off"}.
//
// Data in, never code: the page functions below are constant. Their arguments reach the page
// as JSON text inside a string literal written with letters, digits and \uXXXX escapes only
// (see `literal`), so no value can end the literal or add code. run_js sends the person-approved
// code exactly as it was shown to them, and nothing else.

// Error numbers the browsers answer when JavaScript from Apple Events is turned off.
var JS_OFF = { safari: [8], chrome: [12] };

function pageText(args) {
  var body = document.body;
  var text = body ? String(body.innerText || body.textContent || "") : "";
  return JSON.stringify({ text: text.slice(0, args.max_chars), length: text.length });
}

function pageLinks(args) {
  var anchors = document.querySelectorAll("a[href]");
  var links = [];
  for (var i = 0; i < anchors.length && links.length < args.max_links; i++) {
    var label = String(anchors[i].innerText || anchors[i].textContent || "");
    links.push({
      text: label.replace(/\s+/g, " ").trim().slice(0, args.max_text),
      href: String(anchors[i].href).slice(0, args.max_href),
    });
  }
  return JSON.stringify({ links: links, total: anchors.length });
}

// `act(element, args)` on the first element `args.selector` matches, or the problem that it is
// no valid selector or matches nothing. It runs in the page around an element function.
function onElement(act, args) {
  var element;
  try {
    element = document.querySelector(args.selector);
  } catch (error) {
    return JSON.stringify({ problem: "bad_selector" });
  }
  if (!element) {
    return JSON.stringify({ problem: "not_found" });
  }
  return act(element, args);
}

// The page's text in short (its length and a hash), to see whether an action changed it.
function pageDigest() {
  var body = document.body;
  var text = body ? String(body.innerText || body.textContent || "") : "";
  var hash = 0;
  for (var i = 0; i < text.length; i++) {
    hash = (hash * 31 + text.charCodeAt(i)) | 0;
  }
  return text.length + ":" + hash;
}

// A page function runs in the page as its own text, so it cannot call pageDigest: the same
// digest is written out inside it.
function pageClick(element) {
  var digest = function () {
    var body = document.body;
    var text = body ? String(body.innerText || body.textContent || "") : "";
    var hash = 0;
    for (var i = 0; i < text.length; i++) {
      hash = (hash * 31 + text.charCodeAt(i)) | 0;
    }
    return text.length + ":" + hash;
  };
  if (element.scrollIntoView) {
    element.scrollIntoView();
  }
  var before = digest();
  element.click();
  return JSON.stringify({ done: String(element.tagName).toLowerCase(), before: before, after: digest() });
}

function pageFill(element, args) {
  var tag = String(element.tagName).toLowerCase();
  var kind = String(element.type || element.getAttribute("type") || "").toLowerCase();
  var autofill = String(element.getAttribute("autocomplete") || "").toLowerCase();
  if (kind === "password" || autofill.indexOf("password") >= 0) {
    return JSON.stringify({ problem: "password" });
  }
  var before;
  var value;
  if (tag === "input" || tag === "textarea") {
    before = String(element.value);
    element.focus();
    element.value = args.text;
    element.dispatchEvent(new Event("input", { bubbles: true }));
    element.dispatchEvent(new Event("change", { bubbles: true }));
    value = String(element.value);
  } else if (element.isContentEditable) {
    before = String(element.textContent);
    element.focus();
    element.textContent = args.text;
    element.dispatchEvent(new Event("input", { bubbles: true }));
    value = String(element.textContent);
  } else {
    return JSON.stringify({ problem: "not_fillable" });
  }
  // What the field holds after its own scripts ran (masks, maxlength, readonly), read back.
  return JSON.stringify({ done: tag, before: before.slice(0, args.max_value), value: value.slice(0, args.max_value), length: value.length });
}

// What clicking or filling `args.selector` would act on, for the approval: the element, its
// role and name, the form a click would submit and how, and whether it leads to a password.
function pageDescribe(element, args) {
  var clean = function (text) {
    return String(text || "").replace(/\s+/g, " ").trim().slice(0, 200);
  };
  var act = element;
  if (args.mode === "click" && act.closest) {
    act = act.closest("a[href], button, input, select, textarea, summary, label, [role], [onclick]") || act;
  }
  var label = act.localName === "label" ? act : act.closest ? act.closest("label") : null;
  var forwards = label && label.control ? label.control : null;
  if (args.mode === "fill" && forwards) {
    act = forwards;
  }
  var tag = String(act.localName || act.tagName || "").toLowerCase();
  var type = tag === "input" ? String(act.getAttribute("type") || "text").toLowerCase()
    : tag === "button" ? String(act.type || "submit").toLowerCase() : "";
  var isPassword = function (e) {
    return !!e && String(e.localName).toLowerCase() === "input"
      && (String(e.type).toLowerCase() === "password"
          || /(current|new)-password/i.test(e.getAttribute("autocomplete") || ""));
  };
  var form = act.form || (tag === "form" ? act : null);
  var submits = !!form && ((tag === "button" && type === "submit")
    || (tag === "input" && (type === "submit" || type === "image")));
  var role = clean(act.getAttribute("role")).split(" ")[0].toLowerCase();
  if (!role) {
    role = tag === "a" && act.hasAttribute("href") ? "link"
      : tag === "button" || (tag === "input" && ["submit", "image", "button", "reset"].indexOf(type) >= 0) ? "button"
      : tag === "input" || tag === "textarea" ? "textbox" : tag === "select" ? "combobox" : "generic";
  }
  var text = clean(act.textContent);
  var name = clean(act.getAttribute("aria-label")) || (tag === "input" ? clean(act.value) : "")
    || (act.labels && act.labels.length ? clean(act.labels[0].textContent) : "") || text
    || clean(act.getAttribute("title"));
  return JSON.stringify({
    tag: tag,
    role: role,
    name: name,
    words: clean([text, act.getAttribute("title"), tag === "input" ? act.value : ""].join(" ")),
    input_type: type,
    href: tag === "a" && act.hasAttribute("href") ? String(act.href) : null,
    form_method: submits ? String(act.getAttribute("formmethod") || form.getAttribute("method") || "get").toLowerCase() : null,
    form_action: submits ? String(form.action) : null,
    submits: submits,
    editable: tag === "textarea" || !!act.isContentEditable || (tag === "input" && role === "textbox"),
    password: isPassword(act) || isPassword(element) || isPassword(forwards),
    activates: role !== "generic" && role !== "textbox",
    interactive: role !== "generic"
  });
}

var PAGE_FUNCTIONS = {
  text: pageText,
  links: pageLinks
};

// Page functions of one element, which `onElement` finds for them.
var ELEMENT_FUNCTIONS = {
  click: pageClick,
  fill: pageFill,
  describe: pageDescribe
};

// `text` as a JavaScript string literal made of letters, digits and \uXXXX escapes only.
function literal(text) {
  var out = '"';
  for (var i = 0; i < text.length; i++) {
    var code = text.charCodeAt(i);
    var plain = (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
    out += plain ? text.charAt(i) : "\\u" + ("0000" + code.toString(16)).slice(-4);
  }
  return out + '"';
}

// The page source for a constant page function applied to `args` (JSON data).
function pageSource(fn, args) {
  return "(" + fn.toString() + ")(JSON.parse(" + literal(JSON.stringify(args)) + "))";
}

// The page source for a constant element function applied, through `onElement`, to the
// element `args.selector` finds.
function elementSource(fn, args) {
  return "(" + onElement.toString() + ")(" + fn.toString() + ", JSON.parse("
    + literal(JSON.stringify(args)) + "))";
}

// The one way into a page: `source` is run_js's approved code or a constant page function
// applied to JSON data (pageSource, elementSource).
function inPage(app, tab, safari, source) {
  return safari ? app.doJavaScript(source, { in: tab }) : tab.execute({ javascript: source });
}

// The tab after a click: at once when the click changed the page's text, else once its address
// or its text changes, or `settleMs` has passed (a late "Saved", a navigation starting).
function afterClick(app, tab, safari, url, answer, settleMs) {
  var facts = null;
  try {
    facts = answer === null ? null : JSON.parse(answer);
  } catch (error) {
    facts = null;
  }
  if (facts === null || typeof facts.before !== "string") {
    return null;
  }
  var changed = facts.after !== facts.before;
  var waited = 0;
  while (!changed && tab.url() === url && waited < settleMs) {
    delay(0.15);
    waited += 150;
    var now = inPage(app, tab, safari, pageSource(pageDigest, {}));
    changed = typeof now === "string" && now !== facts.before;
  }
  return { url: tab.url(), title: titleOf(tab, safari), changed: changed, watched_ms: settleMs };
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  return onRunningBrowser(input, function (app, safari) {
    var found = locateTab(app, input.index);
    if (found.problem) {
      return JSON.stringify({ problem: found.problem });
    }
    var tab = tabOf(found, safari);
    var url = tab.url();
    var title = titleOf(tab, safari);
    if (typeof input.expect_url === "string" && url !== input.expect_url) {
      return JSON.stringify({ problem: "changed" });
    }
    if (input.op === "info") {
      return JSON.stringify({ title: title, url: url, result: null });
    }
    var source;
    if (input.op === "run_js") {
      source = input.code;
    } else if (PAGE_FUNCTIONS.hasOwnProperty(input.op)) {
      source = pageSource(PAGE_FUNCTIONS[input.op], input.args);
    } else if (ELEMENT_FUNCTIONS.hasOwnProperty(input.op)) {
      source = elementSource(ELEMENT_FUNCTIONS[input.op], input.args);
    } else {
      return JSON.stringify({ problem: "bad_op" });
    }
    var result;
    try {
      result = inPage(app, tab, safari, source);
    } catch (error) {
      var numbers = JS_OFF[input.browser] || [];
      if (error && numbers.indexOf(error.errorNumber) >= 0) {
        return JSON.stringify({ problem: "js_off" });
      }
      throw error;
    }
    if (input.op === "click") {
      var answer = typeof result === "string" ? result : null;
      return JSON.stringify({ title: title, url: url, result: answer, after: afterClick(app, tab, safari, url, answer, input.settle_ms) });
    }
    if (input.op === "run_js") {
      var shown = result === undefined || result === null ? null : JSON.stringify(result);
      return JSON.stringify({ title: title, url: url, result: shown === undefined ? null : shown });
    }
    return JSON.stringify({ title: title, url: url, result: typeof result === "string" ? result : null });
  });
}

// SIMULATION of web pages inside browser tabs, for the JXA stand-in (standin.js).
//
// A tab in a world file may hold a "page": {"text": visible text, "links": [{"text", "href"}],
// "elements": [{"selector": "#q", "tag": "input", "type": "text", "value": ""}]}. Safari's
// `doJavaScript` and Chrome's `execute` run the given source in a fresh Node vm context whose
// `document` and `location` are built from that record; fills and clicks are written back to it.
// Only the few DOM calls Deskhand's constant page functions use are simulated.
// An element may misbehave the way real pages do: "readonly": true keeps its value, "strip":
// a regular expression its script removes from what is typed; a click may "navigate": url,
// "show": text added to the page at once, or "show_late": {"text", "after_ms"} added later.
"use strict";

const vm = require("vm");

class FakeEvent {
  constructor(type, options) {
    this.type = type;
    this.bubbles = Boolean(options && options.bubbles);
  }
}

function element(record, tab) {
  record.events = record.events || [];
  return {
    get tagName() {
      return String(record.tag || "div").toUpperCase();
    },
    get type() {
      return record.type || "";
    },
    get value() {
      return record.value || "";
    },
    set value(text) {
      if (record.readonly) {
        return;
      }
      record.value = record.strip ? String(text).replace(new RegExp(record.strip, "g"), "") : String(text);
    },
    get isContentEditable() {
      return Boolean(record.editable);
    },
    get textContent() {
      return record.text || "";
    },
    set textContent(text) {
      record.text = String(text);
    },
    get disabled() {
      return Boolean(record.disabled);
    },
    get localName() {
      return String(record.tag || "div").toLowerCase();
    },
    // A record's "form": {"method", "action"} is the form the element belongs to.
    get form() {
      const form = record.form;
      if (!form) {
        return null;
      }
      return {
        action: form.action || "",
        getAttribute: (name) => (typeof form[name] === "string" ? form[name] : null),
      };
    },
    get labels() {
      return [];
    },
    closest() {
      return null; // the simulated page is flat: every element stands alone
    },
    hasAttribute(name) {
      return typeof record[name] === "string";
    },
    getAttribute(name) {
      const value = record[name === "aria-label" ? "label" : name];
      return typeof value === "string" ? value : null;
    },
    focus() {
      record.focused = true;
    },
    scrollIntoView() {},
    click() {
      record.clicks = (record.clicks || 0) + 1;
      const page = tab.page;
      if (typeof record.show === "string") {
        page.text = `${page.text || ""}\n${record.show}`;
      }
      if (record.show_late) {
        page.late = { text: record.show_late.text, at: Date.now() + record.show_late.after_ms };
      }
      if (typeof record.navigate === "string") {
        tab.url = record.navigate;
      }
    },
    dispatchEvent(event) {
      record.events.push(event.type);
      return true;
    },
  };
}

function pageDocument(tab) {
  const page = tab.page || {};
  const elements = page.elements || [];
  const links = (page.links || []).map((link) => ({
    get href() {
      return link.href;
    },
    get innerText() {
      return link.text;
    },
    get textContent() {
      return link.text;
    },
  }));
  const find = (selector) => elements.filter((item) => item.selector === String(selector));
  const text = () => {
    const late = page.late && Date.now() >= page.late.at ? `\n${page.late.text}` : "";
    return (page.text || "") + late;
  };
  return {
    get title() {
      return tab.name !== undefined ? tab.name : tab.title;
    },
    body: {
      get innerText() {
        return text();
      },
      get textContent() {
        return text();
      },
    },
    querySelector(selector) {
      if (typeof selector !== "string" || selector.trim() === "" || selector.includes("!!")) {
        const error = new Error(`'${selector}' is not a valid selector.`);
        error.name = "SyntaxError";
        throw error;
      }
      const found = find(selector);
      return found.length > 0 ? element(found[0], tab) : null;
    },
    querySelectorAll(selector) {
      if (selector === "a[href]") {
        return links;
      }
      return find(selector).map((item) => element(item, tab));
    },
  };
}

// Runs `source` as the page's JavaScript; what the last expression gives, as the browsers do
// (undefined becomes null, Apple's "missing value").
function runInPage(source, tab) {
  const document = pageDocument(tab);
  const context = vm.createContext({
    document,
    location: { href: tab.url || "" },
    Event: FakeEvent,
    window: {},
  });
  let result;
  try {
    result = vm.runInContext(source, context, { timeout: 2000 });
  } catch (error) {
    return null; // a page exception reaches AppleScript as missing value
  }
  if (result === undefined) {
    return null;
  }
  return typeof result === "object" && result !== null ? JSON.parse(JSON.stringify(result)) : result;
}

// After a tab closes: windows without tabs go away, and each window's current tab stays valid.
function afterClose(app) {
  if (!Array.isArray(app.windows)) {
    return;
  }
  app.windows = app.windows.filter((win) => !Array.isArray(win.tabs) || win.tabs.length > 0);
  app.windows.forEach((win, index) => {
    if (!Array.isArray(win.tabs)) {
      return;
    }
    if (typeof win.activeTabIndex === "number") {
      win.activeTabIndex = Math.min(win.activeTabIndex, win.tabs.length);
    }
    if (win.currentTab && Array.isArray(win.currentTab.$ref)) {
      const old = win.currentTab.$ref[3];
      win.currentTab = { $ref: ["windows", index, "tabs", Math.min(old, win.tabs.length - 1)] };
    }
  });
}

// Safari: setting a window's current tab makes that tab the visible one.
function afterSet(record, key, value) {
  if (key === "currentTab" && value && Array.isArray(value.$ref) && Array.isArray(record.tabs)) {
    const index = value.$ref[value.$ref.length - 1];
    record.tabs.forEach((tab, i) => {
      tab.visible = i === index;
    });
  }
}

module.exports = { runInPage, afterClose, afterSet };

// SIMULATION of the JXA runtime (JavaScript for Automation) for tests on machines without macOS.
//
// This is not Apple's code and proves nothing about real apps: it runs Deskhand's constant JXA
// scripts under Node against app object models that each test scripts as a JSON "world" file
// (path in the DESKHAND_JXA_WORLD environment variable). It follows JXA's conventions closely
// enough to exercise the scripts' logic:
//   - `Application(name)` returns an app whose properties are functions: `app.name()` gets,
//     `app.calendars` is an element array (call it for specifiers, `.whose({...})`, `.byName()`,
//     `[i]`, `.length`, bulk property gets such as `events.summary()`, `.push(app.Event({...}))`).
//   - `app.running()`, `app.activate()`, `includeStandardAdditions` (needed for
//     `displayNotification`, `doShellScript`), `Application.currentApplication()`, `Path()`,
//     `delay()`, `console.log` (to stderr, as in JXA).
//   - `ObjC.import`, `ObjC.unwrap` and `$` for the few Foundation/AppKit calls the scripts use
//     (NSFileHandle stdin/stdout, NSString, NSFileManager, NSPasteboard, NSProcessInfo, exit).
//   - Apple Event errors scripted per test (`"errors": [{"app": "Mail", "number": -1743}]`) are
//     thrown with `errorNumber` and Apple's message text, as JXA does.
//
// World file: {"apps": {"Calendar": {...object tree...}}, "installed": [app names],
//   "errors": [...], "clipboard": text or null, "notifications": [], "log": []}.
// "commands": {"Finder": {"duplicate": result}} adds commands a test scripts for an app (as a
// scripting dictionary would define them): each call is logged with its receiver's steps and
// its arguments (object specifiers as {"$specifier": steps}, Path() values as {"$path": text})
// and answers the scripted result.
// Values: {"$date": ISO text} is a date; {"$ref": [key or index, ...]} points elsewhere in the
// same app; {"$all": [listKey, childListKey]} concatenates a child list over a list (Notes'
// app-level folders over its accounts); {"$record": {...}} is a record value, such as a window's
// bounds ({x, y, width, height}), read as a plain object rather than as an element. Scripts'
// changes are written back at once.
// Fakes for read-back tests: "ignore": [{"app": "Mail", "command": "send"}] makes an app accept
// a command and do nothing ("make" for `push`; app "Pasteboard" for the clipboard), and
// "drops": {"Reminders": ["dueDate"]} makes an app leave those properties out of what it
// makes or sets.
"use strict";

const fs = require("fs");
const path = require("path");
const vm = require("vm");
const childProcess = require("child_process");
const pages = require("./pages.js");

const KNOWN_APPS = new Set([
  "Calendar", "Reminders", "Notes", "Mail", "Finder", "System Events", "Safari", "TextEdit",
  "Terminal", "Music", "Photos", "Messages", "Preview", "Maps", "System Settings",
]);

const COMMANDS = new Set([
  "activate", "launch", "quit", "send", "save", "reveal", "delete", "displayNotification",
  "theClipboard", "setTheClipboardTo", "doShellScript", "close", "doJavaScript", "execute",
  "make",
]);

// Element arrays an app always has, even when a test's world leaves them out (empty).
const ELEMENTS = new Set([
  "calendars", "events", "lists", "reminders", "accounts", "folders", "notes", "mailboxes",
  "messages", "outgoingMessages", "toRecipients", "ccRecipients", "bccRecipients", "windows",
  "documents", "tabs", "processes", "applicationProcesses",
]);

const STANDARD_ADDITIONS = new Set([
  "displayNotification", "theClipboard", "setTheClipboardTo", "doShellScript",
]);

function defaultMessage(number, app) {
  switch (number) {
    case -1743:
    case -1744:
      return `Not authorized to send Apple events to ${app}.`;
    case -600:
      return "Application isn't running.";
    case -1728:
      return "Can't get object.";
    case -1719:
      return "Invalid index.";
    case -1712:
      return "AppleEvent timed out.";
    case -1708:
      return "Message not understood.";
    case -10814:
    case -10827:
      return `The operation couldn\u2019t be completed. (OSStatus error ${number}.)`;
    default:
      return "An error occurred.";
  }
}

function appleError(number, message) {
  const error = new Error(message);
  error.errorNumber = number;
  return error;
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isDate(value) {
  return Object.prototype.toString.call(value) === "[object Date]";
}

function isRecord(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !isDate(value);
}

// --- the world file ------------------------------------------------------------------------

function revive(value) {
  if (Array.isArray(value)) {
    return value.map(revive);
  }
  if (isRecord(value)) {
    if (typeof value.$date === "string") {
      return new Date(value.$date);
    }
    const out = {};
    for (const key of Object.keys(value)) {
      out[key] = revive(value[key]);
    }
    return out;
  }
  return value;
}

function encode(value) {
  if (isDate(value)) {
    return { $date: new Date(value.getTime()).toISOString() };
  }
  if (Array.isArray(value)) {
    return value.map(encode);
  }
  if (value && typeof value === "object" && typeof value.__path === "string") {
    return value.__path;
  }
  if (value && typeof value === "object" && value.__nsstring !== undefined) {
    return value.__nsstring;
  }
  if (isRecord(value)) {
    const out = {};
    for (const key of Object.keys(value)) {
      if (typeof value[key] !== "function") {
        out[key] = encode(value[key]);
      }
    }
    return out;
  }
  return value;
}

class World {
  constructor(file) {
    this.file = file;
    this.stamp = null;
    this.data = null;
    this.reload();
  }

  reload() {
    if (!this.file) {
      if (this.data === null) {
        this.data = {};
      }
      this.normalize();
      return;
    }
    let stat;
    try {
      stat = fs.statSync(this.file);
    } catch (error) {
      this.data = this.data || {};
      this.normalize();
      return;
    }
    const stamp = `${stat.mtimeMs}:${stat.size}`;
    if (stamp !== this.stamp) {
      this.data = revive(JSON.parse(fs.readFileSync(this.file, "utf8")));
      this.stamp = stamp;
    }
    this.normalize();
  }

  normalize() {
    const data = this.data;
    data.apps = data.apps || {};
    data.installed = data.installed || [];
    data.errors = data.errors || [];
    data.notifications = data.notifications || [];
    data.log = data.log || [];
    if (!("clipboard" in data)) {
      data.clipboard = null;
    }
    data.nextId = data.nextId || 1;
  }

  save() {
    if (!this.file) {
      return;
    }
    const temporary = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify(encode(this.data), null, 1));
    fs.renameSync(temporary, this.file);
    const stat = fs.statSync(this.file);
    this.stamp = `${stat.mtimeMs}:${stat.size}`;
  }

  app(name) {
    if (!this.data.apps[name]) {
      this.data.apps[name] = {};
    }
    return this.data.apps[name];
  }

  // Throws the Apple Event error a test scripted for this app, if any.
  checkErrors(appName, command) {
    const errors = this.data.errors;
    for (let i = 0; i < errors.length; i++) {
      const entry = errors[i];
      if (entry.app !== appName || (entry.command && entry.command !== command)) {
        continue;
      }
      if (typeof entry.times === "number") {
        entry.times -= 1;
        if (entry.times <= 0) {
          errors.splice(i, 1);
        }
        this.save();
      }
      throw appleError(entry.number, entry.message || defaultMessage(entry.number, appName));
    }
  }

  log(entry) {
    this.data.log.push(entry);
    this.save();
  }

  // Whether a test scripted `appName` to accept `command` and do nothing.
  ignores(appName, command) {
    return (this.data.ignore || []).some(
      (entry) => entry.app === appName && (!entry.command || entry.command === command)
    );
  }

  // The properties a test scripted `appName` to leave out of what it makes or sets.
  drops(appName) {
    return (this.data.drops || {})[appName] || [];
  }
}

// --- object specifiers ---------------------------------------------------------------------

const OPERATORS = {
  _equals: (a, b) => compare(a, b) === 0,
  _contains: (a, b) => typeof a === "string" && a.includes(b),
  _beginsWith: (a, b) => typeof a === "string" && a.startsWith(b),
  _endsWith: (a, b) => typeof a === "string" && a.endsWith(b),
  _lessThan: (a, b) => compare(a, b) < 0,
  _lessThanEquals: (a, b) => compare(a, b) <= 0,
  _greaterThan: (a, b) => compare(a, b) > 0,
  _greaterThanEquals: (a, b) => compare(a, b) >= 0,
};

function comparable(value) {
  return isDate(value) ? value.getTime() : value;
}

function compare(a, b) {
  const x = comparable(a);
  const y = comparable(b);
  if (x === y) {
    return 0;
  }
  if (x === null || x === undefined || y === null || y === undefined) {
    return NaN;
  }
  return x < y ? -1 : x > y ? 1 : NaN;
}

function matches(record, filter) {
  for (const key of Object.keys(filter)) {
    const condition = filter[key];
    if (key === "_and") {
      if (!condition.every((part) => matches(record, part))) {
        return false;
      }
      continue;
    }
    if (key === "_or") {
      if (!condition.some((part) => matches(record, part))) {
        return false;
      }
      continue;
    }
    if (key === "_not") {
      if (condition.some((part) => matches(record, part))) {
        return false;
      }
      continue;
    }
    const value = record[key];
    if (isRecord(condition)) {
      for (const op of Object.keys(condition)) {
        const test = OPERATORS[op];
        if (!test) {
          throw appleError(-1700, `Unsupported whose operator ${op}.`);
        }
        if (!test(value, condition[op])) {
          return false;
        }
      }
    } else if (compare(value, condition) !== 0) {
      return false;
    }
  }
  return true;
}

function copyOut(value) {
  if (isDate(value)) {
    return new Date(value.getTime());
  }
  if (value === undefined) {
    return null;
  }
  return value;
}

class AppContext {
  constructor(world, name, current) {
    this.world = world;
    this.name = name;
    this.current = current; // Application.currentApplication(): no Apple Events, no errors
    this.standardAdditions = false;
  }

  // A command the test's world scripts for this app (see "commands" above).
  scripted(name) {
    const table = (this.world.data.commands || {})[this.name];
    return Boolean(table) && Object.prototype.hasOwnProperty.call(table, name);
  }

  root() {
    return this.current ? {} : this.world.app(this.name);
  }

  event(command) {
    if (!this.current) {
      this.world.checkErrors(this.name, command);
    }
  }

  follow(raw) {
    if (isRecord(raw) && Array.isArray(raw.$ref)) {
      let value = this.root();
      for (const key of raw.$ref) {
        value = value === null || value === undefined ? undefined : value[key];
      }
      if (value === undefined) {
        throw appleError(-1728, defaultMessage(-1728));
      }
      return value;
    }
    if (isRecord(raw) && Array.isArray(raw.$all)) {
      const [listKey, childKey] = raw.$all;
      const out = [];
      for (const parent of this.root()[listKey] || []) {
        for (const child of parent[childKey] || []) {
          out.push(child);
        }
      }
      return out;
    }
    return raw;
  }

  // Resolves a path of steps to {many, value}; `many` marks a bulk get over an element array.
  resolve(steps) {
    let many = false;
    let value = this.root();
    for (const step of steps) {
      const [kind, arg] = step;
      if (kind === "prop" && Array.isArray(value)) {
        value = value.map((item) => copyOut(this.follow(isRecord(item) ? item[arg] : undefined)));
        many = true;
        continue;
      }
      if (many) {
        throw appleError(-1728, defaultMessage(-1728));
      }
      if (kind === "prop") {
        if (!isRecord(value)) {
          throw appleError(-1728, defaultMessage(-1728));
        }
        value = this.follow(value[arg]);
        if ((value === undefined || value === null) && ELEMENTS.has(arg)) {
          value = [];
        }
        continue;
      }
      const list = value === null || value === undefined ? [] : value;
      if (!Array.isArray(list)) {
        throw appleError(-1728, defaultMessage(-1728));
      }
      if (kind === "index") {
        const index = arg < 0 ? list.length + arg : arg;
        if (!(index >= 0 && index < list.length)) {
          throw appleError(-1719, defaultMessage(-1719));
        }
        value = list[index];
      } else if (kind === "name" || kind === "id") {
        const key = kind;
        value = list.find((item) => isRecord(item) && item[key] === arg);
        if (value === undefined) {
          throw appleError(-1728, defaultMessage(-1728));
        }
      } else if (kind === "whose") {
        value = list.filter((item) => isRecord(item) && matches(item, arg));
      }
    }
    return { many, value };
  }

  get(steps) {
    this.event("get");
    const { many, value } = this.resolve(steps);
    if (many) {
      return value.map(copyOut);
    }
    if (Array.isArray(value) && value.length > 0 && value.every((item) => !isRecord(item))) {
      return value.map(copyOut); // a list value such as a window's position, not elements
    }
    if (isRecord(value) && isRecord(value.$record)) {
      return copyOut(value.$record); // a record value such as a window's bounds
    }
    if (Array.isArray(value)) {
      return value.map((item, i) =>
        makeSpecifier(this, steps.concat([isRecord(item) && item.id !== undefined ? ["id", item.id] : ["index", i]]))
      );
    }
    if (isRecord(value)) {
      return makeSpecifier(this, steps);
    }
    return copyOut(value);
  }

  exists(steps) {
    this.event("exists");
    try {
      const { value } = this.resolve(steps);
      return value !== null && value !== undefined;
    } catch (error) {
      if (error.errorNumber === -1728 || error.errorNumber === -1719) {
        return false;
      }
      throw error;
    }
  }

  // `specifier.properties()`: the object's plain values as one record (its elements left out).
  properties(steps) {
    this.event("get");
    const { many, value } = this.resolve(steps);
    if (many || !isRecord(value)) {
      throw appleError(-1728, defaultMessage(-1728));
    }
    const out = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (isRecord(item) && isRecord(item.$record)) {
        out[key] = copyOut(item.$record);
      } else if (!Array.isArray(item) && !isRecord(item)) {
        out[key] = copyOut(item);
      }
    }
    return out;
  }

  // `app.make({new: "event", at: container, withProperties: {...}})`: the new object inside
  // the container's element array named after its class ("events"), as a specifier by its id.
  make(args) {
    const options = args[0] || {};
    const at = options.at;
    if (typeof options.new !== "string" || typeof at !== "function" || !at.__steps) {
      throw appleError(-1708, defaultMessage(-1708));
    }
    const container = this.resolve(at.__steps()).value;
    if (!isRecord(container)) {
      throw appleError(-1728, defaultMessage(-1728));
    }
    const listKey = `${options.new}s`;
    const props = Object.assign({}, options.withProperties || {});
    const record = this.record({ className: options.new, props });
    const entry = { app: this.name, command: "make", class: options.new, id: record.id };
    if (this.world.ignores(this.name, "make")) {
      entry.ignored = true; // it answers with a new object's id, and keeps nothing
    } else {
      container[listKey] = container[listKey] || [];
      container[listKey].push(record);
    }
    this.world.log(entry);
    return makeSpecifier(this, at.__steps().concat([["prop", listKey], ["id", record.id]]));
  }

  count(steps) {
    this.event("count");
    const { value } = this.resolve(steps);
    if (Array.isArray(value)) {
      return value.length;
    }
    return value === null || value === undefined ? 0 : 1;
  }

  // `list.push(app.Thing({...}))`: makes the new object inside the element array.
  push(steps, maker) {
    this.event("make");
    if (!maker || !maker.__maker) {
      throw appleError(-1700, "Can't make that into an object.");
    }
    const state = maker.__maker;
    const last = steps[steps.length - 1];
    if (!last || last[0] !== "prop") {
      throw appleError(-10000, "Can't make an element there.");
    }
    const parent = this.resolve(steps.slice(0, -1)).value;
    if (!isRecord(parent)) {
      throw appleError(-1728, defaultMessage(-1728));
    }
    if (parent[last[1]] === undefined || parent[last[1]] === null) {
      parent[last[1]] = [];
    }
    const list = parent[last[1]];
    if (!Array.isArray(list)) {
      throw appleError(-10000, "Can't make an element there.");
    }
    const record = this.record(state);
    if (this.world.drops(this.name).includes(last[1])) {
      this.world.log({ app: this.name, command: "make", property: last[1], dropped: true });
      return list.length;
    }
    if (this.world.ignores(this.name, "make")) {
      // The app answers with an id, but keeps nothing under it.
      state.ghostId = record.id;
      this.world.log({ app: this.name, command: "make", ignored: true });
      return list.length;
    }
    list.push(record);
    state.bound = steps.concat([["id", record.id]]);
    this.world.save();
    return list.length;
  }

  record(state) {
    const record = {};
    for (const key of Object.keys(state.props)) {
      const value = state.props[key];
      if (Array.isArray(value)) {
        record[key] = value.map((item) => (item && item.__maker ? this.record(item.__maker) : item));
      } else {
        record[key] = value && value.__nsstring !== undefined ? value.__nsstring : value;
      }
    }
    for (const key of this.world.drops(this.name)) {
      delete record[key];
    }
    record.class = state.className;
    if (record.id === undefined) {
      record.id = `x-standin://${this.name}/${state.className}/${this.world.data.nextId++}`;
    }
    if (this.name === "Notes" && state.className === "note" && typeof record.body === "string") {
      record.plaintext = notesPlaintext(record.body);
      record.name = record.plaintext.split("\n")[0];
    }
    return record;
  }

  command(steps, name, args) {
    if (STANDARD_ADDITIONS.has(name)) {
      if (!this.standardAdditions) {
        throw appleError(-1708, defaultMessage(-1708));
      }
      return this.standardAddition(name, args);
    }
    this.event(name);
    const world = this.world;
    const entry = { app: this.name, command: name, args: encode(args) };
    if (this.world.ignores(this.name, name) && name !== "make") {
      entry.ignored = true;
      world.log(entry);
      return name === "send" ? true : undefined;
    }
    if (name === "activate" || name === "launch") {
      const app = this.root();
      app.running = true;
      if (name === "activate") {
        app.frontmost = true;
      }
      world.log(entry);
      return undefined;
    }
    if (name === "quit") {
      this.root().running = false;
      world.log(entry);
      return undefined;
    }
    const { value } = this.resolve(steps);
    entry.target = isRecord(value) ? value.id : null;
    if (name === "send") {
      const app = this.root();
      const outgoing = app.outgoingMessages || [];
      const index = outgoing.indexOf(value);
      if (index >= 0) {
        outgoing.splice(index, 1);
      }
      value.dateSent = new Date();
      if (isRecord(app.sentMailbox)) {
        value.mailbox = { $ref: ["sentMailbox"] };
      }
      app.sent = app.sent || [];
      app.sent.push(value);
      world.log(entry);
      return true;
    }
    if (name === "save") {
      value.saved = true;
      world.log(entry);
      return undefined;
    }
    if (name === "delete") {
      const parent = this.resolve(steps.slice(0, -1)).value;
      if (Array.isArray(parent)) {
        parent.splice(parent.indexOf(value), 1);
      }
      world.log(entry);
      return undefined;
    }
    if (name === "close") {
      const parent = this.resolve(steps.slice(0, -1)).value;
      if (!Array.isArray(parent) || parent.indexOf(value) < 0) {
        throw appleError(-1728, defaultMessage(-1728));
      }
      parent.splice(parent.indexOf(value), 1);
      pages.afterClose(this.root());
      world.log(entry);
      return undefined;
    }
    if (name === "doJavaScript" || name === "execute") {
      // Safari: app.doJavaScript(source, {in: tab}); Chrome: tab.execute({javascript: source}).
      let tab = value;
      let source = args[0] && args[0].javascript;
      if (name === "doJavaScript") {
        const where = args[1] && args[1].in;
        tab = where && where.__steps ? this.resolve(where.__steps()).value : null;
        source = args[0];
        entry.target = isRecord(tab) ? tab.id || null : null;
      }
      if (!isRecord(tab) || typeof source !== "string") {
        throw appleError(-1728, defaultMessage(-1728));
      }
      entry.args = [source.length];
      const result = pages.runInPage(source, tab);
      world.log(entry);
      return result;
    }
    if (name === "make" && !this.scripted(name)) {
      return this.make(args);
    }
    if (name === "reveal") {
      const app = this.root();
      app.revealed = app.revealed || [];
      app.revealed.push(String(args[0]));
      const file = String(args[0]);
      app.selection = [{ name: path.basename(file), url: `file://${encodeURI(file)}` }];
      world.log(entry);
      return undefined;
    }
    if (this.scripted(name)) {
      entry.steps = steps;
      entry.args = args.map(encodeArgument);
      world.log(entry);
      return world.data.commands[this.name][name];
    }
    throw appleError(-1708, defaultMessage(-1708));
  }

  // `specifier.prop = value`: stores the value (another object becomes a {"$ref": path}).
  setProperty(steps, key, value) {
    this.event("set");
    const record = this.resolve(steps).value;
    if (!isRecord(record)) {
      throw appleError(-10003, "Access not allowed.");
    }
    let stored = value;
    let target = null;
    if (typeof value === "function") {
      const maker = value.__maker;
      if (maker) {
        target = Array.isArray(maker.bound) ? maker.bound : null; // a made object, once pushed
      } else {
        target = value.__steps(); // an object specifier
      }
    }
    if (target) {
      stored = { $ref: this.indexPath(target) };
    } else {
      stored = encode(value);
    }
    if (this.world.drops(this.name).includes(key)) {
      this.world.log({ app: this.name, command: "set", property: key, dropped: true });
      return true;
    }
    record[key] = stored;
    pages.afterSet(record, key, stored);
    this.world.log({ app: this.name, command: "set", property: key, value: stored });
    return true;
  }

  // A path of keys and indices (for $ref) for steps that may name elements by id or name.
  indexPath(steps) {
    const out = [];
    let value = this.root();
    for (const [kind, arg] of steps) {
      if (kind === "prop") {
        out.push(arg);
        value = this.follow(value[arg]);
      } else if (kind === "index" || kind === "id" || kind === "name") {
        const list = value || [];
        let index = arg;
        if (kind !== "index") {
          index = list.findIndex((item) => isRecord(item) && item[kind] === arg);
        } else if (index < 0) {
          index += list.length;
        }
        out.push(index);
        value = list[index];
      } else {
        throw appleError(-1728, defaultMessage(-1728));
      }
    }
    return out;
  }

  standardAddition(name, args) {
    const world = this.world;
    if (name === "displayNotification") {
      const options = args[1] || {};
      world.data.notifications.push({
        text: args[0],
        title: options.withTitle === undefined ? null : options.withTitle,
        subtitle: options.subtitle === undefined ? null : options.subtitle,
      });
      world.save();
      return undefined;
    }
    if (name === "theClipboard") {
      return world.data.clipboard;
    }
    if (name === "setTheClipboardTo") {
      world.data.clipboard = String(args[0]);
      world.save();
      return undefined;
    }
    if (name === "doShellScript") {
      const out = childProcess.execFileSync("/bin/sh", ["-c", String(args[0])], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      });
      return out.replace(/\n$/, "").replace(/\n/g, "\r");
    }
    return undefined;
  }
}

// Notes derives a note's plain text (and its name, the first line) from the body's HTML.
function notesPlaintext(html) {
  const lines = [];
  const pattern = /<div>([\s\S]*?)<\/div>/g;
  let match;
  while ((match = pattern.exec(html)) !== null) {
    const inner = match[1].replace(/<\/?h1>/g, "");
    lines.push(inner === "<br>" ? "" : inner);
  }
  const text = lines.length > 0 ? lines.join("\n") : html;
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

// A command's argument for the log: object specifiers as their steps, made values as they are.
function encodeArgument(value) {
  if (typeof value === "function" && value.__maker === undefined) {
    return { $specifier: value.__steps() };
  }
  if (Array.isArray(value)) {
    return value.map(encodeArgument);
  }
  if (isRecord(value) && typeof value.__path === "string") {
    return { $path: value.__path };
  }
  if (isRecord(value) && value.__nsstring === undefined) {
    const out = {};
    for (const key of Object.keys(value)) {
      out[key] = encodeArgument(value[key]);
    }
    return out;
  }
  return encode(value);
}

// What JXA's Automation.getDisplayString shows for a specifier.
function display(context, steps) {
  let text = `Application(${JSON.stringify(context.name)})`;
  for (const [kind, arg] of steps) {
    if (kind === "prop") {
      text += `.${arg}`;
    } else if (kind === "name") {
      text += `.byName(${JSON.stringify(arg)})`;
    } else if (kind === "id") {
      text += `.byId(${JSON.stringify(arg)})`;
    } else if (kind === "index") {
      text += `[${arg}]`;
    } else {
      text += ".whose(...)";
    }
  }
  return text;
}

function describe(context, steps) {
  let text = `Application("${context.name}")`;
  for (const [kind, arg] of steps) {
    text += kind === "prop" ? `.${arg}` : kind === "whose" ? ".whose(...)" : `[${JSON.stringify(arg)}]`;
  }
  return text;
}

function makeSpecifier(context, steps) {
  const target = function () {};
  return new Proxy(target, {
    apply(_target, _this, args) {
      if (args.length > 0) {
        throw appleError(-1708, defaultMessage(-1708));
      }
      return context.get(steps);
    },
    set(_target, key, value) {
      if (key === "includeStandardAdditions" && steps.length === 0) {
        context.standardAdditions = Boolean(value);
        return true;
      }
      if (steps.length > 0 && typeof key === "string") {
        return context.setProperty(steps, key, value);
      }
      throw appleError(-10003, "Access not allowed.");
    },
    get(_target, key) {
      if (typeof key === "symbol") {
        if (key === Symbol.toPrimitive) {
          return () => describe(context, steps);
        }
        return undefined;
      }
      if (key === "toString") {
        return () => describe(context, steps);
      }
      if (key === "__steps") {
        return () => steps;
      }
      if (key === "__display") {
        return () => display(context, steps);
      }
      if (key === "__maker") {
        return undefined; // only made objects (makeMaker) have one
      }
      if (key === "includeStandardAdditions" && steps.length === 0) {
        return context.standardAdditions;
      }
      if (key === "running" && steps.length === 0) {
        return () => Boolean(context.current || context.root().running);
      }
      if (key === "whose") {
        return (filter) => makeSpecifier(context, steps.concat([["whose", filter]]));
      }
      if (key === "byName") {
        return (name) => makeSpecifier(context, steps.concat([["name", name]]));
      }
      if (key === "byId") {
        return (id) => makeSpecifier(context, steps.concat([["id", id]]));
      }
      if (key === "at") {
        return (index) => makeSpecifier(context, steps.concat([["index", index]]));
      }
      if (key === "exists") {
        return () => context.exists(steps);
      }
      if (key === "properties") {
        return () => context.properties(steps);
      }
      if (key === "push") {
        return (maker) => context.push(steps, maker);
      }
      if (key === "length") {
        return context.count(steps);
      }
      if (/^-?\d+$/.test(key)) {
        return makeSpecifier(context, steps.concat([["index", Number(key)]]));
      }
      if (COMMANDS.has(key) || context.scripted(key)) {
        return (...args) => context.command(steps, key, args);
      }
      if (steps.length === 0 && /^[A-Z]/.test(key)) {
        const className = key[0].toLowerCase() + key.slice(1);
        return (props) => makeMaker(context, className, props || {});
      }
      return makeSpecifier(context, steps.concat([["prop", key]]));
    },
  });
}

// A new object (`app.Reminder({...})`) that is not in the app until pushed into an element array.
function makeMaker(context, className, props) {
  const state = { className, props: Object.assign({}, props), bound: null };
  const target = function () {};
  return new Proxy(target, {
    apply(_target, _this, args) {
      if (state.bound) {
        return makeSpecifier(context, state.bound)(...args);
      }
      return undefined;
    },
    get(_target, key) {
      if (key === "__maker") {
        return state;
      }
      if (key === "id" && state.ghostId !== undefined) {
        return () => state.ghostId;
      }
      if (state.ghostId !== undefined) {
        // Anything else of an object the app never kept: it cannot be found.
        return makeSpecifier(context, [["id", state.ghostId]])[key];
      }
      if (state.bound) {
        return makeSpecifier(context, state.bound)[key];
      }
      if (key === "push") {
        return undefined;
      }
      if (typeof key === "string" && key in state.props) {
        return () => state.props[key];
      }
      // Element arrays of an object not made yet collect their new elements here.
      const pending = (state.props[key] = state.props[key] || []);
      return { push: (maker) => pending.push(maker) };
    },
  });
}

// --- ObjC bridge -------------------------------------------------------------------------

function makeObjC(world) {
  const imported = new Set(["Foundation"]);

  class NSData {
    constructor(buffer) {
      this.__buffer = buffer;
    }
    get length() {
      return this.__buffer.length;
    }
    isNil() {
      return false;
    }
  }

  class NSString {
    constructor(text) {
      this.__nsstring = text;
    }
    get js() {
      return this.__nsstring;
    }
    get length() {
      return this.__nsstring.length;
    }
    isNil() {
      return false;
    }
    dataUsingEncoding(_encoding) {
      return new NSData(Buffer.from(this.__nsstring, "utf8"));
    }
    writeToFileAtomicallyEncodingError(file, _atomically, _encoding, _error) {
      fs.writeFileSync(unwrap(file), this.__nsstring);
      return true;
    }
  }

  const nil = { isNil: () => true, js: undefined };

  function rect(values) {
    const [x, y, width, height] = values;
    return { origin: { x, y }, size: { width, height } };
  }

  function nsArray(items) {
    return {
      __items: items,
      get count() {
        return items.length;
      },
      objectAtIndex(index) {
        return items[index];
      },
      isNil() {
        return false;
      },
    };
  }

  function deepUnwrap(value) {
    if (value && Array.isArray(value.__items)) {
      return value.__items.map(deepUnwrap);
    }
    return unwrap(value);
  }

  function unwrap(value) {
    if (value instanceof NSString) {
      return value.__nsstring;
    }
    if (value === nil) {
      return undefined;
    }
    return value;
  }

  function writeAll(fd, buffer) {
    let offset = 0;
    while (offset < buffer.length) {
      try {
        offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
      } catch (error) {
        if (error.code !== "EAGAIN") {
          throw error;
        }
        sleep(2);
      }
    }
  }

  const stdinHandle = {
    get availableData() {
      const buffer = Buffer.alloc(65536);
      for (;;) {
        try {
          const size = fs.readSync(0, buffer, 0, buffer.length, null);
          return new NSData(buffer.subarray(0, size));
        } catch (error) {
          if (error.code === "EAGAIN") {
            sleep(2);
            continue;
          }
          if (error.code === "EOF") {
            return new NSData(Buffer.alloc(0));
          }
          throw error;
        }
      }
    },
  };
  const stdoutHandle = {
    writeData(data) {
      writeAll(1, data.__buffer);
    },
  };

  const appKit = {
    NSScreen: {
      // world.screens: [{"name", "frame": [x, y, w, h], "visible": [x, y, w, h]}] in Cocoa
      // coordinates (origin at the bottom left of the main screen, y up); the first is main.
      get screens() {
        world.reload();
        return nsArray((world.data.screens || []).map((screen) => ({
          frame: rect(screen.frame),
          visibleFrame: rect(screen.visible || screen.frame),
          localizedName: new NSString(screen.name || "Display"),
        })));
      },
    },
    NSPasteboardTypeString: "public.utf8-plain-text",
    NSPasteboard: {
      get generalPasteboard() {
        return {
          get clearContents() {
            world.reload();
            if (world.ignores("Pasteboard")) {
              return 1;
            }
            world.data.clipboard = null;
            world.save();
            return 1;
          },
          setStringForType(text, type) {
            if (type !== appKit.NSPasteboardTypeString) {
              return false;
            }
            world.reload();
            if (world.ignores("Pasteboard")) {
              return true;
            }
            world.data.clipboard = unwrap(text);
            world.save();
            return true;
          },
          stringForType(type) {
            world.reload();
            const text = world.data.clipboard;
            return type === appKit.NSPasteboardTypeString && typeof text === "string"
              ? new NSString(text)
              : nil;
          },
        };
      },
    },
  };

  const foundation = {
    NSUTF8StringEncoding: 4,
    NSString: {
      get alloc() {
        return {
          initWithDataEncoding(data, _encoding) {
            const text = data.__buffer.toString("utf8");
            return Buffer.from(text, "utf8").equals(data.__buffer) ? new NSString(text) : nil;
          },
        };
      },
      stringWithContentsOfFileEncodingError(file, _encoding, _error) {
        try {
          return new NSString(fs.readFileSync(unwrap(file), "utf8"));
        } catch (error) {
          return nil;
        }
      },
    },
    NSFileHandle: {
      get fileHandleWithStandardInput() {
        return stdinHandle;
      },
      get fileHandleWithStandardOutput() {
        return stdoutHandle;
      },
    },
    NSFileManager: {
      get defaultManager() {
        return {
          fileExistsAtPath(file) {
            return fs.existsSync(unwrap(file));
          },
          // world.folders: {"/Applications": ["Safari.app", ...]} stands in for the disk.
          contentsOfDirectoryAtPathError(file, _error) {
            world.reload();
            const folders = world.data.folders || {};
            const names = folders[unwrap(file)];
            return Array.isArray(names) ? nsArray(names.map((name) => new NSString(name))) : nil;
          },
        };
      },
    },
    NSProcessInfo: {
      get processInfo() {
        return { processIdentifier: process.pid };
      },
    },
  };

  const stdlib = {
    exit(code) {
      process.exit(code);
    },
  };

  const frameworks = { Foundation: foundation, AppKit: appKit, stdlib };

  const dollar = new Proxy(
    function (value) {
      return new NSString(String(value));
    },
    {
      get(_target, key) {
        for (const name of imported) {
          if (key in frameworks[name]) {
            return frameworks[name][key];
          }
        }
        return undefined;
      },
    }
  );

  const objc = {
    import(name) {
      if (!(name in frameworks)) {
        throw new Error(`No framework named ${name}`);
      }
      imported.add(name);
      return true;
    },
    unwrap,
    deepUnwrap,
    wrap: (value) => new NSString(String(value)),
  };
  return { objc, dollar };
}

// --- the runtime -------------------------------------------------------------------------

function makeGlobals(world) {
  const { objc, dollar } = makeObjC(world);

  function Application(name) {
    world.reload();
    if (world.data.bundles && typeof world.data.bundles[name] === "string") {
      name = world.data.bundles[name];
    }
    const known =
      KNOWN_APPS.has(name) || name in world.data.apps || world.data.installed.includes(name);
    if (typeof name !== "string" || !known) {
      throw appleError(-2700, "Application can't be found.");
    }
    return makeSpecifier(new AppContext(world, name, false), []);
  }
  Application.currentApplication = function () {
    world.reload();
    return makeSpecifier(new AppContext(world, "osascript", true), []);
  };

  function Path(file) {
    return { __path: String(file), toString: () => String(file) };
  }

  const toStderr = (...parts) => fs.writeSync(2, `${parts.map(String).join(" ")}\n`);
  const isSpecifier = (value) =>
    typeof value === "function" && value.__maker === undefined && typeof value.__steps === "function";
  const ObjectSpecifier = { hasInstance: isSpecifier };
  const Automation = {
    getDisplayString: (value) => (isSpecifier(value) ? value.__display() : String(value)),
  };
  return {
    Application,
    ObjectSpecifier,
    Automation,
    Path,
    ObjC: objc,
    $: dollar,
    delay: (seconds) => sleep(Math.max(0, Number(seconds) * 1000)),
    console: { log: toStderr, error: toStderr, warn: toStderr },
  };
}

function syntaxLine(error, file) {
  const first = String(error.stack || "").split("\n")[0];
  const match = first.match(/:(\d+)$/);
  if (match && first.startsWith(file)) {
    return Number(match[1]);
  }
  return 1;
}

// Runs one script file the way `osascript -l JavaScript FILE ARGS...` does: its `run(argv)`
// result goes to stdout; errors go to stderr in osascript's formats, and the exit status is 1.
function runFile(file, args) {
  let source;
  try {
    source = fs.readFileSync(file, "utf8");
  } catch (error) {
    process.stderr.write(`osascript: ${file}: No such file or directory\n`);
    return 1;
  }
  return runSource(file, source, args);
}

// Runs script text (`file` names it in messages) the way osascript runs a file or `-e` text.
function runSource(file, source, args) {
  const world = new World(process.env.DESKHAND_JXA_WORLD || "");
  const context = vm.createContext(makeGlobals(world));
  let script;
  try {
    script = new vm.Script(source, { filename: file });
  } catch (error) {
    const line = syntaxLine(error, file);
    fs.writeSync(
      2,
      `${file}:0:${source.length}: syntax error: Error on line ${line}: SyntaxError: ${error.message} (-2700)\n`
    );
    return 1;
  }
  try {
    script.runInContext(context);
    const result = typeof context.run === "function" ? context.run(args) : undefined;
    if (result !== undefined) {
      const buffer = Buffer.from(`${String(result)}\n`, "utf8");
      let offset = 0;
      while (offset < buffer.length) {
        try {
          offset += fs.writeSync(1, buffer, offset, buffer.length - offset);
        } catch (error) {
          if (error.code !== "EAGAIN") {
            throw error;
          }
          sleep(2);
        }
      }
    }
    return 0;
  } catch (error) {
    const number = error && typeof error.errorNumber === "number" ? error.errorNumber : -2700;
    fs.writeSync(2, `${file}: execution error: Error: ${String(error)} (${number})\n`);
    return 1;
  }
}

module.exports = { runFile, runSource, World, encode, revive, notesPlaintext, path };

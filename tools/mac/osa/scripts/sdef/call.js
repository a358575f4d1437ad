// Runs one command from an app's scripting dictionary. The same file serves every app and
// every command: all of it arrives as one JSON argument, already checked by Deskhand against
// the app's dictionary, and names are only ever used to look members up.
//
// Input: {"app": bundle id or bundle path, "form": "get" | "set" | "exists" | "count" |
//   "command", "command": the JXA name, "target": [steps] or null, "property" and "value"
//   (set only), "has_direct": bool, "direct": value, "parameters": {JXA name: value},
//   "limits": {"items": n, "text": n (per text), "chars": n (all text)}}.
// Steps: {"property": name} or {"elements": name, "by": "name" | "id" | "index" | "every",
//   "value": ...}; an index counts from 0.
// Values: JSON, where an object is one of {"$ref": [steps]}, {"$file": POSIX path},
//   {"$date": ISO text} or {"$record": {JXA name: value}}.
// Output: {"result": value, "cut": bool, "readback": what the call left behind, read back
//   from the app afterwards (see readBack), or null for get, exists and count}; objects come
//   back as readable paths ({"reference": "..."}), dates as {"date": ISO text}, files as
//   {"file": POSIX path}.

var NAME = /^[A-Za-z][A-Za-z0-9]*$/;
var RESERVED = [
  "constructor", "prototype", "toString", "toLocaleString", "valueOf", "hasOwnProperty",
  "isPrototypeOf", "propertyIsEnumerable", "apply", "call", "bind", "arguments", "caller",
  "includeStandardAdditions", "strictPropertyScope", "strictCommandScope",
  "strictParameterType",
];
var MAX_DEPTH = 16;

function badInput(what) {
  var error = new Error("Deskhand sent an input call.js does not accept: " + what);
  error.errorNumber = -2700;
  return error;
}

function member(name) {
  if (typeof name !== "string" || !NAME.test(name) || RESERVED.indexOf(name) >= 0) {
    throw badInput("a name");
  }
  return name;
}

function walk(app, steps) {
  if (!Array.isArray(steps)) {
    throw badInput("steps");
  }
  var spec = app;
  for (var i = 0; i < steps.length; i++) {
    var step = steps[i];
    if (typeof step.property === "string") {
      spec = spec[member(step.property)];
      continue;
    }
    var elements = spec[member(step.elements)];
    if (step.by === "name") {
      spec = elements.byName(String(step.value));
    } else if (step.by === "id") {
      spec = elements.byId(step.value);
    } else if (step.by === "index") {
      if (typeof step.value !== "number" || step.value % 1 !== 0 || step.value < 0) {
        throw badInput("an index");
      }
      spec = elements.at(step.value);
    } else if (step.by === "every") {
      spec = elements;
    } else {
      throw badInput("a step");
    }
  }
  return spec;
}

function jxaValue(app, value, depth) {
  if (depth > MAX_DEPTH) {
    throw badInput("a value nested too deeply");
  }
  if (value === null || typeof value !== "object") {
    return value;
  }
  if (Array.isArray(value)) {
    return value.map(function (item) {
      return jxaValue(app, item, depth + 1);
    });
  }
  var keys = Object.keys(value);
  if (keys.length !== 1) {
    throw badInput("a value");
  }
  if (keys[0] === "$ref") {
    return walk(app, value.$ref);
  }
  if (keys[0] === "$file") {
    return Path(String(value.$file));
  }
  if (keys[0] === "$date") {
    return new Date(String(value.$date));
  }
  if (keys[0] === "$record") {
    var record = {};
    Object.keys(value.$record).forEach(function (key) {
      record[member(key)] = jxaValue(app, value.$record[key], depth + 1);
    });
    return record;
  }
  throw badInput("a value");
}

function isSpecifier(value) {
  return typeof value === "function" && ObjectSpecifier.hasInstance(value);
}

// The app's answer as JSON, within the limits (the `cut` flag says something was left out).
function render(value, state, depth) {
  if (value === undefined || value === null) {
    return null;
  }
  if (isSpecifier(value)) {
    return { reference: Automation.getDisplayString(value) };
  }
  if (Object.prototype.toString.call(value) === "[object Date]") {
    return { date: isNaN(value.getTime()) ? null : value.toISOString() };
  }
  if (typeof value === "string") {
    var room = Math.max(0, Math.min(state.text, state.chars));
    if (value.length > room) {
      state.cut = true;
      value = value.slice(0, room);
    }
    state.chars -= value.length;
    return value;
  }
  if (typeof value === "number" || typeof value === "boolean") {
    return value;
  }
  if (typeof value !== "object" || depth > MAX_DEPTH) {
    state.cut = true;
    return null;
  }
  if (Array.isArray(value)) {
    var items = [];
    for (var i = 0; i < value.length; i++) {
      if (state.items <= 0) {
        state.cut = true;
        break;
      }
      state.items -= 1;
      items.push(render(value[i], state, depth + 1));
    }
    return items;
  }
  var text = String(value);
  if (text.charAt(0) === "/") {
    return { file: text }; // a Path (file or alias values)
  }
  var record = {};
  var keys = Object.keys(value);
  for (var k = 0; k < keys.length; k++) {
    if (state.items <= 0) {
      state.cut = true;
      break;
    }
    state.items -= 1;
    record[keys[k]] = render(value[keys[k]], state, depth + 1);
  }
  return record;
}

// What a call that changes something left behind, read back from the app: the property after
// a set; after a delete, whether the object still exists; the object a command gave back (the
// one `make` made) with its properties, found by the id it answers to. {"kind": "none"} when a
// command gave nothing back to read; {"kind": "unreadable"} when reading it back failed.
function readBack(input, target, result, limits) {
  var state = { items: limits.items, text: limits.text, chars: limits.chars, cut: false };
  try {
    if (input.form === "set") {
      return { kind: "set", found: render(target[member(input.property)](), state, 0) };
    }
    if (input.form !== "command") {
      return null;
    }
    if (input.command === "delete" && target !== null) {
      return { kind: "deleted", exists: target.exists() };
    }
    var given = Array.isArray(result) ? result[0] : result;
    if (!isSpecifier(given)) {
      return { kind: "none" };
    }
    return {
      kind: input.command === "make" ? "made" : "returned",
      reference: Automation.getDisplayString(given),
      found: render(given.properties(), state, 0),
    };
  } catch (error) {
    return { kind: "unreadable", number: error && typeof error.errorNumber === "number" ? error.errorNumber : null };
  }
}

function runCommand(app, input, target) {
  var named = {};
  var count = 0;
  Object.keys(input.parameters).forEach(function (key) {
    named[member(key)] = jxaValue(app, input.parameters[key], 0);
    count += 1;
  });
  var receiver = target === null ? app : target;
  var name = member(input.command);
  var args = [];
  if (input.has_direct === true) {
    args.push(jxaValue(app, input.direct, 0));
  }
  if (count > 0) {
    args.push(named);
  }
  if (args.length === 0) {
    return receiver[name]();
  }
  if (args.length === 1) {
    return receiver[name](args[0]);
  }
  return receiver[name](args[0], args[1]);
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  var app = Application(String(input.app));
  var target = input.target === null ? null : walk(app, input.target);
  var result = null;
  if (input.form === "command") {
    result = runCommand(app, input, target);
  } else if (target === null) {
    throw badInput("a reference");
  } else if (input.form === "get") {
    result = target();
  } else if (input.form === "exists") {
    result = target.exists();
  } else if (input.form === "count") {
    result = target.length;
  } else if (input.form === "set") {
    target[member(input.property)] = jxaValue(app, input.value, 0);
  } else {
    throw badInput("a form");
  }
  var limits = input.limits;
  var state = { items: limits.items, text: limits.text, chars: limits.chars, cut: false };
  var rendered = render(result, state, 0);
  var back = readBack(input, target, result, limits);
  return JSON.stringify({ result: rendered, cut: state.cut, readback: back });
}

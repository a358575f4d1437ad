// Deskhand's persistent JXA worker: one JSON request per line in, one JSON response per line out.
//
// Started as `osascript -l JavaScript worker.js '{"scripts_dir": "/.../scripts"}'`. The request
// loop (`serve`) is plain JavaScript; only `jxaIO` touches JXA (the ObjC bridge for stdin,
// stdout and reading script files), so the same loop also runs under the Node stand-in in tests.
//
// Request:  {"id": 1, "script": "macos/calendar_today", "input": "<the action's JSON text>"}
// Response: {"id": 1, "ok": true, "output": "<the JSON text the action's run returned>"}
//      or:  {"id": 1, "ok": false, "error": {"number": -1743, "kind": "execution", "message": "..."}}
// The first line written is {"id": null, "ready": true, "protocol": 1}.
//
// A folder's `_prelude.js` (functions its scripts share) is put before each of its scripts, as
// one-shot runs do; names starting with "_" are never actions.
//
// Requests are pure ASCII (Deskhand escapes everything else), so a chunk read from stdin never
// splits a character; responses are escaped the same way.

var SCRIPT_NAME = /^[a-z0-9][a-z0-9_]*(\/[a-z0-9][a-z0-9_]*)*$/;

function asciiJSON(value) {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, function (c) {
    return "\\u" + ("0000" + c.charCodeAt(0).toString(16)).slice(-4);
  });
}

function failure(id, number, kind, message) {
  return { id: id, ok: false, error: { number: number, kind: kind, message: message } };
}

function describeError(id, error, kind) {
  var number = error && typeof error.errorNumber === "number" ? error.errorNumber : -2700;
  var syntax = kind === "syntax" || (error !== null && typeof error === "object" && error.name === "SyntaxError");
  var message = error && error.message !== undefined ? error.message : error;
  return failure(id, number, syntax ? "syntax" : "execution", String(message));
}

// Turns the text of a constant action file into its `run` function. Direct eval in this
// function's scope makes the file's top-level `function run` a local that shadows the
// worker's own `run`; the text only ever comes from a file in the scripts folder.
function compileAction(source) {
  var run = undefined;
  eval(source);
  return run;
}

function handleLine(line, io, cache) {
  var request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return failure(null, -2700, "protocol", "request is not JSON");
  }
  var id = request !== null && typeof request === "object" && "id" in request ? request.id : null;
  if (typeof request.script !== "string" || !SCRIPT_NAME.test(request.script)) {
    return failure(id, -2700, "protocol", "bad script name");
  }
  if (typeof request.input !== "string") {
    return failure(id, -2700, "protocol", "input must be JSON text");
  }
  var action = cache[request.script];
  if (action === undefined) {
    var source = io.readScript(request.script);
    if (source === null) {
      return failure(id, -2700, "protocol", "no such script");
    }
    var folder = request.script.lastIndexOf("/");
    var prelude = folder < 0 ? null : io.readScript(request.script.slice(0, folder) + "/_prelude");
    if (prelude !== null) {
      source = prelude + "\n" + source;
    }
    try {
      action = compileAction(source);
    } catch (error) {
      return describeError(id, error, "syntax");
    }
    if (typeof action !== "function") {
      return failure(id, -2700, "protocol", "script has no run function");
    }
    cache[request.script] = action;
  }
  var output;
  try {
    output = action([request.input]);
  } catch (error) {
    return describeError(id, error, "execution");
  }
  if (typeof output !== "string") {
    return failure(id, -2700, "protocol", "run did not return text");
  }
  return { id: id, ok: true, output: output };
}

// The request loop. `io.read()` returns the next chunk of stdin as text (null at end of input),
// `io.write(line)` writes one line, `io.readScript(name)` returns a script's text or null.
function serve(io) {
  var cache = {};
  var buffer = "";
  io.write(asciiJSON({ id: null, ready: true, protocol: 1 }));
  for (;;) {
    var newline = buffer.indexOf("\n");
    if (newline < 0) {
      var chunk = io.read();
      if (chunk === null) {
        return;
      }
      buffer += chunk;
      continue;
    }
    var line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (line.trim() !== "") {
      io.write(asciiJSON(handleLine(line, io, cache)));
    }
  }
}

// The thin JXA shim: stdin, stdout and file reads through the ObjC bridge.
function jxaIO(scriptsDir) {
  ObjC.import("Foundation");
  var stdin = $.NSFileHandle.fileHandleWithStandardInput;
  var stdout = $.NSFileHandle.fileHandleWithStandardOutput;
  return {
    read: function () {
      var data = stdin.availableData;
      if (data.length === 0) {
        return null;
      }
      var text = ObjC.unwrap($.NSString.alloc.initWithDataEncoding(data, $.NSUTF8StringEncoding));
      return typeof text === "string" ? text : "";
    },
    write: function (line) {
      stdout.writeData($(line + "\n").dataUsingEncoding($.NSUTF8StringEncoding));
    },
    readScript: function (name) {
      var path = scriptsDir + "/" + name + ".js";
      var text = ObjC.unwrap(
        $.NSString.stringWithContentsOfFileEncodingError(path, $.NSUTF8StringEncoding, null)
      );
      return typeof text === "string" ? text : null;
    },
  };
}

function run(argv) {
  var options = JSON.parse(argv[0]);
  serve(jxaIO(options.scripts_dir));
}
